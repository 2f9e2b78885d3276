"""The chat view: one widget per transcript item, updated from :class:`Change` objects.

Cost per stream chunk does not depend on the length of the chat: a change names the items it
touched, their widgets are marked dirty, and a timer syncs the dirty ones at most
``FLUSH_HZ`` times a second. About ``MAX_MOUNTED`` items stay mounted, a window that moves with
the user: while the view follows the bottom the oldest are unmounted and come back through the
"earlier" row; while the user scrolls back, the newest are unmounted and come back when the
user scrolls down again or presses Ctrl+End. A window move mounts its widgets and removes the
ones it unmounts with the screen's updates held, so it costs one layout and one paint. Widgets
unmounted otherwise (while following the bottom) are hidden at once and removed with the next
window move or once the view has been still for ``QUIET_SECONDS``; a full garbage collection
that is due runs then too. The scroller is in :mod:`openletta.ui.chat_scroll`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from openletta.display import plain_text
from openletta.transcript import Change, Item, UserItem
from openletta.ui.chat_scroll import ChatScroll, EarlierRow, NewIndicator
from openletta.ui.collector import collect_if_due
from openletta.ui.widgets import ItemWidget, UndisplayableItem, make_item_widget

FLUSH_HZ = 30
#: Items kept mounted while following the bottom, and how far beyond that before pruning.
MAX_MOUNTED = 40
PRUNE_SLACK = 10
BEGINNING = "beginning of the conversation"
#: Items mounted again per click on the "earlier" row, or per scroll past either end.
EARLIER_BATCH = 6
#: Items mounted when a page opens into an empty view, or on a jump to the bottom (more follow
#: if they do not fill the view).
OPENING_BATCH = 20
#: Items kept above an item the view jumps to when it mounts a new window around it.
WINDOW_LEAD = 10
#: Widgets unmounted outside a window move are hidden at once and removed with the next one,
#: after this many seconds without one, or at once when more than ``RETIRED_LIMIT`` wait
#: (removal on its own costs a layout). A due full garbage collection waits for the same.
QUIET_SECONDS = 0.5
RETIRED_LIMIT = 40


class ChatView(Vertical):
    """Item widgets in a scroller, the "↓ new" indicator and the rows of queued messages."""

    BINDINGS: ClassVar[list[BindingType]] = [("end", "jump_to_bottom", "Bottom")]

    show_internal = reactive(False)
    """Whether internal items (system prompt, system notes) are shown."""
    more_on_server: reactive[bool | None] = reactive(None)
    """Whether the server has older history than the first item (``None``: not known yet)."""

    class EarlierRequested(Message):
        """Every known item is shown and the user asked for more: load an older page."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[Item] = []
        self._widgets: dict[str, ItemWidget] = {}
        self._hidden_above = 0
        self._hidden_below = 0
        self._dirty: dict[str, ItemWidget] = {}
        self._flush_timer: Timer | None = None
        #: Widgets taken off screen and not removed yet (removing them costs a layout).
        self._retired: list[ItemWidget] = []
        self._quiet_timer: Timer | None = None
        #: An older page was asked for and has not arrived yet.
        self._loading_earlier = False
        #: The last older page asked for could not be loaded.
        self._earlier_failed = False
        self._scroll = ChatScroll(id="chat-scroll")
        self._earlier = EarlierRow(id="earlier")
        self._indicator = NewIndicator("↓ new messages (Ctrl+End)", id="new-indicator")
        self._pending = Static(id="pending")

    def compose(self) -> ComposeResult:
        with self._scroll:
            yield self._earlier
        yield self._indicator
        yield self._pending

    def on_mount(self) -> None:
        self._scroll.anchor()
        self._update_earlier_row()

    # --- queries ----------------------------------------------------------------------------

    @property
    def scroll(self) -> ChatScroll:
        """The scrolling container of the item widgets."""
        return self._scroll

    @property
    def following(self) -> bool:
        """True while the view sticks to the bottom (the user has not scrolled up)."""
        return self._scroll.at_bottom and not self._hidden_below

    @property
    def mounted_items(self) -> list[Item]:
        """Items whose widgets are mounted, in display order."""
        return self._items[self._hidden_above:self._mounted_end]

    @property
    def _mounted_end(self) -> int:
        """Index after the newest mounted item."""
        return len(self._items) - self._hidden_below

    def widget_for(self, item: Item) -> ItemWidget | None:
        """The mounted widget of ``item``, if any."""
        return self._widgets.get(item.key)

    def reveal(self, item: Item) -> ItemWidget | None:
        """The widget of ``item``, mounting it (and what lies between) if it was pruned."""
        self._mount_through(item)
        return self._widgets.get(item.key)

    def _mount_through(self, item: Item) -> asyncio.Event | None:
        """Mount ``item`` if it is pruned: with the items between, or in a window of its own."""
        if item.key in self._widgets or item not in self._items:
            return None
        index = self._items.index(item)
        if self._hidden_above - MAX_MOUNTED <= index < self._hidden_above:
            return self._show_earlier(count=self._hidden_above - index)
        if self._mounted_end <= index < self._mounted_end + MAX_MOUNTED:
            return self._show_later(count=index - self._mounted_end + 1)
        return self._remount(index - WINDOW_LEAD)

    def prompt_near(self, direction: int) -> UserItem | None:
        """The user message above (``-1``) or below (``+1``) the top line of the view."""
        top = self._scroll.scroll_y
        shown = [item for item in self.mounted_items if self._widgets[item.key].display]

        def starts_below(item: Item) -> bool:
            y = self._widgets[item.key].virtual_region.y
            return y > top if direction > 0 else y >= top

        first = next((item for item in shown if starts_below(item)), None)
        split = self._items.index(first) if first is not None else len(self._items)
        candidates = self._items[split:] if direction > 0 else reversed(self._items[:split])
        return next((item for item in candidates if isinstance(item, UserItem)), None)

    async def scroll_to(self, item: Item) -> ItemWidget | None:
        """Bring ``item`` to the top of the view, mounting it first if it was pruned."""
        shown = self._mount_through(item)
        if shown is not None:
            await shown.wait()
        widget = self._widgets.get(item.key)
        if widget is not None:
            self.call_after_refresh(self._bring_to_top, widget)
        return widget

    def _bring_to_top(self, widget: ItemWidget) -> None:
        self._scroll.scroll_to(y=widget.virtual_region.y, animate=False, immediate=True)
        self._scroll.hold_in_place(widget)  # Markdown mounted above may still grow

    # --- applying changes ------------------------------------------------------------------

    def apply(self, change: Change) -> None:
        """Reflect one transcript change: mount, remove, or mark widgets for a sync."""
        for item in change.removed:
            self._remove(item)
        if change.prepended:
            self._prepend(change.prepended)
        if change.added:
            self._append(change.added)
        for item in change.changed:
            widget = self._widgets.get(item.key)
            if widget is not None:
                self._dirty[item.key] = widget
        if self._dirty and self._flush_timer is None:
            self._flush_timer = self.set_timer(1 / FLUSH_HZ, self.flush)
        if (change.added or change.changed) and not change.prepended \
                and not self._indicator.display and not self.following:
            self._indicator.display = True

    def flush(self) -> None:
        """Sync every dirty widget now (called by the timer and when a turn ends)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        dirty, self._dirty = self._dirty, {}
        for key, widget in dirty.items():
            if widget.is_mounted:
                widget.sync()
            elif widget.parent is not None:
                self._dirty[key] = widget  # still mounting: sync once it is there
        if self._dirty:
            self._flush_timer = self.set_timer(1 / FLUSH_HZ, self.flush)

    def add_notice(self, text: str, *, error: bool = False) -> None:
        """Show a line that is not part of the transcript (e.g. why a send failed)."""
        notice = Static(plain_text(text), classes="notice -error" if error else "notice")
        self._scroll.mount(notice)

    def clear(self) -> None:
        """Unmount everything shown; the "earlier" row brings it back."""
        self._remove_retired()
        self._scroll.remove_children([*self._widgets.values(), *self._scroll.query(".notice")])
        self._widgets.clear()
        self._dirty.clear()
        self._hidden_above = len(self._items)
        self._hidden_below = 0
        self._update_earlier_row()

    def set_pending(self, rows: Sequence[tuple[str, str]]) -> None:
        """Show messages not sent yet as ``(label, text)`` rows, e.g. ``("queued", "hi")``."""
        pending = self._pending
        text = Text()
        for label, message in rows:
            if text:
                text.append("\n")
            text.append(f"{label} ", style="bold")
            text.append_text(plain_text(message.replace("\n", " ⏎ ")))
        pending.update(text)
        pending.display = bool(rows)

    # --- internals --------------------------------------------------------------------------

    def _make(self, item: Item) -> ItemWidget:
        widget = make_item_widget(item)
        if item.internal:
            widget.add_class("-internal")
        self._widgets[item.key] = widget
        return widget

    def _append(self, items: list[Item]) -> None:
        self._items.extend(items)
        if self._hidden_below:  # the user is reading far back: these wait below
            self._hidden_below += len(items)
            self._update_indicator()
            return
        excess = len(self._widgets) + len(items) - MAX_MOUNTED
        opening = not self._widgets and len(items) > OPENING_BATCH
        if opening:
            skipped = len(items) - OPENING_BATCH
            self._hidden_above += skipped
            items = items[skipped:]
            self._update_earlier_row()
        elif self.following and excess > PRUNE_SLACK:
            pruned = min(excess, len(self._widgets))
            self._prune_oldest(pruned)
            skipped = excess - pruned  # the oldest new items go straight to "earlier"
            self._hidden_above += skipped
            items = items[skipped:]
            self._update_earlier_row()
        widgets = [self._make(item) for item in items]
        if opening:
            self.call_later(self._fill_view, self._mount_held(widgets))
        else:
            self._scroll.mount_all(widgets)

    async def _fill_view(self, shown: asyncio.Event) -> None:
        """Once ``shown``, mount earlier items while they do not fill the view."""
        await shown.wait()
        self.call_after_refresh(self._show_earlier_if_short)

    def _show_earlier_if_short(self) -> None:
        room = len(self._widgets) + EARLIER_BATCH <= MAX_MOUNTED + PRUNE_SLACK
        if room and self._scroll.max_scroll_y <= 0 and self._hidden_above:
            self.call_later(self._fill_view, self._show_earlier())

    def _prepend(self, items: list[Item]) -> None:
        """An older page: its newest items go on screen (when the top is), the rest wait."""
        self._items[0:0] = items
        self._loading_earlier = False
        at_top = not self._hidden_above
        self._hidden_above += len(items)
        if at_top:
            self._show_earlier()
        self._update_earlier_row()

    def _mount_above(self, widgets: list[ItemWidget]) -> asyncio.Event:
        """Mount ``widgets`` at the top without moving what the user is looking at."""
        scroll = self._scroll
        anchor = next((child for child in scroll.children
                       if isinstance(child, ItemWidget) and child.display), None)
        if anchor is not None and not self.following:
            scroll.hold_in_place(anchor)
        return self._mount_held(widgets, after=0)

    def _mount_held(self, widgets: list[ItemWidget], *,
                    after: Widget | int | None = None) -> asyncio.Event:
        """Mount ``widgets`` and remove the retired ones in one step (one layout)."""
        retired, self._retired = self._retired, []
        self._await_quiet()
        return self._scroll.mount_held(widgets, after=after, remove=retired)

    def _remove(self, item: Item) -> None:
        index = self._items.index(item)
        if index >= self._mounted_end:
            self._hidden_below -= 1
        del self._items[index]
        if index < self._hidden_above:
            self._hidden_above -= 1
        widget = self._widgets.pop(item.key, None)
        self._dirty.pop(item.key, None)
        if widget is not None:
            widget.remove()

    def _unmount(self, items: Sequence[Item]) -> None:
        """Take the widgets of ``items`` off screen now; remove them once the view is idle."""
        for item in items:
            widget = self._widgets.pop(item.key)
            self._dirty.pop(item.key, None)
            widget.display = False  # an inline style: no CSS to apply again to its subtree
            self._retired.append(widget)
        if len(self._retired) > RETIRED_LIMIT:
            self._remove_retired()
        self._await_quiet()

    def _await_quiet(self) -> None:
        """Count ``QUIET_SECONDS`` from now until :meth:`_on_quiet`."""
        if self._quiet_timer is None:
            self._quiet_timer = self.set_timer(QUIET_SECONDS, self._on_quiet)
        else:
            self._quiet_timer.reset()

    def _on_quiet(self) -> None:
        """The window has not moved for a while: do the work that would have made it stutter."""
        self._quiet_timer = None
        self._remove_retired()
        collect_if_due()

    def _remove_retired(self) -> None:
        retired, self._retired = self._retired, []
        self._scroll.remove_children(retired)

    def _prune_oldest(self, count: int, *, hold: bool = False) -> None:
        """Unmount the ``count`` oldest mounted items (``hold``: keep the view where it is)."""
        start = self._hidden_above
        if hold and start + count < self._mounted_end:
            self._scroll.hold_in_place(self._widgets[self._items[start + count].key])
        self._unmount(self._items[start:start + count])
        self._hidden_above += count
        self._update_earlier_row()

    def _prune_newest(self) -> None:
        """After mounting above: unmount the newest items beyond ``MAX_MOUNTED``.

        A widget that is busy (an approval prompt is open in it) stays, with all above it.
        """
        excess = len(self._widgets) - MAX_MOUNTED
        if excess <= PRUNE_SLACK:
            return
        end = self._mounted_end
        doomed = self._items[end - excess:end]
        busy = [index for index, item in enumerate(doomed) if self._widgets[item.key].busy]
        if busy:
            doomed = doomed[busy[-1] + 1:]
        if doomed:
            self._unmount(doomed)
            self._hidden_below += len(doomed)
            self._scroll.anchor(False)  # the bottom is no longer the end of the chat
            self._update_indicator()

    def _show_earlier(self, count: int = EARLIER_BATCH) -> asyncio.Event:
        count = min(count, self._hidden_above)
        start = self._hidden_above - count
        widgets = [self._make(item) for item in self._items[start:self._hidden_above]]
        self._hidden_above = start
        self._update_earlier_row()
        self._prune_newest()
        return self._mount_above(widgets)

    def _show_later(self, count: int = EARLIER_BATCH) -> asyncio.Event:
        """Mount the next ``count`` items below, unmounting as many of the oldest."""
        end = self._mounted_end
        count = min(count, self._hidden_below)
        last = self._widgets.get(self._items[end - 1].key) if end else None
        widgets = [self._make(item) for item in self._items[end:end + count]]
        self._hidden_below -= count
        self._update_indicator()
        excess = len(self._widgets) - MAX_MOUNTED
        if excess > PRUNE_SLACK:
            self._prune_oldest(excess, hold=True)
        return self._mount_held(widgets, after=last or self._earlier)

    def _remount(self, start: int, count: int = MAX_MOUNTED) -> asyncio.Event:
        """Unmount every item and mount ``count`` of them from ``start`` on."""
        start = max(0, min(start, len(self._items) - count))
        end = min(len(self._items), start + count)
        self._scroll.reporting = False  # until the new window is laid out
        self._unmount(self.mounted_items)
        self._scroll.release_hold()  # whatever it held is gone
        self._hidden_above, self._hidden_below = start, len(self._items) - end
        self._scroll.anchor(not self._hidden_below)
        self._update_earlier_row()
        self._update_indicator()
        widgets = [self._make(item) for item in self._items[start:end]]
        shown = self._mount_held(widgets, after=self._earlier)
        self.call_later(self._end_remount, shown)
        return shown

    async def _end_remount(self, shown: asyncio.Event) -> None:
        await shown.wait()
        self.call_after_refresh(self._remount_laid_out)

    def _remount_laid_out(self) -> None:
        self._scroll.reporting = True

    def _update_indicator(self) -> None:
        """Say how many items wait below, or hide the row once none does."""
        hidden = self._hidden_below
        self._indicator.update(f"↓ {hidden} later items (Ctrl+End)" if hidden
                               else "↓ new messages (Ctrl+End)", layout=False)
        if hidden:
            self._indicator.display = True

    def _update_earlier_row(self) -> None:
        """Say what is above; the row is one line whatever it says, so no layout is needed."""
        row = self._earlier
        failed = beginning = False
        if self._hidden_above:
            text = f"↑ {self._hidden_above} earlier items (click to show)"
        elif self._loading_earlier:
            text = "loading earlier messages…"
        elif self._earlier_failed:
            text, failed = "↑ could not load earlier messages: click or PageUp to try again", True
        elif self.more_on_server:
            text = "↑ load earlier messages (click)"
        else:
            text, beginning = BEGINNING, self.more_on_server is False
        row.update(text, layout=False)
        row.set_class(beginning, "-beginning")
        row.set_class(failed, "-failed")
        row.display = bool(self._hidden_above) or self.more_on_server is not None

    def earlier_failed(self) -> None:
        """The older page asked for did not come: the row offers to ask again."""
        self._loading_earlier = False
        self._earlier_failed = True
        self._update_earlier_row()

    def watch_more_on_server(self) -> None:
        self._loading_earlier = False
        if self.is_mounted:
            self._update_earlier_row()

    def watch_show_internal(self, show: bool) -> None:
        self.set_class(show, "-show-internal")

    # --- user actions -------------------------------------------------------------------------

    def on_item_widget_failed(self, event: ItemWidget.Failed) -> None:
        """Put a "could not display this item" card where a widget failed to show its item."""
        event.stop()
        failed, item = event.widget, event.widget.item
        if self._widgets.get(item.key) is not failed or isinstance(failed, UndisplayableItem):
            return
        stand_in = UndisplayableItem(item, event.error)
        self._widgets[item.key] = stand_in
        self._dirty.pop(item.key, None)
        if failed.parent is self._scroll:
            self._scroll.mount(stand_in, after=failed)
        failed.remove()

    def on_earlier_row_pressed(self) -> None:
        self.show_earlier()

    def show_earlier(self) -> None:
        """Mount the next batch of unmounted items, or ask for an older page of history."""
        if self._hidden_above:
            self._show_earlier()
        elif self.more_on_server and not self._loading_earlier:
            self._loading_earlier, self._earlier_failed = True, False
            self._update_earlier_row()
            self.post_message(self.EarlierRequested())

    def on_chat_scroll_moved(self, event: ChatScroll.Moved) -> None:
        if event.at_bottom:
            if self._hidden_below:
                self._show_later()
            else:
                self._indicator.display = False
                if not self._scroll.is_anchored:
                    self._scroll.anchor()
        if event.at_top:
            self.show_earlier()

    def on_new_indicator_pressed(self) -> None:
        self.action_jump_to_bottom()

    def page(self, direction: int) -> None:
        """Scroll a page up (``-1``) or down (``+1``), as PageUp and PageDown do; at the top,
        a page up asks for what is above."""
        self._scroll.release_hold()
        if direction < 0 and self._scroll.scroll_y < 1:
            self.show_earlier()
        elif direction < 0:
            self._scroll.scroll_page_up(animate=False)
        else:
            self._scroll.scroll_page_down(animate=False)

    def action_jump_to_bottom(self) -> None:
        """Scroll to the newest item and follow new content again."""
        if self._hidden_below:  # a screenful is enough; more follow if it is short
            shown = self._remount(len(self._items) - OPENING_BATCH, OPENING_BATCH)
            self.call_later(self._fill_view, shown)
        self._scroll.anchor()
        self._indicator.display = False

