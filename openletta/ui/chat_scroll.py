"""The scrolling part of the chat and the rows at its edges.

:class:`ChatScroll` reports where the user scrolled to, can hold a widget still on screen
while content above it grows, mounts a batch of widgets in one layout and removes retired ones
at a quiet moment; :class:`EarlierRow` and :class:`NewIndicator` are the clickable rows above
and below the items, :class:`PendingRows` the messages waiting to be sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from contextlib import ExitStack

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from openletta.display import counted, plain_text
from openletta.transcript import Item
from openletta.ui.collector import collect_if_due
from openletta.ui.kept_at_bottom import KeptAtBottom
from openletta.ui.screenful import kept_while_following, screenful
from openletta.ui.sending_title import pending_line
from openletta.ui.stray_keys import StrayKeys
from openletta.ui.textual_internals import FrugalScroll, anchor_holds, remove_hidden
from openletta.ui.widgets.base import ItemWidget

#: How long the view holds still while items mounted above it take their size.
SETTLE_SECONDS = 1.0
#: The longest the screen's updates are held for widgets to mount.
MOUNT_HOLD_SECONDS = 1.0
#: Retired widgets are removed with the next held mount, after this many seconds without one,
#: or at once when more than ``RETIRED_LIMIT`` wait (removal alone costs a layout); a due full
#: garbage collection waits for the same quiet moment.
QUIET_SECONDS = 0.5
RETIRED_LIMIT = 40
#: A line brought into view goes a page divided by this below the top of the view.
LINES_ABOVE_PER_PAGE = 4
#: What the row below the chat says when content arrived out of view.
NEW = "↓ new messages (Ctrl+End)"


class EarlierRow(Static):
    """The top row: shows unmounted earlier items, or asks the server for an older page."""

    class Pressed(Message):
        """The user asked for earlier items."""

    def on_click(self) -> None:
        self.post_message(self.Pressed())

    def say(self, text: str, state: str, *, shown: bool) -> None:
        """Say what is above, in the look of ``state`` (``-beginning``, ``-failed`` or ``""``);
        the row is one line whatever it says, so no layout is needed."""
        self.update(text, layout=False)
        self.set_class(state == "-beginning", "-beginning")
        self.set_class(state == "-failed", "-failed")
        self.display = shown


class NewIndicator(Static):
    """``↓ new``: shown when content arrives while the user is scrolled up."""

    class Pressed(Message):
        """The user wants to jump to the bottom."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(NEW, id=id)

    def on_click(self) -> None:
        self.post_message(self.Pressed())

    def say_waiting(self, hidden: int) -> None:
        """Say how many items wait below (shown), or that new ones came once none does."""
        waiting = f"↓ {counted(hidden, 'later item')} (Ctrl+End)"
        self.update(waiting if hidden else NEW, layout=False)
        if hidden:
            self.display = True


