"""Ctrl+F: find text in the conversation and step between the matching items.

Matches are whole items (a message, a tool call), searched in what is loaded; stepping past
the oldest match loads earlier pages from the server, a page at a time, until an older
match turns up or the conversation begins. The current match is scrolled to the top of the
chat view and tinted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from openletta.transcript import Item
from openletta.transcript.search import find_items
from openletta.ui.chat_view import ChatView
from openletta.ui.steady import SteadyInput
from openletta.ui.widgets.base import Folds

#: Earlier pages loaded by one step before the search says it found nothing older.
PAGES_PER_STEP = 10
MATCH_CLASS = "-match"


class SearchInput(SteadyInput):
    """The find field: ↑ and ↓ step between matches instead of scrolling."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "step(-1)", "Older match", key_display="⏎/↑", id="search.older"),
        Binding("down", "step(1)", "Newer match", key_display="↓", id="search.newer"),
    ]

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
                 load_earlier: Callable[[], Awaitable[bool]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._view = view
        self._items = items
        self._load_earlier = load_earlier
        self._input = SearchInput(placeholder="Find in this conversation", id="search-input")
        self._steps = asyncio.Lock()
        self._count = Static(id="search-count")
        self.matches: list[Item] = []
        #: Index in :attr:`matches` of the match shown, if any.
        self.current: int | None = None

    def compose(self) -> ComposeResult:
        yield Static("Find", id="search-label")
        yield self._input
        yield self._count

    @property
    def search_text(self) -> str:
        """What is being searched for (the field's value)."""
        return self._input.value

    def open(self) -> None:
        """Show the bar and focus its field (with the last query selected)."""
        self.display = True
        self._input.focus()
        self._input.select_all()
        self._refresh_matches()

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
        self.current = None
        self._refresh_matches()

    async def _step(self, direction: int) -> None:
        async with self._steps:
            if self.search_text.strip():
                await self._go(direction)

    async def _go(self, direction: int) -> None:
        shown = self.matches[self.current] if self.current is not None else None
        target: int | None  # None: no older match, even after loading earlier pages
        target = (self.current if self.current is not None else len(self.matches)) + direction
        if target < 0 or not self.matches:
            target = await self._search_older(shown)
        if target is None or target >= len(self.matches):
            if direction > 0:
                self._show_count("newest match")
                return
            if shown is not None:
                await self._view.scroll_to_item(shown)  # loading pages may have moved the view
            further = self._view.more_on_server
            self._show_count("none older yet · ↑ searches further" if further else "no older match")
            return
        self.current = target
        widget = await self._view.scroll_to_item(self.matches[target])
        self._mark(widget)
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
        self.matches = find_items(self._items(), self.search_text,
                                  include_internal=self._view.show_internal)
        if self.current is not None and self.current >= len(self.matches):
            self.current = None
        self._show_count()

    def _show_count(self, note: str = "") -> None:
        if not self.search_text.strip():
            text = ""
        elif not self.matches:
            text = "no matches"
        elif self.current is None:
            text = f"{len(self.matches)} matches"
        else:
            text = f"{self.current + 1}/{len(self.matches)}"
        if self._view.more_on_server and not note and self.search_text.strip():
            text += " · earlier pages not searched yet"
        self._count.update(f"{text} · {note}" if note and text else note or text)

    def _mark(self, widget: Widget | None) -> None:
        for marked in self._view.scroll.query(f".{MATCH_CLASS}"):
            marked.remove_class(MATCH_CLASS)
        if widget is not None:
            widget.add_class(MATCH_CLASS)
            if isinstance(widget, Folds):  # the match may be in the folded part
                widget.expanded = True
