"""What the client sends to answer a round of pending tool calls: one answer per call, an
approval decision or the result of a call run here (see
:meth:`~openletta.api.client.LettaClient.send_approvals`).
"""

from __future__ import annotations

import re
from typing import Literal

import pydantic

#: What the agent is told of a call of a client-side tool that the user stopped (Esc), at
#: the start of a line of the call's result: a note may come before it (that the user edited
#: the call), and what the call printed before it stopped after it. The transcript shows a
#: call whose result says it (:func:`reports_interruption`) as cancelled, live and in history.
INTERRUPTED = "Interrupted by the user: the call was stopped before it finished."
_INTERRUPTED_LINE = re.compile(rf"^{re.escape(INTERRUPTED)}", re.MULTILINE)


def reports_interruption(tool_return: str | None) -> bool:
    """Whether a call's result says the user stopped it: a line of it begins with
    :data:`INTERRUPTED`, whatever text comes before or after."""
    return tool_return is not None and _INTERRUPTED_LINE.search(tool_return) is not None


class ApprovalAnswer(pydantic.BaseModel):
    """The user's decision on one pending tool call."""

    type: Literal["approval"] = "approval"
    tool_call_id: str
    approve: bool
    reason: str | None = None


class ToolReturnAnswer(pydantic.BaseModel):
    """The result of a pending call of a client-side tool, run here."""

    type: Literal["tool"] = "tool"
    tool_call_id: str
    tool_return: str
    status: Literal["success", "error"]
    stdout: list[str] | None = None
    stderr: list[str] | None = None


#: One entry of the answer to a round of pending calls.
Answer = ApprovalAnswer | ToolReturnAnswer
