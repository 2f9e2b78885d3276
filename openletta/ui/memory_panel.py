"""The memory panel: the agent's core memory blocks beside the chat, refreshed after turns.

A block that changed since the panel last read it is marked; Enter on it shows the change as
a word diff; ↑↓ go from block to block. Editing is deliberate: ``e`` opens the value (the
cursor at its end, its size counted as it is typed), Ctrl+S saves only that block, Esc
cancels (a second Esc when something was typed); a block changed on the server meanwhile is
not overwritten (the newer value is shown instead). The panel never writes anything unasked.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static, TextArea

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Block
from openletta.display import DisplayText, plain_text
from openletta.ui.prompt import NEWLINE_KEYS
from openletta.ui.renderers.base import ADDED, MUTED, REMOVED
from openletta.ui.steady import SteadyTextArea
from openletta.ui.stray_keys import StrayKeys

GAUGE_CELLS = 8
#: Below this width the panel takes the whole screen.
NARROW_WIDTH = 100
_WORDS = re.compile(r"\s+|\S+")


def word_diff(old: str, new: str) -> Content:
    """``old`` → ``new`` word by word: removed words struck in red, added ones in green."""
    before, after = _WORDS.findall(old), _WORDS.findall(new)
    parts: list[tuple[str, str] | str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(DisplayText("".join(before[i1:i2])))
            continue
        if i2 > i1:
            parts.append((DisplayText("".join(before[i1:i2])), f"{REMOVED} strike"))
        if j2 > j1:
            parts.append((DisplayText("".join(after[j1:j2])), ADDED))
    return Content.assemble(*parts)


def usage_gauge(used: int, limit: int | None) -> str:
    """``▰▰▱▱▱▱▱▱ 1,234/5,000 chars`` (no bar when the block has no limit)."""
    if not limit:
        return f"{used:,} chars"
    filled = min(GAUGE_CELLS, round(GAUGE_CELLS * used / limit))
    return f"{'▰' * filled}{'▱' * (GAUGE_CELLS - filled)} {used:,}/{limit:,} chars"


class BlockView(Vertical, can_focus=True):
    """One memory block: label and gauge, description, value (or its editor)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_diff", "Show change", id="memory.diff"),
        Binding("e", "edit", "Edit block", id="memory.edit"),
        Binding("escape", "leave", "Back to the prompt", id="memory.leave"),
        Binding("down", "step(1)", "Next block", show=False),
        Binding("up", "step(-1)", "Previous block", show=False),
    ]

    class Left(Message):
        """The user leaves the panel for the prompt (it stays open)."""

    class EditClosed(Message):
        """The block's editor closed (saved or cancelled)."""

    class SaveRequested(Message):
        """The user saves ``value`` over the block that read ``original`` when opened."""

        def __init__(self, view: BlockView, value: str) -> None:
            super().__init__()
            self.view, self.value = view, value

    def __init__(self, block: Block, previous: str | None) -> None:
        changed = previous is not None and previous != block.value
        super().__init__(classes="memory-block -changed" if changed else "memory-block")
        self.block = block
        self.previous = previous if changed else None
        self._diff_shown = False
        self._value = Static(plain_text(block.value), classes="memory-value")
        self._title = Static(self._title_of(len(block.value)), classes="memory-title")
        self._editor: BlockEditor | None = None

    def _title_of(self, used: int) -> Content:
        block = self.block
        badge = "  ● changed" if self.previous is not None else ""
        return Content.assemble((DisplayText(block.label), "bold"),
                                (f"  {usage_gauge(used, block.limit)}", MUTED), (badge, "bold"))

    def compose(self) -> ComposeResult:
        block = self.block
        yield self._title
        if block.description:
            yield Static(Content.styled(DisplayText(block.description), MUTED),
                         classes="memory-description")
        yield self._value
        yield Static("", classes="memory-error")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that do something now (none of the block's while it is edited:
        Enter then starts a new line)."""
        if action == "toggle_diff":
            return self.previous is not None and self._editor is None
        if action == "edit":
            return self._editor is None and not self.block.read_only
        return True

    def action_toggle_diff(self) -> None:
        """Show the change since the previous read as a word diff, or the value again."""
        if self.previous is None or self._editor is not None:
            return
        self._diff_shown = not self._diff_shown
        self._value.update(word_diff(self.previous, self.block.value) if self._diff_shown
                           else plain_text(self.block.value))

    def action_leave(self) -> None:
        """Back to the prompt; the panel stays open (and refreshes after turns)."""
        self.post_message(self.Left())

    def action_step(self, step: int) -> None:
        """Focus the next (``1``) or previous (``-1``) block."""
        views = list(self.parent.query_children(BlockView)) if self.parent else []
        index = views.index(self) + step
        if 0 <= index < len(views):
            views[index].focus()

    @on(TextArea.Changed)
    def _typed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._title.update(self._title_of(len(event.text_area.text)))

    def action_edit(self) -> None:
        """Open the value for editing (Ctrl+S saves this block only, Esc cancels), or go
        back to the editor open."""
        if self._editor is not None:
            self._editor.focus()
            return
        if self.block.read_only:
            return
        self._editor = BlockEditor(self.block.value)
        self._editor.move_cursor(self._editor.document.end)
        self._value.display = False
        self.mount(self._editor, after=self._value)
        self._editor.focus()
        self.refresh_bindings()

    @property
    def editing(self) -> bool:
        """Whether the block's value is open in its editor."""
        return self._editor is not None

    def close_editor(self) -> None:
        """Back to the value (after a save, or a cancel)."""
        if self._editor is not None:
            self._editor.remove()
            self._editor = None
            self.post_message(self.EditClosed())
        self._title.update(self._title_of(len(self.block.value)))
        self._value.display = True
        self.focus()
        self.refresh_bindings()

    def show_error(self, message: str) -> None:
        """Say why a save did not happen (or what a second Esc does), under the block;
        ``""`` hides it."""
        error = self.query_one(".memory-error", Static)
        error.update(Content.styled(DisplayText(message), "$text-error"))
        error.display = bool(message)


