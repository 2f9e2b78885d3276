"""The turns of one conversation: a state machine the UI drives with intents.

No Textual here. :class:`ChatController` owns everything about a conversation's turns: the
phase (idle → sending → streaming → awaiting approval → answering → … → idle), the message on
its way, the queue of messages typed meanwhile, the open approval round, the session's
"don't ask again" rules, interrupts and quitting. The UI calls its intents (:meth:`submit`,
:meth:`decide`, :meth:`interrupt`, :meth:`typing`, :meth:`returned`, …) and renders what it
reports to its :class:`~openletta.chat.turn_state.TurnListener`; it keeps no turn state.

The network work runs in asyncio tasks the controller owns (at most one turn task at a
time), so an interrupt or a failure in any phase leaves one consistent state behind.

The controller is made of parts: a :class:`~openletta.chat.turn_tasks.TurnTasks` (the
state, what is reported, the tasks), shared with an
:class:`~openletta.chat.approval_flow.ApprovalFlow` (approval rounds and the calls run here),
a :class:`~openletta.chat.stopped_sends.StoppedSends` (Esc before the server answered a
request), a :class:`~openletta.chat.maybe_sent.MaybeSent` (a message whose request broke,
looked for on the server), and this module's own: the other intents and the turn flow
(sending, following a reply that is going, what comes after a turn).
"""

from __future__ import annotations

import asyncio
import logging

from openletta.api.errors import APIConnectionError, ConversationBusyError, LettaError
from openletta.api.resources import Compaction
from openletta.chat.approval_flow import APPROVAL_FIRST, ApprovalFlow
from openletta.chat.approvals import Choice
from openletta.chat.local_calls import LocalCalls
from openletta.chat.maybe_sent import MaybeSent
from openletta.chat.replies import SendInFlight, TurnOutcome
from openletta.chat.session import ChatSession, Outgoing
from openletta.chat.stopped_sends import StoppedSends
from openletta.chat.turn_state import Phase, TurnListener, TurnState
from openletta.chat.turn_tasks import CLEAN_STOPS, TurnTasks, went_on
from openletta.tools.permissions import PermissionMode
from openletta.transcript import ToolCallItem
from openletta.transcript.interruption import HELD, TOLD, TOLD_ON_LEAVING, TOLD_ON_QUIT

log = logging.getLogger(__name__)

#: The divider above a reply that was already going when it was followed.
FOLLOWING_OPENED = "Reply in progress when this chat opened"
FOLLOWING_BUSY = "Reply in progress elsewhere; your message waits for it"
#: The phases whose request the server may not have answered yet when Esc comes.
_SENT_IN = (Phase.SENDING, Phase.ANSWERING)
#: How long a message waits for a busy conversation before it is given back.
BUSY_WAIT_SECONDS = 120.0
#: Seconds between two looks at whether a busy conversation is free.
BUSY_POLL_SECONDS = (0.5, 1.0, 2.0, 3.0)


