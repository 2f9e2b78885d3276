"""The turns of one conversation: a state machine the UI drives with intents.

No Textual here. :class:`ChatController` owns everything about a conversation's turns: the
phase (idle → sending → streaming → awaiting approval → answering → … → idle), the message on
its way, the queue of messages typed meanwhile, the open approval round, the session's
"don't ask again" rules, interrupts and quitting. The UI calls the intents (:meth:`submit`,
:meth:`decide`, :meth:`leave`, :meth:`interrupt`, :meth:`opened`, :meth:`close`) and
renders what the controller reports to its
:class:`~openletta.chat.turn_state.TurnListener`; it keeps no turn state.

The network work runs in asyncio tasks the controller owns (at most one turn task at a
time), so an interrupt or a failure in any phase leaves one consistent state behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from openletta.api.errors import APIConnectionError, ConversationBusyError, LettaError
from openletta.chat.approvals import CANCELLED_REASON, ApprovalRound, Choice, Decision
from openletta.chat.local_calls import LocalCalls
from openletta.chat.session import FOREGROUND_ONLY, ChatSession, TurnOutcome
from openletta.chat.turn_state import Phase, TurnListener, TurnState
from openletta.tools.base import INTERRUPTED, ToolOutcome
from openletta.tools.permissions import PermissionMode
from openletta.transcript import Change, ToolCallItem

log = logging.getLogger(__name__)

#: Stop reasons after which queued messages are sent.
CLEAN_STOPS = frozenset({"end_turn", "max_steps", "no_tool_call"})
APPROVAL_FIRST = "Answer the pending approval request first; your message is still in the prompt."
FOREGROUND_NOTICE = ("The server cannot run replies in the background (self-hosted Letta needs "
                     "Redis for it): a reply whose connection drops cannot be resumed.")
#: The divider above a reply that was already going when it was followed.
FOLLOWING_OPENED = "Reply in progress when this chat opened"
FOLLOWING_BUSY = "Reply in progress elsewhere; your message waits for it"
#: How long a message waits for a busy conversation before it is given back.
BUSY_WAIT_SECONDS = 120.0
#: Seconds between two looks at whether a busy conversation is free.
BUSY_POLL_SECONDS = (0.5, 1.0, 2.0, 3.0)

#: Work for a task, made when the task starts (a task cancelled first never makes it).
Work = Callable[[], Awaitable[object]]


class ChatController:
    """The turn state of one conversation (see the module docstring)."""

    def __init__(self, session: ChatSession, listener: TurnListener,
                 local: LocalCalls | None = None) -> None:
        self.session = session
        self._listener = listener
        #: The tools run here (``None``: none are declared to the agent).
        self.local = local
        session.client_tools = local.declarations() if local is not None else []
        self._state = TurnState(permission_mode=local.mode if local is not None else None)
        self._queue: deque[str] = deque()
        self._round: ApprovalRound | None = None
        #: Tools the user approved "for this session": their requests are answered at once.
        self.auto_approve: set[str] = set()
        self._quit_when_answered = False
        self._turn: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()
        #: The local call running now, and whether Esc stopped the local calls of the round.
        self._tool_task: asyncio.Task[ToolOutcome] | None = None
        self._tools_interrupted = False

    @property
    def state(self) -> TurnState:
        return self._state

    # --- intents ----------------------------------------------------------------------------

    def submit(self, text: str) -> None:
        """The user sent ``text``: send it now, queue it, or keep it while approvals wait."""
        phase = self._state.phase
        if phase is Phase.IDLE:
            self._update(phase=Phase.SENDING, sending=text, offline=False, stop_reason=None,
                         connection=None)
            self._start_turn(lambda: self._converse(text))
        elif phase is Phase.AWAITING_APPROVAL and self._round is not None:
            self._listener.restore_prompt(text)
            self._listener.report(APPROVAL_FIRST, title="Approval pending", severity="warning")
            self._ask()
        else:
            self._queue.append(text)
            self._publish()

    def opened(self) -> None:
        """History loaded: follow a reply still going in this conversation (the chat was
        left mid-reply, or another client started it), then ask about calls the agent
        waits on. A message typed meanwhile is sent after that."""
        if self._state.phase is Phase.IDLE:
            self._update(phase=Phase.WAITING)
            self._start_turn(self._catch_up)

    def decide(self, call: ToolCallItem, choice: Choice, reason: str | None = None) -> None:
        """The user answered the prompt about ``call``."""
        round_ = self._round
        if round_ is None or self._state.phase is not Phase.AWAITING_APPROVAL:
            return
        if choice is Choice.ALWAYS_ALLOW and call.runs_here and self.local is not None:
            self.local.permissions.allow_always(call.name)
            self._listener.report(
                f"{call.name} now runs without asking in {self.local.workspace.root} (revoke "
                "it in /approvals).", title="Always allowed", severity="information")
            choice = Choice.APPROVE_FOR_SESSION
        if choice is Choice.ALWAYS_ALLOW:
            self._start_side_task(lambda: self._allow_always(call))
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
        if self._round is None:
            if quitting:
                self._listener.exit_app()
            return
        if deny:
            self._quit_when_answered = quitting
            self._round.decide_rest(Decision(approve=False, reason=CANCELLED_REASON))
            self._answer_or_ask()
        else:
            self._update(asking=None)
            if quitting:
                self._listener.exit_app()

    def quit_after_local_calls(self) -> bool:
        """The user quits while local calls run: stop them, tell the agent, then exit
        (``True``). ``False`` when none run (the UI quits as usual)."""
        if self._state.phase is not Phase.RUNNING:
            return False
        self._quit_when_answered = True
        self.interrupt()
        return True

    def switch_mode(self) -> PermissionMode | None:
        """Go to the next permission mode for local calls (``None``: there are none)."""
        if self.local is None:
            return None
        mode = self.local.permissions.next_mode()
        self._update(permission_mode=mode)
        return mode

    def interrupt(self) -> None:
        """Esc: stop the request in flight. What arrived stays, marked interrupted; a message
        the server never accepted goes back to the prompt; the run is cancelled on the server.
        Local calls running are stopped, and the agent is told (the answers still go).
        """
        phase = self._state.phase
        if phase is Phase.RUNNING:
            self._tools_interrupted = True
            if self._tool_task is not None:
                self._tool_task.cancel()
            return
        if not phase.busy:
            return
        run_id, opened, unsent = self.session.run_id, self.session.turn_open, self._state.sending
        accepted_maybe = opened or phase is Phase.SENDING
        self._cancel_turn()
        self._listener.transcript_changed(self.session.interrupt())
        if unsent is not None and not opened:
            self._listener.restore_prompt(unsent)
        self._return_queue()
        self._round = None
        self._quit_when_answered = False
        self._update(phase=Phase.IDLE, sending=None, asking=None, undecided=0,
                     answer_error=None, stop_reason="interrupted")
        if phase is Phase.ANSWERING:  # whether the server took the answers, it alone knows
            self._update(phase=Phase.AWAITING_APPROVAL)
            self._start_turn(lambda: self._cancel_then_check(run_id))
        elif accepted_maybe:  # (waiting for a busy conversation stops only the waiting)
            self._start_side_task(lambda: self._cancel_on_server(run_id))

    async def close(self) -> None:
        """Stop everything the controller runs (the chat is closing)."""
        tasks = [task for task in (self._turn, self._tool_task, *self._side_tasks)
                 if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- the turn task ----------------------------------------------------------------------

    async def _converse(self, text: str | None) -> None:
        """Send ``text``, then each queued message after a clean end, until one stops."""
        while text is not None:
            outcome = await self._send(text)
            if outcome is None:
                return
            text = await self._after(outcome)

    async def _send(self, text: str) -> TurnOutcome | None:
        """Send ``text`` (waiting while the conversation is busy); ``None`` if not sent."""
        self._update(phase=Phase.SENDING, sending=text, offline=False, stop_reason=None,
                     connection=None)
        try:
            return await self._send_when_free(text)
        except LettaError as error:
            self._update(phase=Phase.IDLE, sending=None,
                         offline=isinstance(error, APIConnectionError))
            self._listener.restore_prompt(text)
            self._return_queue()
            self._listener.report(f"Not sent: {error.message}", title="Send failed",
                                  notice=True)
            return None

    async def _send_when_free(self, text: str) -> TurnOutcome:
        """Send ``text``. While the server says the conversation is busy, follow the run
        that holds it (``text`` then waits in the queue, and the followed run's outcome is
        returned: :meth:`_after` sends it), or wait and retry."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_WAIT_SECONDS
        pauses = iter(BUSY_POLL_SECONDS)
        while True:
            try:
                return await self.session.stream_turn(text, self._on_change,
                                                      self._on_connection)
            except ConversationBusyError as busy:
                if loop.time() > deadline:
                    raise
                self._queue.appendleft(text)
                self._update(phase=Phase.WAITING, sending=None)
                followed = await self._follow_active(busy.run_id, FOLLOWING_BUSY)
                if followed is not None:
                    return followed
                self._update(phase=Phase.WAITING, sending=self._queue.popleft())
            await asyncio.sleep(next(pauses, BUSY_POLL_SECONDS[-1]))
            self._update(phase=Phase.SENDING, sending=text)

    async def _catch_up(self) -> None:
        """Follow the conversation's running reply, if any; then approvals, then the queue."""
        followed = await self._follow_active(None, FOLLOWING_OPENED)
        if followed is not None:
            await self._converse(await self._after(followed))
        elif self.session.transcript.awaiting_approval:
            await self._approvals_then_converse()
        else:
            self._update(phase=Phase.IDLE)
            await self._converse(self._queue.popleft() if self._queue else None)

    async def _follow_active(self, run_id: str | None, note: str) -> TurnOutcome | None:
        """Show the run going on in this conversation (``run_id``, when the server named
        it) live, or once it ended when its stream cannot be followed; ``None`` when none
        runs (or the server cannot say)."""
        try:
            run = await self.session.active_run(run_id)
        except LettaError as error:
            log.info("could not look for a running reply: %s", error.message)
            return None
        if run is None:
            return None
        self._update(phase=Phase.STREAMING, stop_reason=None, connection=None)
        outcome = await self.session.follow_run(run, note, self._on_change,
                                                self._on_connection)
        if outcome is not None:
            return outcome
        self._update(phase=Phase.WAITING)
        try:
            stop_reason = await self.session.catch_up(run, self._on_change)
        except LettaError as error:
            self._listener.report(error.message, title="Reply in progress", severity="warning")
            return None
        return TurnOutcome(sent=True, stop_reason=stop_reason)

    async def _after(self, outcome: TurnOutcome) -> str | None:
        """A turn ended: ask for approvals, or give the next queued message to send."""
        self._update(stop_reason=outcome.stop_reason)
        if outcome.error is not None:
            self._listener.report(f"The reply stopped early: {outcome.error.message}",
                                  title="Stream")
        if outcome.stop_reason == "requires_approval":
            return await self._approvals()
        if outcome.stop_reason in CLEAN_STOPS and self._queue:
            return self._queue.popleft()
        self._return_queue()
        self._update(phase=Phase.IDLE)
        return None

    async def _approvals_then_converse(self) -> None:
        await self._converse(await self._approvals())

    async def _cancel_then_check(self, run_id: str | None) -> None:
        """Cancel the interrupted continuation, then ask the server what still waits."""
        await self._cancel_on_server(run_id)
        await self._approvals_then_converse()

    async def _approvals(self) -> str | None:
        """Ask the server which calls wait; answer at once what the session's rules allow,
        else wait for the user (the turn task ends; :meth:`decide` goes on). With none
        waiting, the next queued message is returned to be sent."""
        self._update(phase=Phase.AWAITING_APPROVAL, asking=None)
        try:
            round_ = await self.session.pending_round(self._on_change, self.auto_approve)
        except LettaError as error:
            self._return_queue()
            self._update(phase=Phase.IDLE)
            self._listener.report(
                f"Could not read the pending approval request: {error.message}",
                title="Error", notice=True)
            return None
        self._round = round_
        if round_ is None:
            if self._queue:
                return self._queue.popleft()
            self._update(phase=Phase.IDLE)
            return None
        self._judge_local(round_)
        if round_.complete:
            return await self._answer()
        if self._queue:
            self._return_queue()
            self._listener.report(APPROVAL_FIRST, title="Approval pending", severity="warning")
        self._ask()
        return None

    async def _answer(self) -> str | None:
        """Send the round's answers and stream the continuation."""
        round_ = self._round
        assert round_ is not None
        if round_.to_run_here():
            await self._run_here(round_)
        self._update(phase=Phase.ANSWERING, asking=None, undecided=0, answer_error=None,
                     stop_reason=None, connection=None)
        try:
            outcome = await self.session.answer_round(round_, self._on_change,
                                                      self._on_connection)
        except LettaError as error:
            round_.reset()
            self._quit_when_answered = False
            self._update(phase=Phase.AWAITING_APPROVAL, answer_error=f"Not sent: {error.message}",
                         offline=isinstance(error, APIConnectionError))
            self._ask()
            return None
        self._round = None
        if self._quit_when_answered:
            self._listener.exit_app()
            return None
        return await self._after(outcome)

    async def _answer_then_converse(self) -> None:
        await self._converse(await self._answer())

    async def _run_here(self, round_: ApprovalRound) -> None:
        """Run the round's approved local calls, one by one. Esc stops the one running; it
        and the ones after it are reported to the agent as interrupted."""
        assert self.local is not None
        self._update(phase=Phase.RUNNING, asking=None, undecided=0, answer_error=None)
        transcript = self.session.transcript
        for call in round_.to_run_here():
            call_id = call.tool_call_id
            outcome = ToolOutcome(INTERRUPTED, ok=False)
            if not self._tools_interrupted:
                self._listener.transcript_changed(transcript.start_local(call_id))
                outcome = await self._run_one(call)
            round_.results[call_id] = outcome
            self._listener.transcript_changed(transcript.finish_local(
                call_id, outcome.text, ok=outcome.ok, stdout=outcome.stdout))
        self._tools_interrupted = False

    async def _run_one(self, call: ToolCallItem) -> ToolOutcome:
        """Run one local call in a task of its own, which Esc (or closing) cancels."""
        assert self.local is not None
        transcript, call_id = self.session.transcript, call.tool_call_id
        task = asyncio.get_running_loop().create_task(self.local.run(
            call, lambda text: self._listener.transcript_changed(
                transcript.local_output(call_id, text))))
        self._tool_task = task
        try:
            await asyncio.wait([task])
        finally:
            self._tool_task = None
            if not task.done():  # the turn itself was cancelled: stop the call too
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task.cancelled():
            return ToolOutcome(INTERRUPTED, ok=False)
        if (error := task.exception()) is not None:
            log.error("a local call failed", exc_info=error)
            return ToolOutcome(f"openletta could not run the call: {error!r}", ok=False)
        return task.result()

    def _judge_local(self, round_: ApprovalRound) -> None:
        """Mark the round's calls of local tools (with what they would change), and answer
        those the permission mode or a rule of the user decides."""
        local = self.local
        if local is None:
            return
        for call in round_.calls:
            if local.tool_of(call) is None:
                continue
            if not call.runs_here:
                self._listener.transcript_changed(
                    self.session.transcript.mark_local(call.tool_call_id, local.preview(call)))
            if call.tool_call_id not in round_.decisions:
                verdict = local.verdict(call)
                if verdict.allow is not None:
                    round_.decide(call, Decision(approve=verdict.allow, reason=verdict.reason,
                                                 auto=True))

    # --- helpers ----------------------------------------------------------------------------

    def _answer_or_ask(self) -> None:
        """Send the answers once every call has one; else ask about the next call."""
        assert self._round is not None
        if self._round.complete:
            self._update(phase=Phase.ANSWERING, asking=None, undecided=0, answer_error=None)
            self._start_turn(self._answer_then_converse)
        else:
            self._update(answer_error=None)
            self._ask()

    def _ask(self) -> None:
        """Open the prompt on the first call still without an answer."""
        round_ = self._round
        if round_ is None or not round_.undecided:
            return
        self._update(asking=round_.undecided[0], undecided=len(round_.undecided))

    def _allow_for_session(self, call: ToolCallItem) -> None:
        assert self._round is not None
        if call.runs_here and self.local is not None:
            self.local.permissions.session.add(call.name)
            self._judge_local(self._round)  # a call outside the directory still asks
            return
        self.auto_approve.add(call.name)
        self._round.decide_rest(Decision(approve=True, auto=True), tool=call.name)

    async def _allow_always(self, call: ToolCallItem) -> None:
        """Store "no approval needed" for the tool on the server, then approve the call."""
        agent = self.session.agent
        try:
            await self.session.client.set_tool_approval(agent.id, call.name, False)
        except LettaError as error:
            self._update(answer_error=f"The server kept the rule: {error.message}")
            return
        self._listener.report(
            f"{call.name} no longer needs approval for {agent.name or agent.id}. The rule is "
            "stored on the server, so it holds in every client.", title="Always allowed",
            severity="information")
        if self._round is not None and call in self._round.undecided:
            self._round.decide(call, Decision(approve=True))
            self._allow_for_session(call)
            self._answer_or_ask()

    def _on_connection(self, state: str) -> None:
        if state == FOREGROUND_ONLY:
            self._listener.report(FOREGROUND_NOTICE, title="Connection", severity="warning")
        else:
            self._update(connection=state)

    def _on_change(self, change: Change) -> None:
        if self._state.sending is not None and self.session.turn_open:
            self._update(phase=Phase.STREAMING, sending=None)
        self._listener.transcript_changed(change)

    async def _cancel_on_server(self, run_id: str | None) -> None:
        try:
            await self.session.cancel_run(run_id, self._listener.transcript_changed)
        except LettaError as error:
            self._listener.report(f"The server did not confirm the cancel: {error.message}",
                                  title="Interrupt", severity="warning")

    def _return_queue(self) -> None:
        """Held messages go back to the prompt instead of being sent after a failed turn."""
        if self._queue:
            self._listener.restore_prompt("\n\n".join(self._queue))
            self._queue.clear()
            self._publish()

    def _update(self, **changes: Any) -> None:
        self._state = dataclasses.replace(self._state, **changes, queued=tuple(self._queue))
        self._listener.turn_state_changed(self._state)

    def _publish(self) -> None:
        self._update()

    def _start_turn(self, work: Work) -> None:
        self._cancel_turn()
        self._turn = asyncio.get_running_loop().create_task(self._guard(work))

    def _cancel_turn(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
        self._turn = None

    def _start_side_task(self, work: Work) -> None:
        task = asyncio.get_running_loop().create_task(self._guard(work))
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    async def _guard(self, work: Work) -> None:
        """Run ``work``; a bug in it is reported and leaves the turn idle, never stuck."""
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("the turn failed unexpectedly")
            with contextlib.suppress(Exception):
                self._listener.transcript_changed(self.session.interrupt())
            self._round = None
            self._update(phase=Phase.IDLE, sending=None, asking=None, undecided=0)
            self._listener.report(f"Unexpected error: {error!r}", title="openletta",
                                  notice=True)
