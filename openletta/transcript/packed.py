"""Letta stores some system notes as user messages holding packed JSON."""

from __future__ import annotations

from openletta.api import json_text
from openletta.api.wire import WireModel

#: Packet types the server writes into user messages; anything else is the user's own text.
SYSTEM_PACKETS = frozenset({"system_alert", "login", "heartbeat"})
#: How Letta 0.16.8 opens the ``system_alert`` that holds a compaction's summary, and the
#: line after which the summary follows.
COMPACTION_NOTE = "Note: prior messages from the beginning of the conversation have been hidden"
SUMMARY_FOLLOWS = "The following is a summary of the previous messages:"


class _Packet(WireModel):
    type: str | None = None
    message: str | None = None


def unpack_user_content(content: str) -> tuple[str, str]:
    """Return ``(subtype, text)`` for a stored user message.

    ``subtype`` is ``"user_message"`` for text the user typed (a packed ``user_message``
    packet is unwrapped) or the packet type for a system note (``system_alert``,
    ``login``, ``heartbeat``) that the UI hides by default.
    """
    stripped = content.lstrip()
    if not stripped.startswith("{"):
        return "user_message", content
    data = json_text.loads_or_none(stripped)
    if not isinstance(data, dict):
        return "user_message", content
    packet = _Packet.model_validate(data)
    if packet.type == "user_message" and packet.message is not None:
        return "user_message", packet.message
    if packet.type in SYSTEM_PACKETS:
        return packet.type, packet.message if packet.message is not None else content
    return "user_message", content


def compaction_summary(subtype: str, text: str) -> str | None:
    """The summary a compaction left, when a system note (``subtype``, ``text`` from
    :func:`unpack_user_content`) is one; else ``None``."""
    if subtype != "system_alert" or not text.startswith(COMPACTION_NOTE):
        return None
    _, _, summary = text.partition(SUMMARY_FOLLOWS)
    return summary.strip()
