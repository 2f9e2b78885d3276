"""The help screen: keys, slash commands and what the status bar's figures mean."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from openletta.tools.permissions import SWITCHABLE
from openletta.ui.commands import SlashCommand
from openletta.ui.key_bar import KeyBar
from openletta.ui.reading_scroll import ReadingScroll

KEYS = (
    ("Enter", "send (queued while the agent answers)"),
    ("Shift+Enter / Ctrl+J", "new line"),
    ("↑ / ↓", "recall earlier prompts (on the first / last line)"),
    ("Ctrl+Z / Ctrl+Y", "undo / redo in the prompt"),
    ("Ctrl+U / Ctrl+K", "delete to the start / end of the line"),
    ("F7, Backspace", "clear the prompt (F7 selects all of it)"),
    ("@", "mention a path of the working directory: the menu completes it (Tab or Enter)"),
    ("Esc / Ctrl+C", "stop the running turn (Ctrl+C twice quits)"),
    ("Shift+Tab", "in the prompt, next permission mode for local tools: "
     + ", ".join(mode.label for mode in SWITCHABLE)),
    ("PgUp / PgDn", "scroll the chat a page (earlier messages load at the top)"),
    ("Ctrl+End", "jump to the newest message and follow again (End in the chat)"),
    ("Home", "in the chat: go to the start of the conversation (all of it loads)"),
    ("Alt+↑ / Alt+↓", "jump to the previous / next prompt you sent"),
    ("Ctrl+F", "find in the conversation (Enter/↑ older, ↓ newer)"),
    ("Tab / Shift+Tab", "focus the next / previous message, card or code block (typing "
                        "there, or Esc, goes back to the prompt)"),
    ("Enter", "on a card, a thought or a long message: open or fold it; on a turn's "
              "footer: its runs"),
    ("c", "copy the focused message, code block or tool output"),
    ("F2", "show or hide the agent's memory blocks"),
    ("Ctrl+T", "show or hide internal messages"),
    ("Ctrl+A", "switch agent (Ctrl+N there makes a new one)"),
    ("Ctrl+P", "command palette"),
    ("F1", "this help"),
    ("Ctrl+Q", "quit"),
)
#: What the status bar's figures mean, with an example of each.
STATUS_FIGURES = (
    ("↑3k ↓39 · 2 steps", "the last turn: tokens sent to the model (↑) and written by it (↓), "
                          "added up over its requests (one per step)"),
    ("▰▱▱▱▱ 1.6k/30k", "the context: what the last request held, of the model's window; "
                       "marked past 90 %, and \"over\" past it (~: an estimate). Click it, "
                       "or /context, for what fills it"),
    ("⚒ ask", "how local tool calls are approved (Shift+Tab changes it)"),
)


def help_table(commands: Iterable[SlashCommand]) -> Table:
    """Keys, slash commands (as the ``/`` menu shows them: ``/rename <name>``) and the status
    bar's figures in two columns: a long meaning wraps under itself, not under the keys."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row(Text("Keys", style="bold"))
    for key, meaning in KEYS:
        table.add_row(f"  {key}", meaning)
    table.add_row()
    table.add_row(Text("Commands", style="bold"))
    for command in commands:
        table.add_row(Text(f"  {command.usage}"), command.description)  # [path]: no markup
    table.add_row()
    table.add_row(Text("Status bar", style="bold"))
    for figure, meaning in STATUS_FIGURES:
        table.add_row(f"  {figure}", meaning)
    return table


class HelpScreen(ModalScreen[None]):
    """A modal listing keys and slash commands; any of Esc, q, F1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, commands: Iterable[SlashCommand]) -> None:
        super().__init__()
        self._table = help_table(commands)

    def compose(self) -> ComposeResult:
        with ReadingScroll(id="help-box"):
            yield Static(self._table)
        yield KeyBar()
