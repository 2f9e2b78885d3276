"""The completion menu that opens above the prompt while a slash command is typed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from openletta.ui.commands import SLASH_COMMANDS, SlashCommand, matching_commands


def menu_row(command: SlashCommand) -> Text:
    """``/theme [name]   Switch theme …``"""
    text = Text(command.usage.ljust(18), style="bold")
    text.append(command.description, style="dim")
    return text


class SlashMenu(OptionList, can_focus=False):
    """Commands matching what the prompt holds; the prompt drives it with its keys."""

    def show_matches(self, text: str) -> None:
        """List the commands completing ``text`` (hidden when there are none)."""
        commands = matching_commands(text)
        if [option.id for option in self.options] != [command.name for command in commands]:
            self.clear_options()
            self.add_options([Option(menu_row(command), id=command.name)
                              for command in commands])
            self.highlighted = 0 if commands else None
        self.display = bool(commands)

    def move(self, step: int) -> None:
        """Highlight the next (``+1``) or previous (``-1``) command, wrapping around."""
        if self.option_count:
            current = self.highlighted if self.highlighted is not None else -step
            self.highlighted = (current + step) % self.option_count

    @property
    def chosen(self) -> SlashCommand | None:
        """The highlighted command, if the menu is open."""
        if not self.display or self.highlighted is None:
            return None
        option_id = self.get_option_at_index(self.highlighted).id
        return SLASH_COMMANDS.get(option_id or "")
