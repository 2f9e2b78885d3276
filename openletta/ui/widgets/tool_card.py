"""ToolCallCard: one tool call, its status and elapsed time, and a body from its renderer."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.formatting import format_elapsed
from openletta.ui.renderers import renderer_for
from openletta.ui.renderers.base import BAD, MUTED, finished_output, output_block
from openletta.ui.sanitize import clean_text
from openletta.ui.widgets.base import ItemWidget

#: Lines of body shown while a long card is folded.
FOLD_LINES = 8
STATUS_LABELS = {
    ToolStatus.STREAMING: "streaming…",
    ToolStatus.AWAITING_APPROVAL: "awaiting approval",
    ToolStatus.RUNNING: "running",
    ToolStatus.SUCCESS: "✓ success",
    ToolStatus.ERROR: "✗ error",
    ToolStatus.DENIED: "⊘ denied",
    ToolStatus.CANCELLED: "cancelled",
}
#: Seconds for the elapsed-time display; tests replace it with a frozen clock.
clock: Callable[[], float] = time.monotonic
_DENIAL_REASON = re.compile(r"User reason: (.*)", re.DOTALL)


def denial_reason(item: ToolCallItem) -> str | None:
    """Why the call was denied: the user's reason, or the one quoted in the result."""
    if item.reason:
        return item.reason
    match = _DENIAL_REASON.search(item.result or "")
    return match[1].strip() if match else None


class CardBody(Vertical):
    """The card's body; reports its full height so the card can fold it."""

    class Measured(Message):
        """The body's content is ``lines`` tall."""

        def __init__(self, lines: int) -> None:
            super().__init__()
            self.lines = lines

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Measured(event.virtual_size.height))


class ToolCallCard(ItemWidget, can_focus=True):
    """A :class:`ToolCallItem`: title line with status badge, body, and an approval slot.

    A later approval prompt mounts into :attr:`approval_slot`. Bodies longer than
    :data:`FOLD_LINES` lines fold; Enter or a click on the hint unfolds them.
    """

    item: ToolCallItem
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Expand", show=False, id="tool_card.toggle"),
    ]

    expanded = reactive(False, toggle_class="-expanded")
    """Whether a long body is shown in full."""

    def __init__(self, item: ToolCallItem) -> None:
        super().__init__(item)
        self._renderer = renderer_for(item.name)
        self._renderer_name = item.name
        self._status: ToolStatus | None = None
        self._title_key: tuple[object, ...] | None = None
        self._body_key: tuple[object, ...] | None = None
        self._body_lines = 0
        self._started: float | None = None
        self._took: float | None = None
        self._ticker: Timer | None = None
        self._title = Static(classes="card-title")
        self._auto = Static("auto-approved", classes="card-auto")
        self._badge = Static(classes="card-badge")
        self._elapsed = Static(classes="card-elapsed")
        self._content = Static(classes="card-content")
        self._body = CardBody(self._content, classes="card-body")
        self._fold = Static(classes="card-fold")
        self._approval_slot = Vertical(id="approval-slot")

    def compose(self) -> ComposeResult:
        with Horizontal(classes="card-header"):
            yield from (self._title, self._auto, self._badge, self._elapsed)
        yield from (self._body, self._fold, self._approval_slot)

    @property
    def approval_slot(self) -> Vertical:
        """The (empty) container where an approval prompt goes."""
        return self._approval_slot

    @property
    def busy(self) -> bool:
        """True while an approval prompt is open in the card."""
        return bool(self._approval_slot.children)

    @property
    def wide(self) -> bool:
        """Whether the card is wide enough for side-by-side views."""
        return self._width() >= 110

    def sync(self) -> None:
        item = self.item
        if item.name != self._renderer_name:
            self._renderer, self._renderer_name = renderer_for(item.name), item.name
            self._title_key = self._body_key = None
        self._sync_status()
        self._sync_title()
        self._sync_body()

    # --- parts ----------------------------------------------------------------------------

    def _sync_status(self) -> None:
        status = self.item.status
        self._auto.display = self.item.auto_approved
        if status is self._status:
            return
        if self._status is not None:
            self.remove_class(_status_class(self._status))
        self._status = status
        self.add_class(_status_class(status))
        self._badge.update(STATUS_LABELS[status])
        if status is ToolStatus.RUNNING and self._started is None:
            self._started = clock()
            self._ticker = self.set_interval(1.0, self._show_elapsed)
        elif status.is_final and self._started is not None and self._took is None:
            self._took = clock() - self._started
            if self._ticker is not None:
                self._ticker.stop()
                self._ticker = None
        self._show_elapsed()

    def _show_elapsed(self) -> None:
        if self._started is None:
            seconds = None
        else:
            seconds = self._took if self._took is not None else clock() - self._started
        text = "" if seconds is None else format_elapsed(seconds)
        self._elapsed.update(text)

    def _sync_title(self) -> None:
        item = self.item
        key = (item.name, item.arguments_text)
        if key == self._title_key:
            return
        self._title_key = key
        summary = self._renderer.summary(item) if item.arguments is not None else ""
        title = Content.assemble((clean_text(item.name) or "tool", "bold"), "  ",
                                 (summary, MUTED))
        self._title.update(title)

    def _sync_body(self) -> None:
        item = self.item
        key = (item.status, item.arguments_text, item.result, len(item.stdout),
               len(item.stderr), item.reason, self.wide)
        if key == self._body_key:
            return
        self._body_key = key
        blocks = self._blocks()
        self._content.update(Content("\n").join(blocks))
        self._body.display = bool(blocks)

    def _blocks(self) -> list[Content]:
        item = self.item
        if item.arguments is not None:
            blocks = self._renderer.body(item, self._width())
        else:  # still streaming (or never valid JSON): show the raw text
            raw = clean_text(item.arguments_text)
            blocks = [Content.styled(raw, MUTED)] if raw else []
            if (output := finished_output(item)) is not None:
                blocks.extend(output_block(output))
        if item.status is ToolStatus.DENIED:
            reason = denial_reason(item)
            blocks.append(Content.assemble(("⊘ Denied", f"bold {BAD}"),
                                           (f": {clean_text(reason)}" if reason else "", BAD)))
        return blocks

    def _width(self) -> int:
        return self.content_region.width or self.app.size.width

    def _update_fold(self) -> None:
        foldable = self._body_lines > FOLD_LINES + 1
        self.set_class(foldable, "-foldable")
        hint = self._fold
        if not foldable:
            hint.update("")
        elif self.expanded:
            hint.update("▴ Enter to collapse")
        else:
            hint.update(f"… {self._body_lines - FOLD_LINES} more lines — Enter to expand")

    # --- events and actions ---------------------------------------------------------------

    def on_card_body_measured(self, event: CardBody.Measured) -> None:
        event.stop()
        if event.lines != self._body_lines:
            self._body_lines = event.lines
            self._update_fold()

    def on_resize(self) -> None:
        if self._body_key is not None and self._body_key[-1] != self.wide:
            self._sync_body()

    def on_click(self, event: events.Click) -> None:
        widget = event.widget
        if widget is not None and (widget.has_class("card-fold") or widget.has_class("card-title")):
            self.action_toggle()

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._update_fold()

    def action_toggle(self) -> None:
        """Show a folded body in full, or fold it again."""
        if self.has_class("-foldable"):
            self.expanded = not self.expanded


def _status_class(status: ToolStatus) -> str:
    return f"-{status.value.replace('_', '-')}"
