"""The text a reader sees of an item, as its widget shows it, made without a widget.

What Ctrl+F counts: a reply's Markdown rendered (no ``**``, no link address), a tool card's
title and body as its renderer draws them, a message's display text. Chrome around the text
(a card's status badges, a thought's summary line, a fold's hint) is left out. The text of
an item is kept until the item changes, so a search of a long history reads each item once.

It agrees with where the widget draws a query (:func:`~openletta.ui.search_hits.find_hits`)
but for text laid out out of sight, where it counts a little more: the end of a code line
wider than the reply (it scrolls sideways), of a card's title cut at a narrow width, or a
match across the wrapped lines of a table cell. Decoration the widgets draw (bullets, table
lines, badges) is not counted.
"""

from __future__ import annotations

from collections.abc import Hashable
from weakref import WeakKeyDictionary

from openletta.display import DisplayText, pictured_text
from openletta.markdown_text import markdown_text
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    UserItem,
)
from openletta.ui.renderers import renderer_for
from openletta.ui.widgets.card_header import card_title
from openletta.ui.widgets.error import error_title
from openletta.ui.widgets.tool_card import card_blocks

#: Width of a card's body when none is given (wide renderers lay out by width).
DEFAULT_WIDTH = 100

_made: WeakKeyDictionary[Item, tuple[Hashable, str]] = WeakKeyDictionary()


def shown_text(item: Item, width: int = DEFAULT_WIDTH) -> str:
    """What ``item``'s widget shows as text (a tool card's body laid out ``width`` wide)."""
    version = _version(item, width)
    kept = _made.get(item)
    if kept is not None and kept[0] == version:
        return kept[1]
    text = _text(item, width)
    _made[item] = version, text
    return text


def _version(item: Item, width: int) -> Hashable:
    """What the shown text of ``item`` depends on."""
    if isinstance(item, ToolCallItem):
        return (item.name, item.status, item.arguments_text, item.result, len(item.stdout),
                len(item.stderr), item.reason, item.preview, width)
    if isinstance(item, ReasoningItem):
        return item.text, item.hidden
    if isinstance(item, UserItem | AssistantItem | SystemItem | EventItem):
        return item.text
    if isinstance(item, ErrorItem):
        return item.error_type, item.message, item.detail
    return None


def _text(item: Item, width: int) -> str:
    if isinstance(item, AssistantItem):
        return markdown_text(DisplayText(item.text))
    if isinstance(item, ToolCallItem):
        return card_text(item, width)
    if isinstance(item, ReasoningItem):
        return "" if item.hidden else DisplayText(item.text).strip()
    if isinstance(item, EventItem):
        return "\n".join(DisplayText(part) for part in item.divider())
    if isinstance(item, UserItem):
        return pictured_text(item.text)
    if isinstance(item, SystemItem):
        return DisplayText(item.text)
    if isinstance(item, ErrorItem):
        return DisplayText(f"{error_title(item.error_type)}\n{item.message}\n{item.detail or ''}")
    return ""


def held_text(item: Item) -> str:
    """All a tool call's output that the app holds (what the agent was told, what the
    command printed), of which its card may show only the two ends; ``""`` for other items."""
    if not isinstance(item, ToolCallItem):
        return ""
    return "\n".join([item.result or "", "".join(item.stdout), "".join(item.stderr)])


def card_text(item: ToolCallItem, width: int) -> str:
    """A tool card's title (the tool and the summary of its arguments) and body."""
    renderer = renderer_for(item.name)
    blocks = [card_title(item, renderer).full, *card_blocks(item, renderer, width)]
    return "\n".join(block.plain for block in blocks)
