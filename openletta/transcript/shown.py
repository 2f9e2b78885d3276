"""What history already shows, so a run followed from its start does not show it twice.

A run that was going when the conversation opened (or that another client started) is
followed by replaying its stream from the first chunk. Its finished steps are already in the
loaded history, under the same ``otid`` and tool-call ids: those chunks are skipped, and the
step still running streams in as new items.
"""

from __future__ import annotations

from collections.abc import Collection

from openletta.api import messages as m

_TOOL_CALLS = (m.ToolCallMessage, m.ApprovalRequestMessage)


def part_key(message: m.Message) -> str | None:
    """The key of the logical part a message (or chunk) belongs to, if it has one."""
    if not isinstance(message, m.LettaMessage) or not message.group_key:
        return None
    return f"{message.message_type}:{message.group_key}"


class StoredParts:
    """The parts of stored messages, and the tool calls, a transcript showed before it
    started following a run."""

    def __init__(self, parts: Collection[str], calls: Collection[str]) -> None:
        self._parts = set(parts)
        self._calls = set(calls)

    def covers(self, message: m.Message) -> bool:
        """Whether ``message`` repeats something already shown (its later deltas too)."""
        key = part_key(message)
        if key is not None and key in self._parts:
            return True
        if not isinstance(message, _TOOL_CALLS):
            return False  # a tool return is applied again: it only settles its call
        called = {call.tool_call_id for call in message.tool_calls if call.tool_call_id}
        if not called or not called <= self._calls:
            return False
        if key is not None:
            self._parts.add(key)  # argument deltas without a tool-call id follow
        return True
