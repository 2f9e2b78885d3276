"""Widgets that show transcript items: one class per item kind, built by :func:`make_item_widget`.

Their styles live in ``openletta/ui/styles/widgets.tcss`` (:data:`WIDGETS_CSS_PATH`); an app
showing them lists that file in its ``CSS_PATH``.
"""

from __future__ import annotations

from pathlib import Path

from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    TurnFooterItem,
    UserItem,
)
from openletta.ui.widgets.assistant import AssistantMessage
from openletta.ui.widgets.base import ItemWidget
from openletta.ui.widgets.error import ErrorBlock
from openletta.ui.widgets.event import EventDivider
from openletta.ui.widgets.footer import TurnFooter
from openletta.ui.widgets.reasoning import ReasoningBlock
from openletta.ui.widgets.system import SystemNote
from openletta.ui.widgets.tool_card import ToolCallCard
from openletta.ui.widgets.undisplayable import UndisplayableItem
from openletta.ui.widgets.user import UserMessage

__all__ = [
    "WIDGETS_CSS_PATH", "AssistantMessage", "ErrorBlock", "EventDivider", "ItemWidget",
    "ReasoningBlock", "SystemNote", "ToolCallCard", "TurnFooter", "UndisplayableItem",
    "UserMessage", "make_item_widget",
]

WIDGETS_CSS_PATH = Path(__file__).parent.parent / "styles" / "widgets.tcss"

_WIDGET_CLASSES: dict[type[Item], type[ItemWidget]] = {
    UserItem: UserMessage,
    ReasoningItem: ReasoningBlock,
    AssistantItem: AssistantMessage,
    ToolCallItem: ToolCallCard,
    ErrorItem: ErrorBlock,
    EventItem: EventDivider,
    SystemItem: SystemNote,
    TurnFooterItem: TurnFooter,
}


def make_item_widget(item: Item) -> ItemWidget:
    """A new widget showing ``item`` (an :class:`UndisplayableItem` when none can)."""
    for item_class in type(item).__mro__:
        widget_class = _WIDGET_CLASSES.get(item_class)
        if widget_class is not None:
            try:
                return widget_class(item)  # type: ignore[arg-type]
            except Exception as error:
                return UndisplayableItem(item, error)
    return UndisplayableItem(item, TypeError(f"no widget shows {type(item).__name__}"))
