"""The user's message: a quiet block with the text, shown literally."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from openletta.transcript import UserItem
from openletta.ui.sanitize import plain_text
from openletta.ui.widgets.base import ItemWidget


class UserMessage(ItemWidget, can_focus=True):
    """A :class:`UserItem`."""

    item: UserItem

    def __init__(self, item: UserItem) -> None:
        super().__init__(item)
        self._shown: str | None = None
        self._text = Static(classes="user-text")

    def compose(self) -> ComposeResult:
        yield self._text

    def sync(self) -> None:
        if self.item.text != self._shown:
            self._shown = self.item.text
            self._text.update(plain_text(self.item.text))
