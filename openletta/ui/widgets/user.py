"""The user's message: a quiet block with the text, shown literally (control characters as
the prompt shows them: ``␛``); a long one (a paste) folds to its first lines until Enter or
a click opens it."""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.reactive import var

from openletta.display import pictured_text
from openletta.transcript import UserItem
from openletta.ui.widgets.base import TextItemWidget
from openletta.ui.widgets.folding import folded, folds


class UserMessage(TextItemWidget, can_focus=True):
    """A :class:`UserItem`."""

    item: UserItem
    expanded = var(False)
    """Whether a long message is shown in full."""

    def state(self) -> tuple[str, bool]:
        return self.item.text, self.expanded

    def draw(self) -> Content:
        return folded(self._lines(), expanded=self.expanded)

    def watch_expanded(self) -> None:
        self.sync()

    def on_click(self, event: events.Click) -> None:
        self.toggle_fold()

    def can_fold(self) -> bool:
        return folds(self._lines())

    def _lines(self) -> list[str]:
        return pictured_text(self.item.text).split("\n")
