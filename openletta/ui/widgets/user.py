"""The user's message: a quiet block with the text, shown literally."""

from __future__ import annotations

from textual.content import Content

from openletta.transcript import UserItem
from openletta.ui.sanitize import clean_text
from openletta.ui.widgets.base import TextItemWidget


class UserMessage(TextItemWidget, can_focus=True):
    """A :class:`UserItem`."""

    item: UserItem

    def state(self) -> str:
        return self.item.text

    def draw(self) -> Content:
        return Content(clean_text(self.item.text))
