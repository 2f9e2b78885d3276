"""ToolCallCard: one tool call, its status and elapsed time, and a body from its renderer."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import events
from textual.app import ComposeResult
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

from openletta.display import DisplayText, literal_text
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.transcript.approval_notes import approval_note, denial_reason
from openletta.transcript.items import NOT_RUN_NOTE
from openletta.ui.formatting import format_elapsed
from openletta.ui.renderers import ToolRenderer, renderer_for
from openletta.ui.renderers.base import (
    BAD,
    MUTED,
    WARN,
    finished_output,
    has_hidden_characters_in_call,
    lines_left_out,
    output_block,
    uncounted,
)
from openletta.ui.steady import same_content
from openletta.ui.widgets.base import ItemWidget
from openletta.ui.widgets.card_header import CardHeader, card_title

#: Lines of body shown while a long card is folded.
FOLD_LINES = 8
HIDDEN_CHARACTERS_WARNING = (
    "⚠ This call holds control or invisible characters, shown as ␍ ␛ ⟨U+…⟩. "
    "It is exactly what is shown: read it closely.")
#: Seconds for the elapsed-time display; tests replace it with a frozen clock.
clock: Callable[[], float] = time.monotonic


def card_blocks(item: ToolCallItem, renderer: ToolRenderer, width: int) -> list[Content]:
    """The blocks of a card's body, ``width`` cells wide: what ``renderer`` shows of the call
    (of its arguments as far as they arrived, while they stream: nothing before a key of them
    is whole; their raw text when they are not a JSON object), then any denial; a warning,
    or why it did not run, first (a folded body keeps it in view). While the arguments
    stream, notes of lines left out do not count them (the fold's hint does)."""
    item = item.so_far()
    if item.arguments is not None:
        blocks = renderer.body(item, width)
        if item.status is ToolStatus.STREAMING:
            blocks = uncounted(blocks)
    elif item.status is ToolStatus.STREAMING and item.arguments_text.lstrip().startswith("{"):
        blocks = []
    else:
        raw = literal_text(item.arguments_text)
        blocks = [Content.styled(raw, MUTED)] if raw else []
        if (output := finished_output(item)) is not None:
            blocks.extend(output_block(output))
    if item.status is ToolStatus.NOT_RUN:
        blocks.insert(0, Content.styled(NOT_RUN_NOTE, MUTED))
    if has_hidden_characters_in_call(item):
        blocks.insert(0, Content.styled(HIDDEN_CHARACTERS_WARNING, f"bold {WARN}"))
    if item.status is ToolStatus.DENIED:
        reason = denial_reason(item)
        blocks.append(Content.assemble(("⊘ Denied", f"bold {BAD}"),
                                       (f": {DisplayText(reason)}" if reason else "", BAD)))
    return blocks


class ToolCallCard(ItemWidget, can_focus=True):
    """A :class:`ToolCallItem`: title line with status badge, body, and an approval prompt.

    An approval prompt mounts at the bottom of the card (:meth:`open_prompt`). Bodies longer
    than :data:`FOLD_LINES` lines fold; Enter or a click on the title or hint unfolds them.
    """

    item: ToolCallItem
    expanded = reactive(False, toggle_class="-expanded")
    """Whether a long body is shown in full."""

    def __init__(self, item: ToolCallItem) -> None:
        # Made with its status class: one added later restyles the card and all inside it.
        super().__init__(classes=_status_class(item.status))
        self.item = item
        self._renderer = renderer_for(item.name)
        self._renderer_name = item.name
        self._status: ToolStatus | None = None
        self._title_key: tuple[object, ...] | None = None
        self._body_key: tuple[object, ...] | None = None
        self._body_content = Content()
        self._body_lines = 0
        #: Lines of the call's output the body itself leaves out (its notes say how many).
        self._left_out = 0
        self._started: float | None = None
        self._took: float | None = None
        self._ticker: Timer | None = None
        self._header = CardHeader()
        self._body = Static(classes="card-body")
        self._fold = Static(classes="card-fold")
        self._prompt: Widget | None = None

    def compose(self) -> ComposeResult:
        yield from (self._header, self._body, self._fold)

    def open_prompt(self, prompt: Widget) -> AwaitMount:
        """Show an approval prompt at the bottom of the card (it removes itself when done)."""
        self._prompt = prompt
        return self.mount(prompt)

    @property
    def busy(self) -> bool:
        """True while an approval prompt is open in the card."""
        return self._prompt is not None and self._prompt.parent is self

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
        self._header.note = approval_note(self.item)
        self._header.place = _place(self.item)
        self._header.asking = status is ToolStatus.AWAITING_APPROVAL
        self.set_class(self.item.runs_here or self.item.ran_here, "-runs-here")
        if status is self._status:
            return
        if self._status is not None:
            self.remove_class(_status_class(self._status))
        self._status = status
        self.add_class(_status_class(status))
        self._header.badge = status.label
        if status is ToolStatus.RUNNING and self._started is None:
            self._started = clock()
            self._ticker = self.set_interval(1.0, self._show_elapsed)
        elif status.is_final and self._started is not None and self._took is None:
            self._took = clock() - self._started
            self._stop_ticker()
        elif status is ToolStatus.WAITING:  # it was not running after all
            self._started = None
            self._stop_ticker()
        self._show_elapsed()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _show_elapsed(self) -> None:
        if self._started is None or self._status is ToolStatus.NOT_RUN:
            seconds = None
        else:
            seconds = self._took if self._took is not None else clock() - self._started
        self._header.elapsed = "" if seconds is None else format_elapsed(seconds)

    def _sync_title(self) -> None:
        item = self.item
        # (a summary may tell what the call does on disk: from its preview, then its status)
        key = (item.name, item.arguments_text, item.preview, item.status)
        if key == self._title_key:
            return
        self._title_key = key
        self._header.title = card_title(item, self._renderer)

    def _sync_body(self) -> None:
        item = self.item
        key = (item.status, item.arguments_text, item.result, len(item.stdout),
               len(item.stderr), item.reason, item.preview, self.wide)
        if key == self._body_key:
            return
        self._body_key = key
        blocks = card_blocks(item, self._renderer, self._width())
        self._left_out = lines_left_out(blocks)
        content = Content("\n").join(blocks)
        self._body.display = bool(blocks)
        if not same_content(content, self._body_content):  # (a streaming file's first lines)
            self._body_content = content
            self._body.update(content)
            self._measure_body()
        self._update_fold()  # (the lines left out may have changed, if not the body's height)

    def _width(self) -> int:
        return self.content_region.width or self.app.size.width

    def _measure_body(self) -> None:
        """Count the lines of the whole body at its width, and fold it when it is long."""
        width = self._body.content_region.width
        # Textual types ``rules`` as its ``RulesMap`` TypedDict, yet passes a widget's
        # ``styles`` (a mapping of the same rules) there itself, as here.
        rules = self._body.styles
        lines = self._body_content.get_height(rules, width) if width else 0  # type: ignore[arg-type]
        if lines != self._body_lines:
            self._body_lines = lines
            self._update_fold()

    def _update_fold(self) -> None:
        foldable = self._body_lines > FOLD_LINES + 1
        self.set_class(foldable, "-foldable")
        if not foldable:
            hint = ""
        elif self.expanded:
            hint = "▴ Enter to collapse"
        else:
            hidden = self._body_lines - FOLD_LINES + self._left_out
            hint = f"… {hidden:,} more lines — Enter to expand"
        shown = str(self._fold.content)
        if hint != shown:  # laid out again only when it may take other lines
            self._fold.update(hint, layout=len(hint) != len(shown))

    # --- events and actions ---------------------------------------------------------------

    def on_resize(self) -> None:
        if self._body_key is not None and self._body_key[-1] != self.wide:
            self._sync_body()
        self._measure_body()  # (the same body may take other lines at another width)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self._header or event.widget is self._fold:
            self.toggle_fold()

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._update_fold()

    def can_fold(self) -> bool:
        return self.has_class("-foldable")


def _place(item: ToolCallItem) -> str:
    """Where the call runs, on every card that ran or will run: here, on a client (read
    from history: this machine, or another), else on the server. A call denied or never
    run ran nowhere (and history cannot tell which side a denied call was for); an approval
    request still streaming may turn out to be for this machine, so it waits to say."""
    if item.status in (ToolStatus.DENIED, ToolStatus.NOT_RUN):
        return ""
    if item.runs_here:
        return "⌂ runs here"
    if item.client_result:
        return "⌂ ran here" if item.ran_here else "ran on a client"
    if item.needs_approval and item.status is ToolStatus.STREAMING:
        return ""
    return "runs on server"


def _status_class(status: ToolStatus) -> str:
    return f"-{status.value.replace('_', '-')}"
