"""The completion menu above the prompt: slash commands while one is typed, the values of
its argument while that is (``/theme`` names), paths while an ``@`` mention is."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from openletta.display import DisplayText
from openletta.ui.commands import SLASH_COMMANDS, SlashCommand
from openletta.ui.hanging import Hanging

#: The cells of a command's usage (``/theme [name]``), before its description.
USAGE_WIDTH = 18
#: An option id: a command's name, a path after this mark, or an argument after the other.
_PATH = "@"
_ARGUMENT = " "


@dataclass(frozen=True)
class Argument:
    """A value the argument of a slash command completes to."""

    value: str


def command_row(command: SlashCommand) -> Hanging:
    """``/theme [name]   Switch theme …``, a description too long for the line wrapping
    under itself."""
    return Hanging((Text(command.usage.ljust(USAGE_WIDTH - 1) + " ", style="bold"),
                    Text(command.description, style="dim")))


class CompletionMenu(OptionList, can_focus=False):
    """What completes the prompt's text; the prompt drives it with its keys."""

    def show_commands(self, commands: list[SlashCommand]) -> None:
        """List ``commands`` (hidden when there are none)."""
        self._show([(command.name, command_row(command)) for command in commands])

    def show_paths(self, paths: list[str]) -> None:
        """List ``paths`` of the working directory (hidden when there are none)."""
        self._show_values(_PATH, paths)

    def show_arguments(self, values: list[str]) -> None:
        """List the ``values`` the argument of a command completes to (hidden: none)."""
        self._show_values(_ARGUMENT, values)

    def hide(self) -> None:
        self._show([])

    def _show_values(self, mark: str, values: list[str]) -> None:
        self._show([(f"{mark}{value}", Text(DisplayText(value), style="bold"))
                    for value in values])

    def _show(self, rows: list[tuple[str, Text | Hanging]]) -> None:
        if [option.id for option in self.options] != [key for key, _ in rows]:
            self.clear_options()
            self.add_options([Option(label, id=key) for key, label in rows])
            self.highlighted = 0 if rows else None
        self.display = bool(rows)

    def move(self, step: int) -> None:
        """Highlight the next (``+1``) or previous (``-1``) row, wrapping around."""
        if self.option_count:
            current = self.highlighted if self.highlighted is not None else -step
            self.highlighted = (current + step) % self.option_count

    @property
    def chosen(self) -> SlashCommand | Argument | str | None:
        """The highlighted command, argument or path, if the menu is open."""
        if not self.display or self.highlighted is None:
            return None
        key = self.get_option_at_index(self.highlighted).id or ""
        if key.startswith(_PATH):
            return key[len(_PATH):]
        if key.startswith(_ARGUMENT):
            return Argument(key[len(_ARGUMENT):])
        return SLASH_COMMANDS.get(key)
