"""The approval side of a conversation's turns: asking the server which calls wait, answering
what the session's rules decide, prompting the user about the rest, running the approved
calls of local tools here (Esc stops them) and sending the answers.

No Textual here. :class:`~openletta.chat.controller.ChatController` holds one, shares its
:class:`~openletta.chat.turn_tasks.TurnTasks` with it, and gives it the steps of the turn
flow that a round continues into (``converse``, ``after``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable

from openletta.api.errors import APIConnectionError, LettaError
from openletta.chat.approvals import CANCELLED_REASON, ApprovalRound, Choice, Decision
from openletta.chat.replies import TurnOutcome
from openletta.chat.turn_state import Phase
from openletta.chat.turn_tasks import TurnTasks
from openletta.tools.base import STOPPED, ToolOutcome
from openletta.tools.output import Capture
from openletta.transcript import ToolCallItem
from openletta.transcript.interruption import HELD

log = logging.getLogger(__name__)

APPROVAL_FIRST = "Answer the pending approval request first; your message is still in the prompt."
ANSWERS_ARRIVED = ("The answers had reached the server after all (the connection broke before "
                   "it answered): they were not sent again, and the agent's reply is shown.")


#: Sends a message, then each queued one after a clean end (``None``: nothing to send).
Converse = Callable[[str | None], Awaitable[None]]
#: What follows a turn that ended; the next message to send, if any.
After = Callable[[TurnOutcome], Awaitable[str | None]]
#: Follows the conversation's running reply, if any, then asks about approvals or sends the
#: queue (what a round whose answers arrived after all goes on with).
CatchUp = Callable[[], Awaitable[None]]


def answers_not_sent(error: LettaError) -> str:
    """What to say of a round's answers whose request failed: they may have arrived."""
    if isinstance(error, APIConnectionError) and error.may_have_arrived:
        return ("Maybe not sent: the connection broke before the server answered, so it may "
                "have the answers; openletta looks there before sending them again. "
                f"{error.message}")
    return f"Not sent: {error.message}"


