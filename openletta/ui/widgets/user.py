"""The user's message: a quiet block with the text, shown literally; a long one (a paste)
folds to its first lines until Enter or a click opens it."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import var

from openletta.display import DisplayText
from openletta.transcript import UserItem
from openletta.ui.widgets.base import TextItemWidget
from openletta.ui.widgets.folding import folded, folds


class UserMessage(TextItemWidget, can_focus=True):
    """A :class:`UserItem`."""

    item: UserItem
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_expanded", "Expand", show=False, id="user.toggle"),
    ]

    expanded = var(False)
    """Whether a long message is shown in full."""

    def state(self) -> tuple[str, bool]:
        return self.item.text, self.expanded

    def draw(self) -> Content:
        return folded(self._lines(), expanded=self.expanded)

    def watch_expanded(self) -> None:
        self.sync()

    def on_click(self, event: events.Click) -> None:
        self.action_toggle_expanded()

    def action_toggle_expanded(self) -> None:
        """Show a folded message in full, or fold it again."""
        if folds(self._lines()):
            self.expanded = not self.expanded

    def _lines(self) -> list[str]:
        return DisplayText(self.item.text).split("\n")
