"""Copying: what "copy" takes from an item, and putting it on the clipboard visibly.

Textual writes the clipboard with OSC 52, which most terminals honour (macOS Terminal does
not); the confirmation says what was copied so a user can tell if nothing arrived.
"""

from __future__ import annotations

import re

from textual.widget import Widget

from openletta.display import DisplayText
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    Item,
    ReasoningItem,
    ToolCallItem,
    UserItem,
)

#: A character that cannot be written as UTF-8 (text decoded from a bad byte may hold one).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def copy_text(item: Item) -> tuple[str, str] | None:
    """``(what, text)`` that copying ``item`` takes, or ``None`` when it has nothing to copy:
    the user's own message as it was sent (its control characters too: the chat shows them
    as pictures), any other as display text (no escape sequence of a server's)."""
    what, text = _parts(item)
    if not text:
        return None
    return what, text if isinstance(item, UserItem) else DisplayText(text)


def copy_to_clipboard(widget: Widget, what: str, text: str) -> None:
    """Put ``text`` on the clipboard and say so in a notification."""
    widget.app.copy_to_clipboard(_LONE_SURROGATE.sub("\ufffd", text))  # (UTF-8 has none)
    lines = text.count("\n") + 1
    size = f"{lines:,} lines" if lines > 1 else f"{len(text):,} characters"
    widget.notify(f"Copied {what} ({size}) to the clipboard", title="Copied")


def _parts(item: Item) -> tuple[str, str]:
    if isinstance(item, UserItem):
        return "your message", item.text
    if isinstance(item, AssistantItem):
        return "the reply", item.text
    if isinstance(item, ReasoningItem) and not item.hidden:
        return "the reasoning", item.text
    if isinstance(item, ToolCallItem):
        output = "\n".join([*item.stdout, *item.stderr]) or item.result or ""
        if output:
            return "the tool output", output
        return "the tool arguments", item.arguments_text
    if isinstance(item, ErrorItem):
        return "the error", "\n".join(filter(None, [item.message, item.detail]))
    return "", ""
