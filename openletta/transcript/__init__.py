"""Pure transcript model: chunks and history in, display items out (no I/O, no UI)."""

from openletta.transcript.accumulator import Transcript
from openletta.transcript.change import Change
from openletta.transcript.items import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    TurnFooterItem,
    Usage,
    UserItem,
)

__all__ = [
    "AssistantItem", "Change", "ErrorItem", "EventItem", "Item", "ReasoningItem", "SystemItem",
    "ToolCallItem", "ToolStatus", "Transcript", "TurnFooterItem", "Usage", "UserItem",
]
