"""The user's message: a quiet block with the text, shown literally."""

from __future__ import annotations

from textual.content import Content

from openletta.display import DisplayText
from openletta.transcript import UserItem
from openletta.ui.widgets.base import TextItemWidget


class UserMessage(TextItemWidget, can_focus=True):
    """A :class:`UserItem`."""

    item: UserItem

    def state(self) -> str:
        return self.item.text

    def draw(self) -> Content:
        return Content(DisplayText(self.item.text))
