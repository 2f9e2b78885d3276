"""Letta stores some system notes as user messages holding packed JSON."""

from __future__ import annotations

from openletta.api import json_text
from openletta.api.wire import WireModel

#: Packet types the server writes into user messages; anything else is the user's own text.
SYSTEM_PACKETS = frozenset({"system_alert", "login", "heartbeat"})
#: The sentence every summary note of Letta 0.16.8 holds (``package_summarize_message*`` in
#: ``letta/system.py``: sliding-window, ``all``/``self`` and the older counted wording); Letta
#: itself spots its summary by it. The summary follows the colon that ends the sentence.
SUMMARY_FOLLOWS = "The following is a summary of the previous "
#: The message Letta 0.16.8 stores as the user's when it gets answers to calls it already
#: has answers for (``letta/agents/helpers.py``): a system alert, not the user's words.
KEEP_ALIVE_PING = ("Automated keep-alive ping. Ignore this message and continue from where "
                   "you stopped.")


class _Packet(WireModel):
    type: str | None = None
    message: str | None = None


def unpack_user_content(content: str) -> tuple[str, str]:
    """Return ``(subtype, text)`` for a stored user message.

    ``subtype`` is ``"user_message"`` for text the user typed (a packed ``user_message``
    packet is unwrapped) or the packet type for a system note (``system_alert``,
    ``login``, ``heartbeat``) that the UI hides by default.
    """
    stripped = content.strip()
    if stripped == f"<system-alert>{KEEP_ALIVE_PING}</system-alert>":
        return "system_alert", KEEP_ALIVE_PING
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
    if subtype != "system_alert":
        return None
    _, marker, rest = text.partition(SUMMARY_FOLLOWS)
    _, colon, summary = rest.partition(":")
    return summary.strip() if marker and colon else None