class ApprovalFlow:
    """Approval rounds: the user's answers, the rules' answers, local calls, the reply."""

    def __init__(self, tasks: TurnTasks, *, converse: Converse, after: After,
                 catch_up: CatchUp) -> None:
        self._tasks = tasks
        self._converse = converse
        self._after = after
        self._catch_up = catch_up

    # --- intents --------------------------------------------------------------------------

    def decide(self, call: ToolCallItem, choice: Choice, reason: str | None = None,
               edited: str | None = None) -> None:
        """The user answered the prompt about ``call`` (``edited``: the text it runs with,
        for :attr:`Choice.EDIT`)."""
        round_ = self._tasks.round
        if round_ is None or self._tasks.state.phase is not Phase.AWAITING_APPROVAL:
            return
        if call.tool_call_id in round_.results and choice is not Choice.APPROVE:
            return  # it ran here: its result can only be sent (again)
        if choice is Choice.EDIT:
            local = self._tasks.local
            if not edited or local is None or local.editable(call) is None:
                return
            self._tasks.listener.transcript_changed(self._tasks.session.transcript.edit_local(
                call.tool_call_id, local.edited_arguments(call, edited)))
            round_.decide(call, Decision(approve=True, edited=True))
            self._answer_or_ask()
            return
        if choice is Choice.ALWAYS_ALLOW and call.runs_here and self._tasks.local is not None:
            self._tasks.local.permissions.allow_always(call.name)
            self._tasks.listener.report(
                f"{call.name} now runs without asking in {self._tasks.local.workspace.root} "
                "(revoke it in /approvals).", title="Always allowed", severity="information")
            choice = Choice.APPROVE_FOR_SESSION
        if choice is Choice.ALWAYS_ALLOW:
            self._tasks.start_side_task(lambda: self._allow_always(call))
            return
        if choice is Choice.DENY:
            round_.decide(call, Decision(approve=False, reason=reason or None))
        else:
            round_.decide(call, Decision(approve=True))
        if choice is Choice.APPROVE_ALL:
            round_.decide_rest(Decision(approve=True))
        elif choice is Choice.APPROVE_FOR_SESSION:
            self._allow_for_session(call)
        self._answer_or_ask()

    def leave(self, *, deny: bool, quitting: bool) -> None:
        """The user leaves the open prompt: deny what waits (and maybe quit once the answers
        are sent), or leave it pending for later (and maybe quit now)."""
        if self._tasks.round is None:
            if quitting:
                self._tasks.listener.leave_now()
            return
        if deny:
            self._tasks.leave_when_answered = quitting
            self._tasks.round.decide_rest(Decision(approve=False, reason=CANCELLED_REASON))
            self._answer_or_ask()
        else:
            self._tasks.update(asking=None)
            if quitting:
                self._tasks.listener.leave_now()

    # --- the round ------------------------------------------------------------------------

    async def approvals(self) -> str | None:
        """Ask the server which calls wait; answer at once what the session's rules allow,
        else wait for the user (the turn task ends; :meth:`decide` goes on). With none
        waiting, the next queued message is returned to be sent."""
        self._tasks.update(phase=Phase.AWAITING_APPROVAL, asking=None)
        try:
            round_ = await self._tasks.session.pending_round(self._tasks.on_change,
                                                             self._tasks.auto_approve)
        except LettaError as error:
            self._tasks.return_queue()
            self._tasks.update(phase=Phase.IDLE)
            self._tasks.listener.report(
                f"Could not read the pending approval request: {error.message}",
                title="Error", notice=True)
            return None
        self._tasks.round = round_
        if round_ is None:
            if self._tasks.queue:
                return self._tasks.queue.popleft()
            self._tasks.update(phase=Phase.IDLE)
            return None
        self._judge_local(round_)
        if round_.complete:
            return await self._answer()
        if self._tasks.queue:
            self._tasks.return_queue()
            self._tasks.listener.report(APPROVAL_FIRST, title="Approval pending",
                                        severity="warning")
        self.ask()
        return None

    async def _answer(self) -> str | None:
        """Send the round's answers and stream the continuation."""
        round_ = self._tasks.round
        assert round_ is not None
        if round_.to_run_here() and await self._run_here(round_) and not (
                self._tasks.leave_when_answered):
            self._hold(round_)
            return None
        self._tasks.update(phase=Phase.ANSWERING, asking=None, undecided=0, answer_error=None,
                           stop_reason=None, connection=None)
        try:
            outcome = await self._tasks.session.answer_round(round_, self._tasks.on_change,
                                                             self._tasks.on_connection)
        except LettaError as error:
            round_.reset()
            round_.maybe_sent = isinstance(error, APIConnectionError) and error.may_have_arrived
            if self._tasks.leave_when_answered:  # quitting: the calls stay pending there
                self._tasks.listener.leave_now()
                return None
            self._tasks.update(phase=Phase.AWAITING_APPROVAL,
                               answer_error=answers_not_sent(error),
                               offline=isinstance(error, APIConnectionError))
            self.ask()
            return None
        self._tasks.round = None
        if self._tasks.leave_when_answered:
            self._tasks.listener.leave_now()
            return None
        return await self._after(outcome)

    async def answer_then_converse(self) -> None:
        """Send the open round's answers, then go on as the reply says. Answers whose
        request broke after it may have arrived are looked for on the server first: found,
        they are not sent again (Letta would answer a second copy with a step of its own),
        and what the agent made of them is shown instead."""
        if not await self._found_on_server():
            await self._converse(await self._answer())

    async def _found_on_server(self) -> bool:
        """Whether the open round's answers, maybe sent, are on the server (then its reply
        is shown and followed). A failed look keeps the round asking (``True`` too)."""
        round_ = self._tasks.round
        if round_ is None or not round_.maybe_sent:
            return False
        self._tasks.update(phase=Phase.ANSWERING, asking=None, undecided=0, answer_error=None)
        try:
            found = await self._tasks.session.show_if_stored(round_.answered_by,
                                                             self._tasks.on_change)
        except LettaError as error:
            round_.reset()
            self._tasks.update(phase=Phase.AWAITING_APPROVAL, answer_error=(
                f"Maybe not sent: openletta could not look whether the server has the "
                f"answers. {error.message}"), offline=isinstance(error, APIConnectionError))
            self.ask()
            return True
        round_.maybe_sent = False
        if not found:
            return False
        self._tasks.round = None
        self._tasks.listener.report(ANSWERS_ARRIVED, title="Sent", severity="information",
                                    notice=True)
        if self._tasks.leave_when_answered:
            self._tasks.listener.leave_now()
            return True
        self._tasks.update(phase=Phase.WAITING)
        await self._catch_up()
        return True

    async def approvals_then_converse(self) -> None:
        await self._converse(await self.approvals())

    async def _run_here(self, round_: ApprovalRound) -> bool:
        """Run the round's approved local calls, one by one; ``True`` when Esc stopped them.
        Esc stops the one running; it and the ones after it are reported to the agent as
        interrupted. The agent hears of a call the user edited first. A call its tool
        refuses as things stand fails unrun (:meth:`_fail_unrun`)."""
        local = self._tasks.local
        assert local is not None
        self._tasks.update(phase=Phase.RUNNING, asking=None, undecided=0, answer_error=None)
        transcript = self._tasks.session.transcript
        for call in round_.to_run_here():
            call_id = call.tool_call_id
            failure = None if self._tasks.tools_interrupted else local.certain_failure(call)
            if failure is not None:  # (known now that the calls before it ran)
                self._fail_unrun(round_, call, failure)
                continue
            outcome = STOPPED
            if not self._tasks.tools_interrupted:
                self._tasks.listener.transcript_changed(transcript.start_local(call_id))
                outcome = await self._run_one(call)
            told = outcome
            if round_.decisions[call_id].edited:
                told = dataclasses.replace(outcome, text=local.edited_result(call, outcome.text))
            round_.results[call_id] = told
            self._tasks.listener.transcript_changed(transcript.finish_local(
                call_id, outcome.text, ok=outcome.ok, stdout=outcome.stdout))
        stopped, self._tasks.tools_interrupted = self._tasks.tools_interrupted, False
        return stopped

    def _hold(self, round_: ApprovalRound) -> None:
        """Esc stopped the round's local calls: the turn stops there. The answers wait, to
        go with the user's next message, so that the agent hears of the interruption
        without answering it on its own. What else the round approved does not run."""
        transcript = self._tasks.session.transcript
        for call in round_.calls:
            decision = round_.decisions.get(call.tool_call_id)
            if call.tool_call_id not in round_.results and (decision is None or decision.approve):
                round_.decide(call, Decision(approve=False, reason=CANCELLED_REASON))
                self._tasks.listener.transcript_changed(transcript.record_decisions(
                    {call.tool_call_id: (False, CANCELLED_REASON)}))
        self._tasks.round, self._tasks.held = None, round_
        self._tasks.listener.transcript_changed(transcript.end_stream("interrupted", HELD))
        self._tasks.return_queue()
        self._tasks.update(phase=Phase.IDLE, asking=None, undecided=0, answer_error=None,
                           stop_reason="interrupted")

    async def _run_one(self, call: ToolCallItem) -> ToolOutcome:
        """Run one local call in a task of its own, which Esc (or closing) cancels; what it
        printed until then is what the agent is told of it, and what its card shows."""
        local = self._tasks.local
        assert local is not None
        transcript, call_id = self._tasks.session.transcript, call.tool_call_id
        budget = local.budget(call, self._tasks.session.agent.context_window)
        printed = Capture()

        def heard(text: str) -> None:
            printed.add(text)
            self._tasks.listener.transcript_changed(transcript.local_output(call_id, text))

        task = asyncio.get_running_loop().create_task(local.run(call, heard, budget))
        self._tasks.tool_task = task
        try:
            await asyncio.wait([task])
        finally:
            self._tasks.tool_task = None
            if not task.done():  # the turn itself was cancelled: stop the call too
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task.cancelled():
            return local.stopped(printed, budget)
        if (error := task.exception()) is not None:
            log.error("a local call failed", exc_info=error)
            return ToolOutcome(f"openletta could not run the call: {error!r}", ok=False)
        return task.result()

    def _judge_local(self, round_: ApprovalRound) -> None:
        """Mark the round's calls of local tools (with what they would change), and answer
        those the permission mode or a rule of the user decides. The user is not asked about
        a call bound to fail: it fails, unrun (unless another local call of the round, run
        first, might change that)."""
        local = self._tasks.local
        if local is None:
            return
        calls = [call for call in round_.calls if local.tool_of(call) is not None]
        transcript = self._tasks.session.transcript
        local.keep_pins_of(calls)
        for call in calls:
            local.pin(call)
            if not call.runs_here:
                self._tasks.listener.transcript_changed(transcript.mark_local(
                    call.tool_call_id, local.preview(call)))
            if call.tool_call_id in round_.decisions or self._judge(round_, call):
                continue
            if len(calls) == 1 and (failure := local.certain_failure(call)) is not None:
                self._fail_unrun(round_, call, failure)

    def _fail_unrun(self, round_: ApprovalRound, call: ToolCallItem,
                    failure: ToolOutcome) -> None:
        """``call`` is bound to fail (its tool refuses it as things stand): it fails without
        running, whoever would have approved it. No approval is shown for it (it did not
        matter), in "ask" as when a mode or rule allowed it: not "auto-approved", which reads
        as if something was let happen, nor "approved"."""
        round_.decide(call, Decision(approve=True, refused=True))
        round_.results[call.tool_call_id] = failure
        self._tasks.listener.transcript_changed(self._tasks.session.transcript.finish_local(
            call.tool_call_id, failure.text, ok=False, stdout=failure.stdout))

    def _judge(self, round_: ApprovalRound, call: ToolCallItem) -> bool:
        """Answer ``call`` as the permission mode or a rule of the user decides it (run, or
        deny with the reason the agent reads); ``False`` when they leave it to the user."""
        assert self._tasks.local is not None
        verdict = self._tasks.local.verdict(call)
        if verdict.allow is None:
            return False
        round_.decide(call, Decision(approve=verdict.allow, reason=verdict.reason, auto=True))
        return True

    def _answer_or_ask(self) -> None:
        """Send the answers once every call has one; else ask about the next call."""
        assert self._tasks.round is not None
        if self._tasks.round.complete:
            self._tasks.update(phase=Phase.ANSWERING, asking=None, undecided=0, answer_error=None)
            self._tasks.start_turn(self.answer_then_converse)
        else:
            self._tasks.update(answer_error=None)
            self.ask()

    def ask(self) -> None:
        """Open the prompt on the first call still without an answer; when every call has
        one (they ran here, and sending their results failed), on the first, to send again."""
        round_ = self._tasks.round
        if round_ is None or not round_.calls:
            return
        waiting = round_.undecided
        self._tasks.update(asking=(waiting or round_.calls)[0], undecided=len(waiting))

    def resend(self) -> None:
        """The server can be reached again: send the answers that did not go through, if
        nothing else waits for the user."""
        if self._tasks.round is not None and self._tasks.round.complete:
            self._answer_or_ask()

    def _allow_for_session(self, call: ToolCallItem) -> None:
        assert self._tasks.round is not None
        if call.runs_here and self._tasks.local is not None:
            self._tasks.local.permissions.session.add(call.name)
            self._judge_local(self._tasks.round)  # a call outside the directory still asks
            return
        self._tasks.auto_approve.add(call.name)
        self._tasks.round.decide_rest(Decision(approve=True, auto=True), tool=call.name)

    async def _allow_always(self, call: ToolCallItem) -> None:
        """Store "no approval needed" for the tool on the server, then approve the call."""
        agent = self._tasks.session.agent
        try:
            await self._tasks.session.client.set_tool_approval(agent.id, call.name, False)
        except LettaError as error:
            self._tasks.update(answer_error=f"The server kept the rule: {error.message}")
            return
        self._tasks.listener.report(
            f"{call.name} no longer needs approval for {agent.name or agent.id}. The rule is "
            "stored on the server, so it holds in every client.", title="Always allowed",
            severity="information")
        if self._tasks.round is not None and call in self._tasks.round.undecided:
            self._tasks.round.decide(call, Decision(approve=True))
            # The rule holds from now on: the round's other calls of the tool are answered.
            self._tasks.round.decide_rest(Decision(approve=True, auto=True), tool=call.name)
            self._answer_or_ask()
