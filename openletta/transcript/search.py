"""Finding text in a transcript: which items mention a query (case-insensitive)."""

from __future__ import annotations

from collections.abc import Iterable

from openletta.transcript.items import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    UserItem,
)


def searchable_text(item: Item) -> str:
    """Everything a reader sees of ``item``, as one string to search."""
    if isinstance(item, UserItem | AssistantItem | SystemItem | EventItem):
        return item.text
    if isinstance(item, ReasoningItem):
        return "" if item.hidden else item.text
    if isinstance(item, ToolCallItem):
        parts = [item.name, item.arguments_text, item.result or "", *item.stdout, *item.stderr,
                 item.reason or ""]
        return "\n".join(parts)
    if isinstance(item, ErrorItem):
        return f"{item.message}\n{item.detail or ''}"
    return ""


def find_items(items: Iterable[Item], query: str, *, include_internal: bool = False
               ) -> list[Item]:
    """The items whose text contains ``query`` (ignoring case), in order."""
    needle = query.casefold().strip()
    if not needle:
        return []
    return [item for item in items
            if (include_internal or not item.internal)
            and needle in searchable_text(item).casefold()]
