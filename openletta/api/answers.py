"""What the client sends to answer a round of pending tool calls: one answer per call, an
approval decision or the result of a call run here (see
:meth:`~openletta.api.client.LettaClient.send_approvals`).
"""

from __future__ import annotations

from typing import Literal

import pydantic

#: What the agent is told of a call of a client-side tool that the user stopped (Esc). The
#: transcript shows a call that returned it as cancelled, live and in history.
INTERRUPTED = "Interrupted by the user: the call was stopped before it finished."


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