class PendingRows(Static):
    """Below the chat: messages queued to be sent after the turn, one row each (the one on
    its way is named above the prompt: :class:`~openletta.ui.sending_title.SendingTitle`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The rows on screen.
        self._rows: tuple[tuple[str, str], ...] = ()

    def show(self, rows: Sequence[tuple[str, str]]) -> None:
        """Show ``(label, text)`` rows, e.g. ``("queued", "hi")``; hidden when there are none.
        The same rows again change nothing."""
        if tuple(rows) == self._rows:
            return
        self._rows = tuple(rows)
        self.update(Text("\n").join(pending_line(label, message) for label, message in rows))
        self.display = bool(rows)


class ChatScroll(FrugalScroll, KeptAtBottom, can_focus=False):
    """The scrolling part of the chat view; reports where the user scrolled to (it lays out
    and paints as :class:`FrugalScroll` says)."""

    class Moved(Message):
        """The scroll position changed; where it was when it moved."""

        def __init__(self, at_bottom: bool, at_top: bool) -> None:
            super().__init__()
            self.at_bottom = at_bottom
            self.at_top = at_top

    def on_key(self, event: events.Key) -> None:
        """Keys typed on a message or card are the message's (:class:`StrayKeys`)."""
        self._stray_keys.on_key(event)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._stray_keys = StrayKeys(self)
        #: The widget held in place, and where it was last arranged (in the scrolled content).
        self._held: tuple[Widget, int] | None = None
        self._hold_timer: Timer | None = None
        #: Waits for held mounts to finish (kept here so they are not garbage collected).
        self._waiting: set[asyncio.Task[None]] = set()
        #: Whether moves are reported (not while a new window of items is being laid out:
        #: positions mean nothing then, and a report could be handled after it is done).
        self.reporting = True
        #: Widgets taken off screen and not removed yet (removing them costs a layout).
        self._retired: list[Widget] = []
        #: Widgets to mount at the end with the next flush of the view (:meth:`mount_arriving`).
        self.arriving: list[Widget] = []
        self._quiet_timer: Timer | None = None

    @property
    def at_bottom(self) -> bool:
        """True when the newest line is in view (short content counts as at the bottom), or
        will be at the next layout: content that grew since the last one does not count as
        scrolled away while the anchor holds."""
        return (self.max_scroll_y <= 0 or self.scroll_y >= self.max_scroll_y - 1
                or anchor_holds(self))

    @property
    def page_height(self) -> int:
        """The rows a page key scrolls by."""
        return self.scrollable_content_region.height

    @property
    def rows_below(self) -> int:
        """The rows of content below the view (as last laid out)."""
        return max(0, round(self.max_scroll_y - self.scroll_y))

    def shows(self, widget: Widget) -> bool:
        """Whether ``widget`` is in view (as last laid out)."""
        region, top = widget.virtual_region, self.scroll_y
        return widget.display and region.bottom > top and region.y < top + self.page_height

    def show_line(self, widget: Widget, row: int = 0, *, above: int = 0) -> None:
        """Scroll ``row`` of ``widget`` (an item) a quarter of a page below the top of the view,
        or less: from the item's top, or ``above`` rows above the line; held there while the
        content above grows (Markdown mounted above may still take its height)."""
        rows_above = min(max(row, above), self.page_height // LINES_ABOVE_PER_PAGE)
        self.scroll_to(y=widget.virtual_region.y + row - rows_above, animate=False,
                       immediate=True)
        self.hold_in_place(widget)

    def page_down(self) -> None:
        """Scroll a page down, from where the view is held (if it is)."""
        self.release_hold()
        self.scroll_page_down(animate=False)

    def newest_in_view(self) -> Widget | None:
        """The last item that ends in the view (else the one on its bottom line)."""
        top, bottom = self.scroll_y, self.scroll_y + self.page_height
        items = [child for child in reversed(self.children)
                 if isinstance(child, ItemWidget) and child.display and child.can_focus]
        ends = (item for item in items if top < item.virtual_region.bottom <= bottom)
        return next(ends, None) or next(
            (item for item in items if item.virtual_region.y < bottom), None)

    def top_line(self) -> tuple[Widget, int] | None:
        """The item on the top line of the view, and how far into it the view starts."""
        top = next((child for child in self.children if isinstance(child, ItemWidget)
                    and child.display and child.virtual_region.bottom > self.scroll_y), None)
        return None if top is None else (top, max(0, round(self.scroll_y) - top.virtual_region.y))

    def page_up(self, top_line: tuple[Widget, int] | None = None) -> None:
        """Scroll a page up: from ``top_line`` (:meth:`top_line` before items were mounted
        above) or from where the view is; the item then on the top line keeps its place
        while the items just mounted above it take their height."""
        self.release_hold()
        start = self.scroll_y
        if top_line is not None and top_line[0].is_mounted:
            start = top_line[0].virtual_region.y + top_line[1]
        self.scroll_to(y=start - self.page_height, animate=False, immediate=True)
        if (now := self.top_line()) is not None:
            self.hold_in_place(now[0])

    def resume_reports(self) -> None:
        """Report moves again (the new window of items is laid out)."""
        self.reporting = True

    def screenful(self, items: Sequence[Item]) -> int:
        """How many of the newest ``items`` fill this view (:func:`screenful`; the terminal's
        size before the view has one)."""
        size = self._view_size
        return screenful(items, size.width, size.height)

    def kept_while_following(self, items: Sequence[Item]) -> int:
        """How many of the newest ``items`` stay mounted while the view follows the bottom
        (:func:`~openletta.ui.screenful.kept_while_following`)."""
        size = self._view_size
        return kept_while_following(items, size.width, size.height)

    @property
    def _view_size(self) -> Size:
        """The view's size, or the terminal's before the view has one."""
        return self.size if self.size.area else self.app.size

    def hold_in_place(self, widget: Widget) -> None:
        """Keep ``widget`` where it is on screen while the content above it grows: items
        mounted above take their height over several refreshes (Markdown renders late), so
        the hold lasts :data:`SETTLE_SECONDS` or until the user scrolls."""
        self._held = (widget, widget.virtual_region.y)
        if self._hold_timer is not None:
            self._hold_timer.stop()
        self._hold_timer = self.set_timer(SETTLE_SECONDS, self.release_hold)

    def hold_first_item(self) -> None:
        """:meth:`hold_in_place` the first item widget shown, if there is one."""
        first = next((child for child in self.children
                      if isinstance(child, ItemWidget) and child.display), None)
        if first is not None:
            self.hold_in_place(first)

    def release_hold(self) -> None:
        """Let the view move with its content again."""
        self._held = None

    def mount_held(self, widgets: Sequence[Widget], *, after: Widget | int | None = None,
                   remove: Sequence[Widget] = ()) -> asyncio.Event:
        """Mount ``widgets`` and remove ``remove``, the screen's updates held till both are done.

        Each level of nesting (a reply's Markdown blocks, a list's items) mounts a step later
        than its parent, and a removal lays out once more; without the hold the screen lays
        out and paints after each step. With it, the change costs one layout and one paint.
        The event returned is set when the hold ends: the screen lays out next."""
        work: list[Awaitable[None]] = [self.mount_all(widgets, after=after)]
        if remove:
            work.append(self.remove_children(remove))
        hold = ExitStack()
        hold.enter_context(self.app.batch_update())
        released = asyncio.Event()
        screen = self.screen
        waiting = asyncio.create_task(self._wait_for(work))
        self._waiting.add(waiting)

        def release(task: asyncio.Task[None]) -> None:
            """Runs however the wait ends, even cancelled before it began: never left held."""
            self._waiting.discard(task)
            hold.close()
            released.set()
            screen.check_idle()  # it lays out when idle, and was idle all along

        waiting.add_done_callback(release)
        return released

    def mount_arriving(self, *, held: bool = False) -> None:
        """Mount the widgets that arrived since the last flush, at the end, together: the
        items of a reply that come within one flush (its thought, its text) cost one layout;
        ``held`` (:meth:`mount_held`), it also paints what changed with them (the status)."""
        if self.arriving:
            widgets, self.arriving = self.arriving, []
            self.mount_held(widgets) if held else self.mount_all(widgets)

    def discard(self, widget: Widget) -> None:
        """Remove ``widget``, mounted or still arriving."""
        if widget in self.arriving:
            self.arriving.remove(widget)
        else:
            widget.remove()

    def add_notice(self, text: str, *, error: bool = False) -> None:
        """Add a line at the end that is not part of the transcript (after what arrived)."""
        self.mount_arriving()
        self.mount(Static(plain_text(text), classes="notice -error" if error else "notice"))

    def retire(self, widgets: Sequence[Widget]) -> None:
        """Hide ``widgets`` now (the focus leaves them: the screen gives it to the prompt) and
        remove them at a quiet moment (or with the next held mount, :meth:`take_retired`)."""
        focused = self.screen.focused
        for widget in widgets:
            widget.display = False  # an inline style: no CSS to apply again to its subtree
            if focused is not None and widget in focused.ancestors_with_self:
                self.screen.set_focus(None)
        self._retired.extend(widgets)
        if len(self._retired) > RETIRED_LIMIT:
            self.remove_retired()
        self._await_quiet()

    def take_retired(self) -> list[Widget]:
        """The retired widgets, for a held mount to remove (the quiet moment counts from it)."""
        retired, self._retired = self._retired, []
        self._await_quiet()
        return retired

    def remove_retired(self) -> None:
        """Remove the retired widgets now (hidden, they change nothing on screen)."""
        retired, self._retired = self._retired, []
        remove_hidden(retired)

    def _await_quiet(self) -> None:
        """Count ``QUIET_SECONDS`` from now until :meth:`_on_quiet`."""
        if self._quiet_timer is None:
            self._quiet_timer = self.set_timer(QUIET_SECONDS, self._on_quiet)
        else:
            self._quiet_timer.reset()

    def _on_quiet(self) -> None:
        """Nothing was mounted or retired for a while: do the work that would stutter."""
        self._quiet_timer = None
        self.remove_retired()
        collect_if_due()

    async def wait_for_mounts(self) -> None:
        """Wait until every held mount has ended (its hold released)."""
        await asyncio.gather(*self._waiting, return_exceptions=True)

    @staticmethod
    async def _wait_for(work: list[Awaitable[None]]) -> None:
        """Wait until ``work`` is done, or has taken too long; the work itself goes on.

        (Cutting it short would cancel a removal, and with it the tasks of the widgets
        removed: left half gone, they took no more messages, and the app hung at exit.)"""
        steps = [asyncio.ensure_future(step) for step in work]
        for step in steps:
            step.add_done_callback(_outcome_seen)
        await asyncio.wait(steps, timeout=MOUNT_HOLD_SECONDS)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Arrange the items, scrolled so that a held widget keeps its place on screen.

        The scroll moves here, as Textual's own bottom anchor does, so the first frame that
        shows content added above the held widget is already scrolled right.
        """
        arrangement = super().arrange(size, optimal)
        if self._held is not None and not optimal:
            self._keep_held(arrangement, size.height)
        return arrangement

    def _keep_held(self, arrangement: DockArrangeResult, viewport: int) -> None:
        """Scroll by as much as the held widget moved in ``arrangement`` (content above it
        came or went); the user's own scrolling moves nothing and is left alone."""
        assert self._held is not None
        widget, y = self._held
        moved_to = next((placement.region.y for placement in arrangement.placements
                         if placement.widget is widget), y)
        if moved_to == y:
            return
        self._held = (widget, moved_to)
        bottom = max(0, arrangement.total_region.bottom - viewport)
        scroll_y = min(max(0, self.scroll_y + moved_to - y), bottom)
        self.set_reactive(ChatScroll.scroll_y, scroll_y)
        self.set_reactive(ChatScroll.scroll_target_y, scroll_y)
        self.vertical_scrollbar.position = scroll_y

    def on_mouse_scroll_up(self) -> None:
        self.release_hold()
        if self.scroll_y < 1:  # the wheel cannot move the view: it asks for what is above
            self.post_message(self.Moved(at_bottom=self.at_bottom, at_top=True))

    def on_mouse_scroll_down(self) -> None:
        self.release_hold()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.reporting and round(old_value) != round(new_value):
            self.post_message(self.Moved(at_bottom=self.at_bottom,
                                         at_top=self.max_scroll_y > 0 and new_value < 1))


def _outcome_seen(step: asyncio.Future[None]) -> None:
    """Take the outcome of a held mount's step: a mount into a scroller that went away
    meanwhile fails, with nothing left to do about it."""
    if not step.cancelled():
        step.exception()
