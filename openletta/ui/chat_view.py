"""The chat view: one widget per transcript item, updated from :class:`Change` objects.

Cost per stream chunk does not depend on the length of the chat: a change names the items it
touched, their widgets are marked dirty, and a timer syncs the dirty ones (and mounts the new
ones, together) at most ``FLUSH_HZ`` times a second. About ``MAX_MOUNTED`` items stay mounted,
a window that moves with the user (worked out by
:class:`~openletta.ui.chat_window.ChatWindow`; the view mounts and removes the widgets). A
window move mounts its widgets and removes the ones it unmounts with the screen's updates
held: one layout and one paint. Widgets unmounted while following the bottom are hidden at
once and removed with the next move or once the view is still (:meth:`ChatScroll.retire`).
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from openletta.transcript import Change, Item, UserItem
from openletta.ui.chat_paging import ChatPaging
from openletta.ui.chat_scroll import ChatScroll, EarlierRow, NewIndicator, PendingRows
from openletta.ui.chat_window import ChatWindow, Move
from openletta.ui.steady import restyle_alone
from openletta.ui.widgets import ItemWidget, UndisplayableItem, make_item_widget

FLUSH_HZ = 30


class ChatView(ChatPaging):
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
        #: The items, and which of them are mounted (about a screenful first, when it opens).
        self._scroll = ChatScroll(id="chat-scroll")
        self._window: ChatWindow[Item] = ChatWindow(
            screenful=self._scroll.screenful, kept=self._scroll.kept_while_following)
        self._widgets: dict[str, ItemWidget] = {}
        self._dirty: dict[str, ItemWidget] = {}
        self._flush_timer: Timer | None = None
        self._with_flush: list[Callable[[], None]] = []
        self._earlier = EarlierRow(id="earlier")
        self._indicator = NewIndicator(id="new-indicator")
        self._pending = PendingRows(id="pending")
        #: The pending rows asked for last (shown with the next flush).
        self._pending_rows: tuple[tuple[str, str], ...] = ()

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
        return self._scroll.at_bottom and not self._window.hidden_below

    @property
    def mounted_items(self) -> list[Item]:
        """Items whose widgets are mounted, in display order."""
        return self._window.mounted

    def widget_for(self, item: Item) -> ItemWidget | None:
        """The mounted widget of ``item``, if any."""
        return self._widgets.get(item.key)

    def reveal(self, item: Item) -> ItemWidget | None:
        """The widget of ``item``, mounting it (and what lies between) if it was pruned."""
        self._mount_through(item)
        return self._widgets.get(item.key)

    def _mount_through(self, item: Item) -> asyncio.Event | None:
        """Mount ``item`` if it is pruned: with the items between, or in a window of its own."""
        self._scroll.mount_arriving()
        reach = self._window.reach(item)
        if reach is None:
            return None
        side, number = reach
        if side == "above":
            return self._show_earlier(number)
        if side == "below":
            return self._show_later(number)
        return self._remount(self._window.around(number))

    def prompt_near(self, direction: int) -> UserItem | None:
        """The user message above (``-1``) or below (``+1``) the top line of the view."""
        top = self._scroll.scroll_y
        shown = [item for item in self.mounted_items if self._widgets[item.key].display]

        def starts_below(item: Item) -> bool:
            y = self._widgets[item.key].virtual_region.y
            return y > top if direction > 0 else y >= top

        first = next((item for item in shown if starts_below(item)), None)
        items = self._window.items
        split = items.index(first) if first is not None else len(items)
        candidates = items[split:] if direction > 0 else reversed(items[:split])
        return next((item for item in candidates if isinstance(item, UserItem)), None)

    async def show_item(self, item: Item) -> ItemWidget | None:
        """The widget of ``item`` once it is mounted (with what lies between, if pruned)."""
        shown = self._mount_through(item)
        if shown is not None:
            await shown.wait()
        return self._widgets.get(item.key)

    async def scroll_to_item(self, item: Item) -> ItemWidget | None:
        """Bring ``item`` to the top of the view, mounting it first if it was pruned."""
        widget = await self.show_item(item)
        if widget is not None:
            self.call_after_refresh(self._scroll.show_line, widget)
        return widget

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
        if (self._dirty or self._scroll.arriving) and self._flush_timer is None:
            self._flush_timer = self.set_timer(1 / FLUSH_HZ, self.flush)
        newest = self._window.items[-1] if self._window.items else None
        if (change.added or any(item is newest for item in change.changed)) \
                and not change.prepended and not self._indicator.display and not self.following:
            self._indicator.display = True  # the end of the chat grew

    def with_next_flush(self, show: Callable[[], None]) -> None:
        """Call ``show`` with the next flush (at most ``1 / FLUSH_HZ`` s away): what it changes
        (the status bar's state) is painted with what arrives, not in a frame of its own."""
        self._with_flush.append(show)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(1 / FLUSH_HZ, self.flush)

    def flush(self) -> None:
        """Mount what arrived, sync every dirty widget (by the timer, and as a turn ends)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        shows, self._with_flush = self._with_flush, []
        for show in shows:
            show()
        self._scroll.mount_arriving(held=bool(shows))
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
        self._scroll.add_notice(text, error=error)

    def clear(self) -> None:
        """Unmount everything shown; the "earlier" row brings it back."""
        self._scroll.mount_arriving()
        self._scroll.remove_retired()
        self._scroll.remove_children([*self._widgets.values(), *self._scroll.query(".notice")])
        self._widgets.clear()
        self._dirty.clear()
        self._window.unmount_all()
        self._update_earlier_row()

    def set_pending(self, rows: Sequence[tuple[str, str]]) -> None:
        """Show messages not sent yet as ``(label, text)`` rows, e.g. ``("queued", "hi")``,
        with the next flush: a message that leaves its row for the chat shows there in the
        same frame (a row that went at once left a frame showing neither, and cost a layout
        of its own)."""
        rows = tuple(rows)
        if rows != self._pending_rows:
            self._pending_rows = rows
            self.with_next_flush(partial(self._pending.show, rows))

    # --- internals --------------------------------------------------------------------------

    def _make(self, item: Item) -> ItemWidget:
        widget = make_item_widget(item)
        if item.internal:
            widget.add_class("-internal")
        self._widgets[item.key] = widget
        return widget

    def _append(self, items: list[Item]) -> None:
        above = self._window.hidden_above
        move = self._window.append(items, following=self.following, stays=self._stays)
        if self._window.hidden_below:  # the user is reading far back: these wait below
            self._indicator.say_waiting(self._window.hidden_below)
            return
        if move.unmount:
            self._unmount(move.unmount)
        if self._window.hidden_above != above:
            self._update_earlier_row()
        widgets = [self._make(item) for item in move.mount]
        if move.opening:
            self.call_later(self._fill_view, self._mount_held(widgets))
        else:  # with the next flush, in the frame that shows their first text
            self._scroll.arriving.extend(widgets)

    async def _fill_view(self, shown: asyncio.Event) -> None:
        """Once ``shown``, mount earlier items while they do not fill the view."""
        await shown.wait()
        self.call_after_refresh(self._show_earlier_if_short)

    def _show_earlier_if_short(self) -> None:
        if self._window.can_fill_above and self._scroll.max_scroll_y <= 0:
            self.call_later(self._fill_view, self._show_earlier())

    def _prepend(self, items: list[Item]) -> None:
        """An older page: its newest items go on screen (when the top is), the rest wait."""
        if self._window.prepend(items):
            self._show_earlier()
        self._update_earlier_row()

    def _mount_above(self, widgets: list[ItemWidget]) -> asyncio.Event:
        """Mount ``widgets`` at the top without moving what the user is looking at."""
        if not self.following:
            self._scroll.hold_first_item()
        return self._mount_held(widgets, after=0)

    def _mount_held(self, widgets: list[ItemWidget], *,
                    after: Widget | int | None = None) -> asyncio.Event:
        """Mount ``widgets`` (after what arrived) and remove the retired ones in one step."""
        self._scroll.mount_arriving()
        return self._scroll.mount_held(widgets, after=after,
                                       remove=self._scroll.take_retired())

    def _remove(self, item: Item) -> None:
        self._window.remove(item)
        widget = self._widgets.pop(item.key, None)
        self._dirty.pop(item.key, None)
        if widget is not None:
            self._scroll.discard(widget)

    def _unmount(self, items: Sequence[Item]) -> None:
        """Take the widgets of ``items`` off screen now; remove them once the view is idle."""
        self._scroll.mount_arriving()
        widgets = []
        for item in items:
            widgets.append(self._widgets.pop(item.key))
            self._dirty.pop(item.key, None)
        self._scroll.retire(widgets)

    def _stays(self, item: Item) -> bool:
        """Whether the widget of ``item`` must stay: it is in view, or an approval prompt is
        open in it."""
        widget = self._widgets.get(item.key)
        return widget is not None and (widget.busy or self._scroll.shows(widget))

    def _show_earlier(self, count: int | None = None) -> asyncio.Event:
        """Mount a batch above, unmounting the newest once too many are mounted."""
        move = self._window.show_above(count, stays=self._stays)
        widgets = [self._make(item) for item in move.mount]
        self._update_earlier_row()
        if move.unmount:
            self._unmount(move.unmount)
            self._scroll.anchor(False)  # the bottom is no longer the end of the chat
            self._indicator.say_waiting(self._window.hidden_below)
        return self._mount_above(widgets)

    def _show_later(self, count: int | None = None) -> asyncio.Event:
        """Mount the next ``count`` items below, unmounting the oldest once too many are."""
        last = self._window.last_mounted
        after = self._widgets.get(last.key) if last is not None else None
        move = self._window.show_below(count, stays=self._stays)
        widgets = [self._make(item) for item in move.mount]
        self._indicator.say_waiting(self._window.hidden_below)
        if move.unmount:
            first = self._window.first_mounted
            if first is not None:  # keep the view where it is
                self._scroll.hold_in_place(self._widgets[first.key])
            self._unmount(move.unmount)
            self._update_earlier_row()
        return self._mount_held(widgets, after=after or self._earlier)

    def _remount(self, move: Move[Item]) -> asyncio.Event:
        """Unmount every item and mount a new window (``move`` from ``ChatWindow.remount``)."""
        self._scroll.reporting = False  # until the new window is laid out
        self._unmount(move.unmount)
        self._scroll.release_hold()  # whatever it held is gone
        self._scroll.anchor(not self._window.hidden_below)
        self._update_earlier_row()
        self._indicator.say_waiting(self._window.hidden_below)
        widgets = [self._make(item) for item in move.mount]
        shown = self._mount_held(widgets, after=self._earlier)
        self.call_later(self._end_remount, shown)
        return shown

    async def _end_remount(self, shown: asyncio.Event) -> None:
        await shown.wait()
        self.call_after_refresh(self._scroll.resume_reports)

    def _update_earlier_row(self) -> None:
        self._earlier.say(*self._window.earlier_label(more_on_server=self.more_on_server),
                          shown=bool(self._window.hidden_above)
                          or self.more_on_server is not None)

    def earlier_failed(self) -> None:
        """The older page asked for did not come: the row offers to ask again."""
        self._window.older_page_failed()
        self._update_earlier_row()

    def watch_more_on_server(self) -> None:
        self._window.loading_earlier = False
        if self.is_mounted:
            self._update_earlier_row()

    def watch_show_internal(self, show: bool) -> None:
        """(The rule for the class shows the internal items: they are restyled alone, not
        every widget of the chat.)"""
        self.set_class(show, "-show-internal", update=False)
        restyle_alone(self, *self._scroll.query_children(".-internal"))

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
        if self._window.hidden_above:
            self._show_earlier()
        elif self._window.ask_older_page(more_on_server=self.more_on_server):
            self._update_earlier_row()
            self.post_message(self.EarlierRequested())

    def on_chat_scroll_moved(self, event: ChatScroll.Moved) -> None:
        if event.at_bottom:
            if self._window.hidden_below:
                self._show_later()
            else:
                self._indicator.display = False
                if not self._scroll.is_anchored:
                    self._scroll.anchor()
        if event.at_top:
            self.show_earlier()

    def on_new_indicator_pressed(self) -> None:
        self.action_jump_to_bottom()

    def action_jump_to_bottom(self) -> None:
        """Scroll to the newest item and follow new content again."""
        if self._window.hidden_below:  # a screenful is enough; more follow if it is short
            shown = self._remount(self._window.bottom())
            self.call_later(self._fill_view, shown)
        self._scroll.anchor()
        self._indicator.display = False

