"""The mark under a turn the user interrupted while its local calls ran (Esc), live and read
back from history.

Live, the chat puts the mark when Esc stops the calls (:data:`HELD`) and rewords it once
the agent is told (:data:`TOLD`, :data:`TOLD_ON_QUIT`, :data:`TOLD_ON_LEAVING`). The server
keeps no record of the Esc itself: what it keeps is the result openletta sent for each
stopped call (one that :func:`~openletta.api.answers.reports_interruption`), filed with the
user's next message, or alone with the agent's answer to it when the user quit or left the
chat. History puts the mark back from that.
The call itself shows as cancelled by the same rule live and in history
(:func:`returned_status`).
"""

from __future__ import annotations

from collections.abc import Sequence

from openletta.api.answers import reports_interruption
from openletta.transcript.items import EventItem, Item, ToolCallItem, ToolStatus, UserItem

#: The ``event_type`` of the mark.
INTERRUPTED_EVENT = "interrupted"
#: The mark under a round whose local calls the user stopped: its answers wait.
HELD = "Interrupted by you · the agent hears of it with your next message"
#: :data:`HELD` once the next message went, with the answers (and so read from history).
TOLD = "Interrupted by you · the agent heard of it with your next message"
#: :data:`HELD` once the user quit: the answers go before the app ends.
TOLD_ON_QUIT = "Interrupted by you · the agent is told as you quit"
#: The same, as the user leaves the chat for another.
TOLD_ON_LEAVING = "Interrupted by you · the agent is told as you leave this chat"
#: :data:`TOLD_ON_QUIT` (or :data:`TOLD_ON_LEAVING`) read from history: the agent answered
#: the stopped calls at once.
TOLD_AT_ONCE = "Interrupted by you · the agent was told at once"


def returned_status(status: str | None, tool_return: str | None) -> ToolStatus:
    """The status of a call that returned (not denied): a call the user stopped (as
    openletta reports it, edited first or not, with what it printed or not) is cancelled."""
    if status != "error":
        return ToolStatus.SUCCESS
    return ToolStatus.CANCELLED if reports_interruption(tool_return) else ToolStatus.ERROR


def interruption_mark(key: str) -> EventItem:
    """A new mark, as history first reads it (the agent heard of it with the next message)."""
    return EventItem(key=key, event_type=INTERRUPTED_EVENT, text=TOLD)


def marked(items: Sequence[Item], call: ToolCallItem) -> bool:
    """Whether the turn of ``call`` shows a mark after it (one put live, say)."""
    try:
        start = items.index(call)
    except ValueError:
        return False
    for item in items[start + 1:]:
        if isinstance(item, UserItem):
            return False
        if isinstance(item, EventItem) and item.event_type == INTERRUPTED_EVENT:
            return True
    return False