class BlockEditor(SteadyTextArea):
    """The value of a block being edited (Enter, Shift+Enter or Ctrl+J start a new line)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save block", priority=True, id="memory.save"),
        Binding("escape", "cancel", "Cancel edit", priority=True, id="memory.cancel"),
    ]

    def __init__(self, value: str) -> None:
        super().__init__(value)
        self._original = value
        #: Whether Esc said once that it discards what was typed.
        self._warned = False

    async def _on_key(self, event: events.Key) -> None:
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)

    def action_save(self) -> None:
        view = self.parent
        if isinstance(view, BlockView):
            view.post_message(BlockView.SaveRequested(view, self.text))

    def action_cancel(self) -> None:
        """Close the editor; when something was typed, only at the second Esc."""
        view = self.parent
        if not isinstance(view, BlockView):
            return
        if self.text != self._original and not self._warned:
            self._warned = True
            view.show_error("Not saved: Esc again discards what you typed; Ctrl+S saves it.")
            return
        view.show_error("")
        view.close_editor()


class MemoryPanel(Vertical):
    """The agent's core memory blocks, docked beside the chat (hidden until toggled)."""

    def __init__(self, client: LettaClient, agent_id: str, agent_name: str) -> None:
        super().__init__(id="memory-panel")
        self.client, self.agent_id, self.agent_name = client, agent_id, agent_name
        self._blocks = VerticalScroll(classes="memory-blocks")
        self._status = Static("", classes="memory-status")
        #: The values last read, to find what a turn changed.
        self._values: dict[str, str] = {}
        #: Label → value before the latest turn changed it: marked until the next turn ends.
        self._marks: dict[str, str] = {}
        self._marks_outdated = False
        #: Whether the last read failed (read again once requests reach the server), or
        #: waits for the block being edited to close (a read would replace its editor).
        self._unread = False
        self._unwatch: Callable[[], None] = lambda: None
        self._stray_keys = StrayKeys(self)
        self.display = False

    def compose(self) -> ComposeResult:
        yield Static(plain_text(f"Memory of {self.agent_name}"), classes="memory-heading")
        yield Static("↑↓ blocks · Enter: what changed · e: edit · Esc: to the prompt · F2 closes",
                     classes="memory-hint")
        yield self._blocks
        yield self._status

    def on_mount(self) -> None:
        self._unwatch = self.client.watch_reachability(self._reachable)

    def on_key(self, event: events.Key) -> None:
        """Keys typed on a block (not in its editor) are the message's (:class:`StrayKeys`)."""
        if not isinstance(self.app.focused, TextArea):
            self._stray_keys.on_key(event)

    def on_unmount(self) -> None:
        self._unwatch()

    def _reachable(self, reached: bool) -> None:
        """Requests reach the server again: a read that failed is made again (when shown)."""
        if reached and self._unread and self.display:
            self.reload()

    def toggle(self) -> None:
        """Show (and read) the blocks, or hide the panel."""
        self.display = not self.display
        if self.display:
            self.fit(self.app.size.width)
            self.reload(focus=True)

    def fit(self, width: int) -> None:
        """Take the whole screen on a narrow terminal, a column beside the chat otherwise."""
        self.set_class(width < NARROW_WIDTH, "-full")

    def turn_ended(self) -> None:
        """A turn may have changed blocks: read them now when shown (else on opening), and
        mark only what this turn changed."""
        self._marks_outdated = True
        if self.display:
            self.reload()

    @work(exclusive=True, group="memory", exit_on_error=False)
    async def reload(self, *, focus: bool = False) -> None:
        """Read the blocks again; the ones whose value changed since the last read are marked
        (``focus``: then put the focus on the first changed block, or the first block,
        unless the user moved it meanwhile). Not while a block is edited: then once it is not.
        """
        asked_from = self.app.focused
        editing = [view for view in self._blocks.query(BlockView) if view.editing]
        if editing:
            self._unread = True
            if focus:
                editing[0].action_edit()
            return
        try:
            blocks = await self.client.list_blocks(self.agent_id)
        except LettaError as error:
            self._unread = True
            self._status.update(plain_text(f"Could not read the memory: {error.message}"))
            return
        self._unread = False
        views = await self._show(blocks)
        if focus and views and self.app.focused is asked_from:
            next((view for view in views if view.previous is not None), views[0]).focus()

    async def _show(self, blocks: list[Block]) -> list[BlockView]:
        focused = self.app.focused
        label = focused.block.label if isinstance(focused, BlockView) else None
        self._mark_changes(blocks)
        views = [BlockView(block, self._marks.get(block.label)) for block in blocks]
        await self._blocks.remove_children()
        await self._blocks.mount_all(views)
        changed = [view.block.label for view in views if view.previous is not None]
        self._status.update(plain_text(
            f"{len(blocks)} blocks" + (f" · changed: {', '.join(changed)}" if changed else "")))
        for view in views:
            if view.block.label == label:
                view.focus()
        return views

    def _mark_changes(self, blocks: list[Block]) -> None:
        """Update the marks from a fresh read (a block changed back loses its mark)."""
        if self._marks_outdated:
            self._marks, self._marks_outdated = {}, False
        for block in blocks:
            before = self._values.get(block.label)
            if before is not None and before != block.value:
                self._marks.setdefault(block.label, before)
            if self._marks.get(block.label) == block.value:
                del self._marks[block.label]
        self._values = {block.label: block.value for block in blocks}

    @on(BlockView.EditClosed)
    def _edit_closed(self) -> None:
        if self._unread and self.display:
            self.reload()

    @on(BlockView.SaveRequested)
    def _save_requested(self, event: BlockView.SaveRequested) -> None:
        event.stop()
        self.save(event.view, event.value)

    @work(group="memory-save", exit_on_error=False)
    async def save(self, view: BlockView, value: str) -> None:
        """Write ``value`` over the block, unless it changed on the server since it was read."""
        label = view.block.label
        try:
            current = {block.label: block for block in await self.client.list_blocks(
                self.agent_id)}.get(label)
            if current is None:
                raise LettaError(f"The block {label} no longer exists.")
            if current.value != view.block.value:
                view.show_error("Not saved: the block changed on the server meanwhile. Its "
                                "newer value is shown; edit again from there.")
                view.block = current
                view.close_editor()
                view.query_one(".memory-value", Static).update(plain_text(current.value))
                return
            await self.client.update_block(self.agent_id, label, value)
        except LettaError as error:
            view.show_error(f"Not saved: {error.message}")
            return
        self._values[label] = value  # the user's own change is not marked as the agent's
        self._marks.pop(label, None)
        view.close_editor()
        self.reload()
