"""Ctrl+F: find text in the conversation and step between the matches.

Matches are counted by item (a message, a tool call), searched in what is loaded, in what
each item shows (:func:`shown_text`: a reply's Markdown rendered, not its source); stepping
past the oldest match loads earlier pages from the server, a page at a time, until an older
match turns up or the conversation begins. The current item is tinted and unfolded, and a
step goes through each place its widget draws the query (:func:`find_hits`) before the next
item: the view scrolls to that line and the words are selected.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.selection import Selection
from textual.widget import Widget
from textual.widgets import Input, Static

from openletta.transcript import Item
from openletta.transcript.search import find_items, query_pattern
from openletta.ui.chat_view import ChatView
from openletta.ui.search_hits import Hit, find_hits
from openletta.ui.shown_text import DEFAULT_WIDTH, held_text, shown_text
from openletta.ui.steady import SteadyInput, repaint_inside, restyle_alone
from openletta.ui.widgets.base import Folds

#: Earlier pages loaded by one step before the search says it found nothing older.
PAGES_PER_STEP = 10
#: Items whose shown text is read ahead at a time, between the app's other work.
READ_AHEAD_BATCH = 10
MATCH_CLASS = "-match"
#: Rows shown above a match's line (a quarter of the view at most), for what leads to it.
ROWS_ABOVE_MATCH = 3


class SearchInput(SteadyInput):
    """The find field: ↑ and ↓ step between matches instead of scrolling; while a turn runs,
    Ctrl+C stops it (as anywhere in the chat) rather than copy the query."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "step(-1)", "Older match", key_display="⏎/↑", id="search.older"),
        Binding("down", "step(1)", "Newer match", key_display="↓", id="search.newer"),
    ]

    def __init__(self, busy: Callable[[], bool], **options: Any) -> None:
        """``busy``: whether a turn runs."""
        super().__init__(**options)
        self._busy = busy

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "copy" and self._busy():
            return False
        return super().check_action(action, parameters)

    class Step(Message):
        """Go to the next older (``-1``) or newer (``+1``) match."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    def action_step(self, direction: int) -> None:
        self.post_message(self.Step(direction))

    async def action_submit(self) -> None:
        self.post_message(self.Step(-1))


class SearchBar(Horizontal):
    """A find field with a match counter; Enter/↑ go to older matches, ↓ to newer ones.

    Steps run one after another in the order they were asked for (a step may load pages).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="search.close"),
    ]

    class Closed(Message):
        """The user closed the search."""

    def __init__(self, view: ChatView, items: Callable[[], list[Item]],
                 load_earlier: Callable[[], Awaitable[bool]], busy: Callable[[], bool], *,
                 id: str | None = None) -> None:
        """``items``: what is searched; ``load_earlier``: load an older page (``False``: there
        is none); ``busy``: whether a turn runs."""
        super().__init__(id=id)
        self._view = view
        self._items = items
        self._load_earlier = load_earlier
        self._input = SearchInput(busy, placeholder="Find in this conversation",
                                  id="search-input")
        self._steps = asyncio.Lock()
        self._count = Static(id="search-count")
        self.matches: list[Item] = []
        #: Tool calls holding the query only in output their cards leave out (not matches).
        self.unshown: list[Item] = []
        #: Index in :attr:`matches` of the match shown, if any.
        self.current: int | None = None
        #: Where the current item draws the query, and the index of the one shown, if any.
        self.hits: list[Hit] = []
        self.hit: int | None = None
        #: The text selection made for the match shown.
        self._selected: dict[Widget, Selection] = {}

    def compose(self) -> ComposeResult:
        yield Static("Find", id="search-label")
        yield self._input
        yield self._count

    @property
    def search_text(self) -> str:
        """What is being searched for (the field's value)."""
        return self._input.value

    @property
    def highlighting(self) -> bool:
        """Whether the text selected on screen is the match this search selected (not a
        selection the user made since): it is no one's to copy."""
        return bool(self._selected) and self.screen.selections == self._selected

    def open(self) -> None:
        """Show the bar and focus its field (with the last query selected); the items'
        shown text is read meanwhile. The field has the focus at once, not after the keys
        already waiting (read with Ctrl+F: they are its)."""
        self.display = True
        self.screen.set_focus(self._input)
        self._input.select_all()
        self._refresh_matches()
        self.run_worker(self._read_ahead(), group="find-read-ahead", exclusive=True)

    async def _read_ahead(self) -> None:
        """Read the shown text of the items loaded before a query needs it (a long
        history's Markdown takes a while), a batch at a time between the app's other work."""
        width = self._width()
        for count, item in enumerate(list(self._items()), 1):
            shown_text(item, width)
            if count % READ_AHEAD_BATCH == 0:
                await asyncio.sleep(0)

    def _width(self) -> int:
        """The width a tool card's body is laid out in (what the chat gives it)."""
        return self._view.scroll.content_region.width or DEFAULT_WIDTH

    def action_close(self) -> None:
        """Hide the bar and clear the tint."""
        self._mark(None)
        self.display = False
        self.post_message(self.Closed())

    @on(SearchInput.Step)
    def _step_asked(self, event: SearchInput.Step) -> None:
        self.run_worker(self._step(event.direction), group="search")

    @on(Input.Changed, "#search-input")
    def _query_changed(self) -> None:
        self._mark(None)
        self.current = self.hit = None
        self._refresh_matches()

    async def _step(self, direction: int) -> None:
        async with self._steps:
            if self.search_text.strip():
                await self._go(direction)

    async def _go(self, direction: int) -> None:
        if self._step_in_item(direction):
            return
        shown = self.matches[self.current] if self.current is not None else None
        target: int | None  # None: no older match, even after loading earlier pages
        target = (self.current if self.current is not None else len(self.matches)) + direction
        if target < 0 or not self.matches:
            target = await self._search_older(shown)
        if target is None or target >= len(self.matches):
            if direction > 0:
                self._show_count("newest match")
                return
            if shown is not None:  # loading pages may have moved the view
                await self._show(shown, self.hit or 0)
            further = self._view.more_on_server
            self._show_count("none older yet · ↑ searches further" if further else "no older match")
            return
        self.current = target
        await self._show(self.matches[target], -1 if direction < 0 else 0)

    def _step_in_item(self, direction: int) -> bool:
        """Go to the next place the current item draws the query, if it has one that way."""
        if self.current is None or self.hit is None:
            return False
        widget = self._view.widget_for(self.matches[self.current])
        if widget is None:
            return False
        self.hits = find_hits(widget, self.search_text)
        target = self.hit + direction
        if not 0 <= target < len(self.hits):
            return False
        self._show_hit(widget, target, moving=False)
        return True

    async def _show(self, item: Item, place: int) -> None:
        """Tint (and unfold) ``item``, then scroll to where it draws the query: the place at
        index ``place`` (``-1``: the last) or, when it draws none, the top of the item."""
        widget = await self._view.show_item(item)
        if not self.display:  # closed meanwhile: nothing is marked or selected any more
            return
        self._mark(widget)
        if widget is None:
            return
        await self._view.scroll.wait_for_refresh()  # laid out, unfolded
        if not self.display:
            return
        self.hits = find_hits(widget, self.search_text)
        last = len(self.hits) - 1
        if self.hits:
            self._show_hit(widget, last if place < 0 else min(place, last), moving=True)
        else:  # not drawn as text (a link's address, say)
            self.hit = None
            self._view.scroll.show_line(widget, above=ROWS_ABOVE_MATCH)
            self._show_count()

    def _show_hit(self, widget: Widget, index: int, *, moving: bool) -> None:
        """Select place ``index`` of :attr:`hits`, in ``widget``, and scroll to its line: always
        when ``moving`` to another item, else only when it is out of view."""
        self.hit, hit = index, self.hits[index]
        scroll, row = self._view.scroll, hit.row_in(widget)
        line = widget.virtual_region.y + row
        if moving or not scroll.scroll_y <= line < scroll.scroll_y + scroll.page_height:
            scroll.show_line(widget, row, above=ROWS_ABOVE_MATCH)
        self._select({hit.widget: hit.selection} if hit.selection is not None else {})
        self._show_count()

    async def _search_older(self, shown: Item | None) -> int | None:
        """Load earlier pages until a match older than ``shown`` appears; its index."""
        for _ in range(PAGES_PER_STEP):
            self._show_count("searching earlier messages…")
            if not await self._load_earlier():
                break
            self._refresh_matches()
            older = self.matches.index(shown) if shown in self.matches else len(self.matches)
            if older > 0:
                return older - 1
        self._refresh_matches()
        return None

    def _refresh_matches(self) -> None:
        width = self._width()
        self.matches = find_items(self._items(), self.search_text,
                                  lambda item: shown_text(item, width),
                                  include_internal=self._view.show_internal)
        self.unshown = self._unshown_matches()
        if self.current is not None and self.current >= len(self.matches):
            self.current = None
        self._show_count()

    def _unshown_matches(self) -> list[Item]:
        """The tool calls whose held output has the query in lines their cards leave out (the
        middle of a long output): not counted as matches, as nothing on screen shows it."""
        pattern = query_pattern(self.search_text)
        if pattern is None:
            return []
        matched = {id(item) for item in self.matches}
        return [item for item in self._items()
                if id(item) not in matched and (self._view.show_internal or not item.internal)
                and pattern.search(held_text(item))]

    def _show_count(self, note: str = "") -> None:
        if not self.search_text.strip():
            text = ""
        elif not self.matches:
            text = "no matches"
        elif self.current is None:
            text = f"{len(self.matches)} matches"
        else:
            text = f"{self.current + 1}/{len(self.matches)}"
            if self.hit is not None and len(self.hits) > 1:
                text += f" · {self.hit + 1} of {len(self.hits)} in this message"
        if self.unshown and text:
            calls = f"{len(self.unshown)} tool output{'s' if len(self.unshown) > 1 else ''}"
            text += f" · also in lines not shown of {calls} (/export has them)"
        if self._view.more_on_server and not note and self.search_text.strip():
            text += " · earlier pages not searched yet"
        self._count.update(f"{text} · {note}" if note and text else note or text)

    def _select(self, selections: dict[Widget, Selection]) -> None:
        """Select the match (``selections``) in place of the last match; with none, the last
        match is no longer selected (unless the user has selected something else since)."""
        if self._selected and self.screen.selections == self._selected:
            self.screen.clear_selection()
        if selections:
            self.screen.selections = selections
        self._selected = selections

    def _mark(self, widget: Widget | None) -> None:
        """Tint ``widget`` (and unfold it) alone, and select nothing yet. (The items whose
        mark changed are styled again alone: the rule for the mark matches the item itself.)
        """
        self._select({})
        changed = list(self._view.scroll.query(f".{MATCH_CLASS}"))
        for marked in changed:
            marked.remove_class(MATCH_CLASS, update=False)
        if widget is not None:
            widget.add_class(MATCH_CLASS, update=False)
            changed.append(widget)
            if isinstance(widget, Folds):  # the match may be in the folded part
                widget.expanded = True
        restyle_alone(*changed)
        for tinted in changed:
            repaint_inside(tinted)