class ChatController:
    """The turn state of one conversation (see the module docstring)."""

    def __init__(self, session: ChatSession, listener: TurnListener,
                 local: LocalCalls | None = None) -> None:
        self._tasks = TurnTasks(session, listener, local)
        self._tasks.on_back_online = self._back_online
        self._unwatch = session.client.watch_reachability(self._tasks.note_reachable)
        self._approvals = ApprovalFlow(self._tasks, converse=self._converse, after=self._after,
                                       catch_up=self._catch_up)
        self._stops = StoppedSends(self._tasks)
        self._maybe_sent = MaybeSent(self._tasks, catch_up=self._catch_up)

    @property
    def session(self) -> ChatSession:
        return self._tasks.session

    @property
    def local(self) -> LocalCalls | None:
        """The tools run here (``None``: none are declared to the agent)."""
        return self._tasks.local

    @property
    def state(self) -> TurnState:
        """The turn state last reported."""
        return self._tasks.state

    @property
    def auto_approve(self) -> set[str]:
        """Tools the user approved "for this session": their requests are answered at once."""
        return self._tasks.auto_approve

    @property
    def turn_running(self) -> bool:
        """Whether a task of the turn runs (sending, streaming, answering, running tools)."""
        return self._tasks.turn_running

    async def close(self) -> None:
        """Stop everything the controller runs (the chat is closing)."""
        self._unwatch()
        await self._tasks.close()

    # --- intents --------------------------------------------------------------------------

    def decide(self, call: ToolCallItem, choice: Choice, reason: str | None = None,
               edited: str | None = None) -> None:
        """The user answered the prompt about ``call`` (see :meth:`ApprovalFlow.decide`)."""
        self._approvals.decide(call, choice, reason, edited)

    def leave(self, *, deny: bool, quitting: bool) -> None:
        """The user leaves the open approval prompt (see :meth:`ApprovalFlow.leave`)."""
        self._approvals.leave(deny=deny, quitting=quitting)

    def ask_again(self) -> None:
        """The user comes back to a request left pending: ask about it again."""
        if self.state.phase is Phase.AWAITING_APPROVAL and self.state.asking is None:
            self._approvals.ask()

    def submit(self, text: str) -> None:
        """The user sent ``text``: send it now, queue it, or keep it while approvals wait."""
        phase = self.state.phase
        if phase is Phase.IDLE:
            self._tasks.look_if_quiet()  # a turn made elsewhere meanwhile shows before it
            self._tasks.begin_send(text)
            self._tasks.start_turn(lambda: self._converse(text))
        elif phase is Phase.AWAITING_APPROVAL and self._tasks.round is not None:
            self._tasks.listener.restore_prompt(text)
            self._tasks.listener.report(APPROVAL_FIRST, title="Approval pending",
                                        severity="warning")
            self._approvals.ask()
        else:
            self._tasks.queue.append(text)
            self._tasks.update()

    def leaving(self) -> None:
        """The chat is being left (another opens, or the app quits): messages queued, which
        would never be sent, go back to the prompt, to be kept as its draft (and said so)."""
        self.session.left_unsent = self._tasks.return_queue()

    def typing(self) -> None:
        """The user types: a server unheard for a while is looked at (offline shows early)."""
        self._tasks.look_if_quiet()

    def returned(self) -> None:
        """The terminal has the focus again: an idle chat quiet for a while catches up."""
        self._tasks.look_if_quiet(idle_only=True)

    def opened(self) -> None:
        """History loaded: follow a reply still going in this conversation (the chat was
        left mid-reply, or another client started it), then ask about calls the agent
        waits on. A message typed meanwhile is sent after that."""
        if self.state.phase is Phase.IDLE:
            self._tasks.update(phase=Phase.WAITING)
            self._tasks.start_turn(self._catch_up)

    def leave_after_local_calls(self, *, quitting: bool) -> bool:
        """The user quits (``quitting``) or leaves the chat while local calls run, or after
        Esc stopped them: stop them, tell the agent, then leave (``True``). ``False`` when
        there are none (the UI leaves as usual)."""
        held = self._tasks.held
        if self.state.phase is Phase.IDLE and held is not None:
            self._tasks.held, self._tasks.round = None, held
            self._tasks.listener.transcript_changed(
                self.session.transcript.reword_event(
                    HELD, TOLD_ON_QUIT if quitting else TOLD_ON_LEAVING))
            self._tasks.leave_when_answered = True
            self._tasks.update(phase=Phase.ANSWERING)
            self._tasks.start_turn(self._approvals.answer_then_converse)
            return True
        if self.state.phase is not Phase.RUNNING:
            return False
        self._tasks.leave_when_answered = True
        self.interrupt()
        return True

    def switch_mode(self) -> PermissionMode | None:
        """Go to the next permission mode for local calls (``None``: there are none). It
        answers the calls asked from now on: a request already waiting keeps asking."""
        if self.local is None:
            return None
        mode = self.local.permissions.next_mode()
        self._tasks.update(permission_mode=mode)
        return mode

    def interrupt(self) -> None:
        """Esc: stop the request in flight. What arrived stays, marked interrupted; the run
        is cancelled on the server. A message whose request the server has not answered yet
        waits for that answer (:class:`StoppedSends`): taken, its turn is stopped at once;
        else it goes back to the prompt. Local calls running are stopped; the agent is told
        with the next message.
        """
        phase = self.state.phase
        if phase is Phase.RUNNING:
            self._tasks.tools_interrupted = True
            if self._tasks.tool_task is not None:
                self._tasks.tool_task.cancel()
            return
        if not phase.busy or self._stops.stopping:
            return
        run_id, opened, unsent = self.session.run_id, self.session.turn_open, self.state.sending
        flight = self.session.take_in_flight() if phase in _SENT_IN else None
        if flight is not None and unsent is not None:  # the server may take it yet
            self._tasks.start_turn(lambda: self._stops.stop_send(flight, unsent))
            return
        accepted_maybe = opened or (phase is Phase.SENDING and  # (not before it went out)
                                    self.session.requests_sent != self._tasks.requests_before_send)
        self._tasks.cancel_turn()
        self._tasks.listener.transcript_changed(self.session.interrupt())
        if unsent is not None and not opened:
            self._tasks.listener.restore_prompt(unsent)
        self._tasks.return_queue()
        self._tasks.round = None
        self._tasks.leave_when_answered = False
        self._tasks.update(phase=Phase.IDLE, sending=None, asking=None, undecided=0,
                           answer_error=None, stop_reason="interrupted")
        if phase is Phase.ANSWERING:  # whether the server took the answers, it alone knows
            self._tasks.update(phase=Phase.AWAITING_APPROVAL)
            self._tasks.start_turn(lambda: self._cancel_then_check(run_id, flight))
        elif accepted_maybe:  # (waiting for a busy conversation stops only the waiting)
            self._tasks.start_side_task(lambda: self._tasks.cancel_on_server(run_id))

    async def compact(self) -> Compaction:
        """Have the server summarise the older messages (see :meth:`ChatSession.compact`).
        The compaction is then the latest thing: how the last turn stopped is said no more.
        Raises :class:`LettaError`."""
        done = await self.session.compact(self._tasks.on_change)
        self._tasks.update(stop_reason=None)
        return done

    # --- the turn task --------------------------------------------------------------------

    async def _converse(self, text: str | None) -> None:
        """Send ``text``, then each queued message after a clean end, until one stops."""
        while text is not None:
            outcome = await self._send(text)
            if outcome is None:
                return
            text = await self._after(outcome)

    async def _send(self, text: str) -> TurnOutcome | None:
        """Send ``text`` (waiting while the conversation is busy); ``None`` if not sent. The
        same text again after a send that may have arrived is looked for first (``None``
        too when it is found: its turn was shown, and the queue sent)."""
        self._tasks.begin_send(text)
        await self._tasks.caught_up()
        earlier, self._tasks.unconfirmed = self._tasks.unconfirmed, None
        if earlier is not None and earlier.text == text:
            try:
                if await self._maybe_sent.show_if_sent(earlier):
                    return None
            except LettaError as error:
                self._tasks.give_back(text, error)
                self._tasks.unconfirmed = earlier
                return None
        outgoing = Outgoing(text)
        try:
            return await self._send_when_free(outgoing)
        except LettaError as error:
            self._tasks.send_failed(outgoing, error)
            return None

    async def _send_when_free(self, outgoing: Outgoing) -> TurnOutcome:
        """Send ``outgoing``. While the server says the conversation is busy, follow the run
        that holds it (the text then waits in the queue, and the followed run's outcome is
        returned: :meth:`_after` sends it), or wait and retry."""
        text = outgoing.text
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_WAIT_SECONDS
        pauses = iter(BUSY_POLL_SECONDS)
        while True:
            try:
                if (held := self._tasks.held) is not None:
                    outcome = await self.session.answer_round(
                        held, self._tasks.on_change, self._tasks.on_connection,
                        then_text=text, otid=outgoing.otid)
                    self._tasks.held = None
                    self._tasks.listener.transcript_changed(
                        self.session.transcript.reword_event(HELD, TOLD))
                    return outcome
                return await self.session.stream_turn(text, self._tasks.on_change,
                                                      self._tasks.on_connection,
                                                      otid=outgoing.otid)
            except ConversationBusyError as busy:
                if loop.time() > deadline:
                    raise
                self._tasks.queue.appendleft(text)
                self._tasks.update(phase=Phase.WAITING, sending=None)
                followed = await self._follow_active(busy.run_id, FOLLOWING_BUSY)
                if followed is not None and went_on(followed):  # else: send it now
                    return followed
                self._tasks.update(phase=Phase.WAITING, sending=self._tasks.queue.popleft())
            await asyncio.sleep(next(pauses, BUSY_POLL_SECONDS[-1]))
            self._tasks.update(phase=Phase.SENDING, sending=text)

    async def _catch_up(self) -> None:
        """Follow the conversation's running reply, if any; then approvals, then the queue."""
        followed = await self._follow_active(None, FOLLOWING_OPENED)
        if followed is not None:
            await self._converse(await self._after(followed))
        elif self.session.transcript.awaiting_approval:
            await self._approvals.approvals_then_converse()
        else:
            self._tasks.update(phase=Phase.IDLE)
            await self._converse(self._tasks.queue.popleft() if self._tasks.queue else None)

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
        self._tasks.update(phase=Phase.STREAMING, stop_reason=None, connection=None)
        outcome = await self.session.follow_run(run, note, self._tasks.on_change,
                                                self._tasks.on_connection)
        if outcome is not None:
            return outcome
        self._tasks.update(phase=Phase.WAITING)
        try:
            stop_reason = await self.session.catch_up(run, self._tasks.on_change)
        except LettaError as error:
            self._tasks.listener.report(error.message, title="Reply in progress",
                                        severity="warning")
            return None
        return TurnOutcome(sent=True, stop_reason=stop_reason)

    async def _after(self, outcome: TurnOutcome) -> str | None:
        """A turn ended: ask for approvals, or give the next queued message to send."""
        self._tasks.update(stop_reason=outcome.stop_reason,
                           offline=isinstance(outcome.error, APIConnectionError))
        if outcome.error is not None:
            self._tasks.listener.report(f"The reply stopped early: {outcome.error.message}",
                                        title="Stream")
        if outcome.stop_reason == "requires_approval":
            return await self._approvals.approvals()
        self._tasks.check_kept(outcome.stop_reason)
        if outcome.stop_reason in CLEAN_STOPS and self._tasks.queue:
            return self._tasks.queue.popleft()
        self._tasks.return_queue()
        self._tasks.update(phase=Phase.IDLE)
        return None

    def _back_online(self) -> None:
        """The server can be reached again: go on with the reply that dropped meanwhile, or
        send the answers that could not be sent."""
        if (run_id := self._tasks.uncancelled) is not None:
            self._tasks.uncancelled = None
            self._tasks.start_side_task(lambda: self._tasks.settle_uncancelled(run_id))
        if self.state.phase is Phase.IDLE and (outgoing := self._tasks.unconfirmed) is not None:
            self._tasks.unconfirmed = None
            self._tasks.update(phase=Phase.WAITING)
            self._tasks.start_turn(lambda: self._maybe_sent.confirm_sent(outgoing))
        elif self.state.phase is Phase.IDLE and self.session.dropped_unreached:
            self._tasks.update(phase=Phase.STREAMING, stop_reason=None)
            self._tasks.start_turn(self._take_up_dropped)
        elif self.state.phase is Phase.AWAITING_APPROVAL:
            self._approvals.resend()

    async def _take_up_dropped(self) -> None:
        outcome = await self.session.take_up_dropped(self._tasks.on_change,
                                                     self._tasks.on_connection)
        if outcome is None:
            self._tasks.update(phase=Phase.IDLE)
        else:
            await self._converse(await self._after(outcome))

    async def _cancel_then_check(self, run_id: str | None,
                                 flight: SendInFlight | None = None) -> None:
        """Cancel the interrupted continuation (of the answers in ``flight``, if the server
        takes them), then ask the server what still waits."""
        if flight is not None:
            settled = await self._stops.settle(flight)
            run_id = settled.run_id
        if flight is None or settled.taken:
            await self._tasks.cancel_on_server(run_id)
        await self._approvals.approvals_then_converse()
