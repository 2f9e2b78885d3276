"""One round of tool-call approvals: which calls the server holds pending and the answers so far.

No Textual here. The agent's ``pending_approval`` (not what the stream showed) says which calls
wait; the reply must cover exactly those, so a round collects one decision per call before
anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from openletta.api.answers import Answer, ApprovalAnswer, ToolReturnAnswer
from openletta.api.messages import ApprovalResponseMessage, Message, ToolReturnMessage
from openletta.tools.base import ToolOutcome
from openletta.transcript import ToolCallItem
from openletta.transcript.approval_notes import NO_REASON

#: The reason sent when the user leaves an open prompt by denying it.
CANCELLED_REASON = "cancelled by user"


class Choice(StrEnum):
    """What the user answered on an approval prompt."""

    APPROVE = "approve"
    APPROVE_FOR_SESSION = "session"
    ALWAYS_ALLOW = "always"
    DENY = "deny"
    APPROVE_ALL = "all"
    #: Approve the call as the user edited it (a call run here with an editable argument).
    EDIT = "edit"


@dataclass(frozen=True)
class Decision:
    """The answer for one call; ``auto`` when a session rule answered it, not the user."""

    approve: bool
    reason: str | None = None
    auto: bool = False
    #: The user edited the call before approving it.
    edited: bool = False
    #: Its tool refused the call before it ran (it failed unrun): nobody's approval
    #: mattered, and the transcript records none.
    refused: bool = False


@dataclass
class ApprovalRound:
    """The calls the server waits on, in display order, and the decisions taken so far."""

    calls: list[ToolCallItem]
    decisions: dict[str, Decision] = field(default_factory=dict)
    #: What the calls run here gave (they ran: their results are sent whatever comes next).
    results: dict[str, ToolOutcome] = field(default_factory=dict)
    #: The answers' request broke after it may have reached the server: it is looked for
    #: there before they are sent again.
    maybe_sent: bool = False

    @property
    def undecided(self) -> list[ToolCallItem]:
        """Calls still waiting for an answer, in display order."""
        return [call for call in self.calls if call.tool_call_id not in self.decisions]

    @property
    def complete(self) -> bool:
        """Whether every pending call has an answer (the reply can be sent)."""
        return not self.undecided

    def decide(self, call: ToolCallItem, decision: Decision) -> None:
        """Answer ``call`` (a call of this round)."""
        self.decisions[call.tool_call_id] = decision

    def withdraw(self, call: ToolCallItem) -> None:
        """Forget the answer for ``call`` (it waits for one again)."""
        self.decisions.pop(call.tool_call_id, None)

    def decide_rest(self, decision: Decision, *, tool: str | None = None) -> list[ToolCallItem]:
        """Answer every undecided call (of ``tool`` only, if given); returns those calls."""
        calls = [call for call in self.undecided if tool is None or call.name == tool]
        for call in calls:
            self.decide(call, decision)
        return calls

    def to_run_here(self) -> list[ToolCallItem]:
        """Approved calls of tools run here that have not run yet, in order."""
        return [call for call in self.calls if call.runs_here
                and call.tool_call_id not in self.results
                and self.decisions.get(call.tool_call_id, Decision(False)).approve]

    def reset(self) -> None:
        """Forget the decisions (the reply was not accepted: ask again) but those of the
        calls that ran here: they ran, their results stay and are what is sent."""
        self.decisions = {call_id: decision for call_id, decision in self.decisions.items()
                          if call_id in self.results}

    def answered_by(self, message: Message) -> bool:
        """Whether ``message``, stored on the server, answers a call of this round."""
        ids = {call.tool_call_id for call in self.calls}
        if isinstance(message, ApprovalResponseMessage):
            return any(entry.tool_call_id in ids for entry in message.approvals)
        if isinstance(message, ToolReturnMessage):
            return any(entry.tool_call_id in ids for entry in message.tool_returns)
        return False

    def answers(self) -> list[Answer]:
        """The reply: one answer per pending call (the round must be complete)."""
        return [self._answer(call) for call in self.calls]

    def _answer(self, call: ToolCallItem) -> Answer:
        outcome = self.results.get(call.tool_call_id)
        if outcome is not None:
            return ToolReturnAnswer(tool_call_id=call.tool_call_id, tool_return=outcome.text,
                                    status="success" if outcome.ok else "error",
                                    stdout=outcome.stdout, stderr=outcome.stderr)
        decision = self.decisions[call.tool_call_id]
        return ApprovalAnswer(tool_call_id=call.tool_call_id, approve=decision.approve,
                              reason=None if decision.approve
                              else (decision.reason or "").strip() or NO_REASON)
