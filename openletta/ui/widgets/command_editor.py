"""The editor of a command run here, opened from its approval prompt before it runs."""

from __future__ import annotations

from textual import events
from textual.message import Message

from openletta.ui.prompt import NEWLINE_KEYS
from openletta.ui.steady import SteadyTextArea


class CommandEditor(SteadyTextArea):
    """A command to edit before it runs: Enter posts :class:`Submitted`, Shift+Enter or
    Ctrl+J start a new line (as in the prompt), Esc is left to the approval prompt; a change
    of its height posts :class:`Resized`."""

    class Submitted(Message):
        """The user pressed Enter: ``text`` is the command to run."""

        def __init__(self, editor: CommandEditor, text: str) -> None:
            super().__init__()
            self.editor = editor
            self.text = text

        @property
        def control(self) -> CommandEditor:
            return self.editor

    class Resized(Message):
        """Its height changed (the command wrapped anew, as laid out or typed): the
        approval prompt brings it into view again."""

    def __init__(self, command: str, *, classes: str = "") -> None:
        super().__init__(command, soft_wrap=True, tab_behavior="focus", compact=True,
                         classes=classes, placeholder="The command to run")
        self.border_title = "Enter runs it · Ctrl+J adds a line · Esc goes back"

    def on_focus(self) -> None:
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            self.post_message(self.Submitted(self, self.raw_text))
        elif event.key in NEWLINE_KEYS:
            self.insert("\n")
        else:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()

    @property
    def cursor_row(self) -> int:
        """The row of the editor (its border included) that the cursor is on."""
        return self.cursor_screen_offset.y - self.region.y

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())
