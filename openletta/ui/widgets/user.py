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
from openletta.ui.renderers.base import MUTED
from openletta.ui.widgets.base import TextItemWidget

#: A message of more lines than this folds.
FOLD_AFTER_LINES = 12
#: The lines a folded message shows.
FOLDED_LINES = 8


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
        lines = self._lines()
        if len(lines) <= FOLD_AFTER_LINES:
            return Content("\n".join(lines))
        if self.expanded:
            return Content.assemble("\n".join(lines), ("\nEnter folds it", MUTED))
        hidden = len(lines) - FOLDED_LINES
        return Content.assemble("\n".join(lines[:FOLDED_LINES]),
                                (f"\n… {hidden:,} more lines — Enter to expand", MUTED))

    def watch_expanded(self) -> None:
        self.sync()

    def on_click(self, event: events.Click) -> None:
        self.action_toggle_expanded()

    def action_toggle_expanded(self) -> None:
        """Show a folded message in full, or fold it again."""
        if len(self._lines()) > FOLD_AFTER_LINES:
            self.expanded = not self.expanded

    def _lines(self) -> list[str]:
        return DisplayText(self.item.text).split("\n")
