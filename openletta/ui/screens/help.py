"""The help screen: keys and slash commands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = (
    ("Enter", "send (queued while the agent answers)"),
    ("Shift+Enter / Ctrl+J", "new line"),
    ("↑ / ↓", "recall earlier prompts (on the first / last line)"),
    ("Esc", "stop the running turn"),
    ("PgUp / PgDn", "scroll the chat a page (earlier messages load at the top)"),
    ("Ctrl+End", "jump to the newest message and follow again (End in the chat)"),
    ("Alt+↑ / Alt+↓", "jump to the previous / next prompt you sent"),
    ("Ctrl+F", "find in the conversation (Enter/↑ older, ↓ newer)"),
    ("c", "copy the focused message, code block or tool output"),
    ("Tab", "focus the next message, card or code block"),
    ("Ctrl+A", "switch agent"),
    ("Ctrl+T", "show or hide internal messages"),
    ("Ctrl+P", "command palette"),
    ("F1", "this help"),
    ("Ctrl+Q", "quit"),
)


def help_text(commands: Iterable[tuple[str, str]]) -> Text:
    """Keys and ``(name, description)`` slash commands as one text."""
    text = Text()
    text.append("Keys\n", style="bold")
    for key, meaning in KEYS:
        text.append(f"  {key:<22}", style="bold")
        text.append(f"{meaning}\n")
    text.append("\nCommands\n", style="bold")
    for name, description in commands:
        text.append(f"  /{name:<21}", style="bold")
        text.append(f"{description}\n")
    return text


class HelpScreen(ModalScreen[None]):
    """A modal listing keys and slash commands; any of Esc, q, F1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, commands: Iterable[tuple[str, str]]) -> None:
        super().__init__()
        self._text = help_text(commands)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self._text)
