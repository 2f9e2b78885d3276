"""Letta stores some system notes as user messages holding packed JSON."""

from __future__ import annotations

import json

#: Packet types the server writes into user messages; anything else is the user's own text.
SYSTEM_PACKETS = frozenset({"system_alert", "login", "heartbeat"})


def unpack_user_content(content: str) -> tuple[str, str]:
    """Return ``(subtype, text)`` for a stored user message.

    ``subtype`` is ``"user_message"`` for text the user typed (a packed ``user_message``
    packet is unwrapped) or the packet type for a system note (``system_alert``,
    ``login``, ``heartbeat``) that the UI hides by default.
    """
    stripped = content.lstrip()
    if not stripped.startswith("{"):
        return "user_message", content
    try:
        packet = json.loads(stripped)
    except ValueError:
        return "user_message", content
    if not isinstance(packet, dict):
        return "user_message", content
    kind = packet.get("type")
    text = packet.get("message")
    if kind == "user_message" and isinstance(text, str):
        return "user_message", text
    if kind in SYSTEM_PACKETS:
        return kind, text if isinstance(text, str) else content
    return "user_message", content
