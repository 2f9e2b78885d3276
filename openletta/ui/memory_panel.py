"""The memory panel: the agent's core memory blocks beside (or above) the chat, refreshed
after turns.

A block that changed since the panel last read it is marked; Enter on it shows the change as
a word diff; ↑↓ go from block to block. Editing is deliberate: ``e`` opens the value (the
cursor at its end, its size counted as it is typed), Ctrl+S saves only that block, Esc
cancels (a second Esc when something was typed). A block changed on the server meanwhile
(found at the save, or when a turn ends) is not overwritten: its newer value is shown above
the editor, which keeps what was typed, for the user to save it over the newer value (Ctrl+S
again) or discard it (Esc). The panel never writes anything unasked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static, TextArea

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Block
from openletta.display import plain_text
from openletta.ui.memory_block import BlockEditor, BlockView
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.steady import SteadyTextArea, restyle_alone
from openletta.ui.stray_keys import StrayKeys

#: Below this width the panel goes above the chat (the top half), not beside it.
NARROW_WIDTH = 100
#: Said when the panel above the chat closes for a request that waits for an answer.
MADE_ROOM = "Closed to show the request that waits for your answer. F2 opens it again."
#: The status line while the blocks are read.
READING = "Reading the memory…"
#: The status line when a read failed (the reason follows).
NOT_READ = "Could not read the memory: {}"
#: Under an editor whose block changed on the server: what Ctrl+S and Esc do now.
CONFLICT = ("{} (above, as it is now, what is new marked). Ctrl+S saves yours over it; "
            "Esc discards yours.")


def typed_in(widget: Widget | None) -> int | str | None:
    """What tells whether the user typed in ``widget`` since (its edits, or its text), when it
    is a text field: a message typed and sent leaves the prompt as empty as it was."""
    if isinstance(widget, SteadyTextArea):
        return widget.edits
    return widget.text if isinstance(widget, TextArea) else None


def unexpected(error: Exception) -> str:
    """A short line for a failure no one expected (its kind, and its message if any)."""
    message = str(error).splitlines()[0][:120] if str(error) else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class MemoryPanel(Vertical, ReportsWorkerErrors):
    """The agent's core memory blocks, docked beside the chat (hidden until toggled).

    Its workers' messages do not bubble: it reports their unexpected failures itself."""

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
        # (two lines of whole hints: wrapped, one read "Esc:" / "to the prompt")
        yield Static("↑↓ blocks · Enter: what changed · e: edit\nEsc: to the prompt · F2 closes",
                     classes="memory-hint")
        yield self._blocks
        yield self._status

    def on_mount(self) -> None:
        self._unwatch = self.client.watch_reachability(self._reachable)

    def on_key(self, event: events.Key) -> None:
        """Keys typed on a block (not in its editor) are the message's (:class:`StrayKeys`);
        Enter that they leave, on a block with no change to show, says so."""
        focused = self.app.focused
        if isinstance(focused, TextArea) or self._stray_keys.on_key(event):
            return
        if event.key == "enter" and isinstance(focused, BlockView):
            focused.say_if_unchanged()

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
        else:
            self._place_toasts()

    @property
    def editor_focused(self) -> bool:
        """Whether the focus is in the editor of a block."""
        return isinstance(self.app.focused, BlockEditor)

    def fit(self, width: int) -> None:
        """On a narrow terminal the top half, above the chat (whose prompt, status bar and
        newest lines stay in sight below it); a column beside the chat otherwise."""
        self.set_class(width < NARROW_WIDTH, "-above")
        self._place_toasts()

    def make_room(self) -> None:
        """A request waits for an answer: the panel above the chat closes (saying so), for
        the request to show whole where it is answered; the panel beside it stays."""
        if self.display and self.has_class("-above"):
            self.toggle()
            self.notify(MADE_ROOM, title="Memory")

    def _place_toasts(self) -> None:
        """Toasts (at the top right) show left of the panel beside the chat, and under the
        panel above the chat (over the oldest lines in view): not over its heading."""
        above, screen = self.has_class("-above"), self.screen
        screen.set_class(self.display and not above, "-memory-beside", update=False)
        screen.set_class(self.display and above, "-memory-above", update=False)
        # The rules for these classes place the toasts: restyled alone, not every widget of
        # the screen (about a millisecond each).
        restyle_alone(screen, *screen.query("ToastRack"))

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
        unless the user moved it or typed meanwhile: the keys typed right after F2 are all
        the prompt's, the Enter that ends them too). Not while a block is edited: then once
        it is not (meanwhile a change of the block edited is shown in its editor). The status
        line says a read is under way, and why one failed: never a silent blank panel (an
        unexpected failure is also reported as the app's other workers' are).
        """
        try:
            await self._read(focus=focus)
        except Exception as error:
            self._unread = True
            self._status.update(plain_text(NOT_READ.format(unexpected(error))))
            raise

    async def _read(self, *, focus: bool) -> None:
        asked_from = self.app.focused
        typed_before = typed_in(asked_from)
        editing = [view for view in self._blocks.query(BlockView) if view.editing]
        if editing:
            self._unread = True
            if focus:
                editing[0].action_edit()
            await self._check_edited(editing)
            return
        self._status.update(READING)
        try:
            blocks = await self.client.list_blocks(self.agent_id)
        except LettaError as error:
            self._unread = True
            self._status.update(plain_text(NOT_READ.format(error.message)))
            return
        self._unread = False
        views = await self._show(blocks)
        if focus and views and self.app.focused is asked_from and (
                typed_in(asked_from) == typed_before):  # (not while the user types there)
            self.screen.set_focus(  # at once: a key read next goes where the focus is
                next((view for view in views if view.previous is not None), views[0]))

    async def _show(self, blocks: list[Block]) -> list[BlockView]:
        focused = self.app.focused
        label = focused.block.label if isinstance(focused, BlockView) else None
        self._mark_changes(blocks)
        views = [BlockView(block, self._marks.get(block.label)) for block in blocks]
        # Shielded: a newer read cancels this one, and a removal cut short would cancel the
        # tasks of the views it removes, leaving them half gone (the app hung at exit).
        await asyncio.shield(self._blocks.remove_children())
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

    async def _check_edited(self, views: list[BlockView]) -> None:
        """Show in the open editors the blocks that changed on the server meanwhile."""
        try:
            current = {block.label: block for block in await self.client.list_blocks(
                self.agent_id)}
        except LettaError:
            return  # a save reads the block again anyway
        for view in views:
            newer = current.get(view.block.label)
            if newer is not None:
                view.show_newer(newer, CONFLICT.format("The block changed on the server "
                                                       "while you edited it"))

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
        """Write ``value`` over the block, unless it changed on the server since it was read
        (or last shown): then the newer value is shown, and the editor keeps ``value``."""
        label = view.block.label
        try:
            current = {block.label: block for block in await self.client.list_blocks(
                self.agent_id)}.get(label)
            if current is None:
                raise LettaError(f"The block {label} no longer exists.")
            if current.value != view.block.value:
                self._unread = True  # the other blocks too are read again once it closes
                view.show_newer(current, CONFLICT.format(
                    "Not saved: the block changed on the server meanwhile"))
                return
            await self.client.update_block(self.agent_id, label, value)
        except LettaError as error:
            view.show_error(f"Not saved: {error.message}")
            return
        self._values[label] = value  # the user's own change is not marked as the agent's
        self._marks.pop(label, None)
        view.show_error("")
        view.close_editor()
        self.reload()
