"""What a chat controller stands on: the turn state it reports to its listener, the
messages queued meanwhile, the open approval round, and the asyncio tasks it runs (at most
one turn task, plus side tasks), each guarded so that a bug reports itself and leaves the
turn idle, never stuck.

No Textual here. :class:`~openletta.chat.controller.ChatController` and its
:class:`~openletta.chat.approval_flow.ApprovalFlow` share one :class:`TurnTasks`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from openletta.api import http
from openletta.api.errors import APIConnectionError, LettaError
from openletta.api.runs import FINISHED_RUN_STATES
from openletta.chat.agent_model import recheck_model, runs_on
from openletta.chat.approvals import ApprovalRound
from openletta.chat.local_calls import LocalCalls
from openletta.chat.replies import FOREGROUND_ONLY, TurnOutcome
from openletta.chat.session import ChatSession, Outgoing
from openletta.chat.turn_state import Phase, TurnListener, TurnState
from openletta.tools.base import ToolOutcome
from openletta.transcript import Change, UserItem

log = logging.getLogger(__name__)

#: How a turn ends when nothing went wrong (after which queued messages are sent).
CLEAN_STOPS = frozenset({"end_turn", "max_steps", "no_tool_call"})
#: How a turn ends that failed for none of the model's doing (it is not looked at after them).
NOT_THE_MODELS = CLEAN_STOPS | {"requires_approval", "cancelled", "interrupted", "dropped"}

FOREGROUND_NOTICE = ("The server cannot run replies in the background (self-hosted Letta needs "
                     "Redis for it): a reply whose connection drops cannot be resumed.")

BACK_ONLINE = "The server can be reached again."
ARRIVED = ("Your message reached the server after all (its connection broke before the answer "
           "came): it is shown with the agent's reply.")
NOT_ARRIVED = ("Not sent: the server does not have your message. It is in the prompt: press "
               "Enter to send it.")
#: How long the server may stay unheard while nothing is asked of it before typing looks at it.
QUIET_SECONDS = 60.0
#: How long an idle chat may go without a word from the server before typing reads the
#: conversation's newest messages again (another client may have talked in it meanwhile).
CATCH_UP_SECONDS = 10.0



def went_on(outcome: TurnOutcome) -> bool:
    """Whether a reply followed ended as one a message waiting for it is sent after (or
    must wait on: approvals); one that failed leaves the conversation free for it."""
    return outcome.stop_reason in CLEAN_STOPS or outcome.stop_reason == "requires_approval"


def not_sent(error: LettaError) -> str:
    """What to say of a message whose request failed: it may have arrived all the same."""
    if isinstance(error, APIConnectionError) and error.may_have_arrived:
        return ("Maybe not sent: the connection broke before the server answered, so it may "
                "have your message. openletta looks for it there once the server can be "
                f"reached (or when you send it again). {error.message}")
    return f"Not sent: {error.message}"


#: Work for a task, made when the task starts (a task cancelled first never makes it).
Work = Callable[[], Awaitable[object]]


class TurnTasks:
    """The state of one conversation's turns and the tasks that change it."""

    def __init__(self, session: ChatSession, listener: TurnListener,
                 local: LocalCalls | None = None) -> None:
        self.session = session
        self.listener = listener
        #: The tools run here (``None``: none are declared to the agent).
        self.local = local
        session.client_tools = local.declarations() if local is not None else []
        self._state = TurnState(permission_mode=local.mode if local is not None else None)
        #: Messages typed while a turn is busy, sent one by one after it ends cleanly.
        self.queue: deque[str] = deque()
        #: The approval round open now, if any.
        self.round: ApprovalRound | None = None
        #: A round whose local calls the user stopped: its answers go with the next message.
        self.held: ApprovalRound | None = None
        #: Tools the user approved "for this session": their requests are answered at once.
        self.auto_approve: set[str] = set()
        #: Whether the chat is left (or the app quits) once the open round's answers are sent.
        self.leave_when_answered = False
        #: The turn task, if one runs (or ran last).
        self.turn: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()
        #: The local call running now, and whether Esc stopped the local calls of the round.
        self.tool_task: asyncio.Task[ToolOutcome] | None = None
        self.tools_interrupted = False
        #: A run Esc stopped here whose cancel could not reach the server.
        self.uncancelled: str | None = None
        #: A message whose request broke after it may have reached the server: it is looked
        #: for there once the server can be reached (it also went back to the prompt).
        self.unconfirmed: Outgoing | None = None
        #: Called once the server can be reached again after a request could not reach it.
        self.on_back_online: Callable[[], None] = lambda: None
        self._offline_watch: asyncio.Task[None] | None = None
        #: ``time.monotonic()`` of the last look at a server quiet for a while (the chat
        #: opening counts: its history was just read, maybe by requests made before it).
        self._looked_at = time.monotonic()
        #: The last read of the conversation's newest messages (:meth:`_catch_up`), and how
        #: many messages went out past :meth:`caught_up` (what it read is shown if none did).
        self._catching_up: asyncio.Task[None] | None = None
        self._sends_started = 0
        #: The session's requests sent when the message being sent was about to go.
        self.requests_before_send = 0

    @property
    def state(self) -> TurnState:
        return self._state

    @property
    def turn_running(self) -> bool:
        """Whether the turn task runs."""
        return self.turn is not None and not self.turn.done()

    async def close(self) -> None:
        """Stop every task (the chat is closing)."""
        tasks = [task for task in (self.turn, self.tool_task, self._offline_watch,
                                   *self._side_tasks) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- reporting ------------------------------------------------------------------------

    def update(self, **changes: Any) -> None:
        """Change the turn state (the queue and the busy clock are always current) and
        report it. Once a request could not reach the server, it is watched for until it
        can be reached again."""
        state = dataclasses.replace(self._state, **changes, queued=tuple(self.queue))
        if state.phase.busy != (state.busy_since is not None):
            state = dataclasses.replace(
                state, busy_since=time.monotonic() if state.phase.busy else None,
                replying=False)
        self._state = state
        self.listener.turn_state_changed(state)
        if state.offline and (self._offline_watch is None or self._offline_watch.done()):
            self._offline_watch = asyncio.get_running_loop().create_task(
                self._guard(self._watch_until_online))

    def return_queue(self) -> tuple[str, ...]:
        """Held messages go back to the prompt instead of being sent (after a failed turn);
        returns them."""
        returned = tuple(self.queue)
        if returned:
            self.listener.restore_prompt("\n\n".join(returned))
            self.queue.clear()
            self.update()
        return returned

    def give_back(self, text: str, error: LettaError) -> None:
        """``text`` was not sent (``error``): it goes back to the prompt, with the queue."""
        self.update(phase=Phase.IDLE, sending=None, offline=isinstance(error, APIConnectionError))
        self.listener.restore_prompt(text)
        self.return_queue()
        self.listener.report(not_sent(error), title="Send failed", notice=True)

    def send_failed(self, outgoing: Outgoing, error: LettaError) -> None:
        """The request of ``outgoing`` failed (``error``): it goes back to the prompt; when it
        may have reached the server all the same, it is looked for there later."""
        self.give_back(outgoing.text, error)
        if isinstance(error, APIConnectionError) and error.may_have_arrived:
            self.unconfirmed = outgoing

    def on_connection(self, state: str) -> None:
        """The reply's connection changed (``reconnecting``, …): show it."""
        if state == FOREGROUND_ONLY:
            self.listener.report(FOREGROUND_NOTICE, title="Connection", severity="warning")
        else:
            self.update(connection=state)

    def on_change(self, change: Change) -> None:
        """The transcript changed while a request runs: show it (the reply has begun)."""
        if self._state.sending is not None and self.session.turn_open:
            self.update(phase=Phase.STREAMING, sending=None)
        if not self._state.replying and self._state.phase.busy and any(
                not isinstance(item, UserItem) for item in change.added):
            self.update(replying=True)
        if self.local is not None:
            self.local.place_asked(self.session.transcript, change)
        self.listener.transcript_changed(change)

    async def cancel_on_server(self, run_id: str | None) -> None:
        """Ask the server to cancel ``run_id``; a refusal is reported, not raised. When the
        server cannot be reached, the run is looked at again once it can
        (:attr:`uncancelled`). A turn the server then dropped gives its message back to
        the prompt: the agent will not see it."""
        try:
            if given := await self.session.cancel_run(run_id, self.listener.transcript_changed):
                self.listener.restore_prompt(given)
        except APIConnectionError as error:
            self.uncancelled = run_id
            self.update(offline=True)
            self.listener.report(f"The cancel did not reach the server ({error.message}); "
                                 "openletta looks at the reply again once it can.",
                                 title="Interrupt", severity="warning")
        except LettaError as error:
            self.listener.report(f"The server did not confirm the cancel: {error.message}",
                                 title="Interrupt", severity="warning")

    async def settle_uncancelled(self, run_id: str) -> None:
        """The server is back after Esc's cancel could not reach it: cancel the run if it
        still goes on; if it finished, show the rest of its reply (the agent said it)."""
        try:
            run = await self.session.client.get_run(run_id)
            if run.status not in FINISHED_RUN_STATES:
                await self.cancel_on_server(run_id)
                return
            if run.status == "cancelled" or self.state.phase is not Phase.IDLE or (
                    self.session.run_id != run_id):
                return
            await self.session.show_finished_run(run_id, run.stop_reason, self.on_change)
        except LettaError as error:
            log.info("could not look at the interrupted run: %s", error.message)
            return
        self.listener.report(
            "The cancel never reached the server and the agent finished its reply: it is "
            "shown in full now.", title="Interrupt", severity="warning", notice=True)

    async def _watch_until_online(self) -> None:
        """Look at the server now and then while the state says it cannot be reached, until
        it can (:meth:`note_reachable`). A request that got through first ends the watch."""
        for pause in http.reach_again_pauses():
            await asyncio.sleep(pause)
            if not self._state.offline:
                return
            try:
                await self.session.client.health()
            except LettaError:
                continue
            self.note_reachable(True)
            return

    def look_if_quiet(self, *, idle_only: bool = False) -> None:
        """The user types (or comes back, ``idle_only``: then a busy chat is left alone):
        if the server has not answered for a while, look at it once, so that one that
        cannot be reached shows as offline before the message is sent. An idle chat (quiet
        for :data:`CATCH_UP_SECONDS`) looks by reading the conversation's newest messages,
        and shows those another client added meanwhile; a busy one asks for the server's
        health after :data:`QUIET_SECONDS`."""
        idle = self._state.phase is Phase.IDLE
        if idle and self._quiet_for(CATCH_UP_SECONDS):
            self._catching_up = self.start_side_task(self._catch_up)
        elif not idle and not idle_only and self._quiet_for(QUIET_SECONDS):
            self.start_side_task(self._look)

    def _quiet_for(self, seconds: float) -> bool:
        """Whether the server, reachable as far as is known, went unheard for ``seconds``
        (and unlooked at): if so, it counts as looked at now."""
        now = time.monotonic()
        quiet = now - max(self.session.client.last_answer or 0.0, self._looked_at)
        if self._state.offline or quiet < seconds:
            return False
        self._looked_at = now
        return True

    def begin_send(self, text: str) -> None:
        """``text`` is being sent (its request goes out once :meth:`caught_up`)."""
        self.requests_before_send = self.session.requests_sent
        self.update(phase=Phase.SENDING, sending=text, offline=False, stop_reason=None,
                    connection=None)

    async def caught_up(self) -> None:
        """A message is about to be sent: the read of the conversation's newest messages
        under way, if any, is awaited and shown first (a turn another client made meanwhile
        comes before the new one)."""
        if (reading := self._catching_up) is not None and not reading.done():
            await asyncio.wait({reading})  # (an Esc meanwhile stops the send, not the read)
        self._sends_started += 1

    async def _look(self) -> None:
        with contextlib.suppress(LettaError):  # heard by note_reachable: no more to do
            await self.session.client.health()

    async def _catch_up(self) -> None:
        """Show what was added to the conversation elsewhere, unless something happened
        here meanwhile (what was read could land after a turn started since; a message sent
        meanwhile waits for it, :meth:`caught_up`): its turns, their tokens and, as after
        they had ended here, the context's size they left (or a compaction did), and the model
        they ran on when it is not the one shown (the agent is read again)."""
        transcript = self.session.transcript
        items, runs = transcript.items, transcript.newest_runs()
        compacted = transcript.compacted_since_last_turn()
        mark = (len(items), items[-1] if items else None, self._sends_started)
        with contextlib.suppress(LettaError):  # heard by note_reachable: no more to do
            page = await self.session.read_newest()
            if self._state.phase in (Phase.IDLE, Phase.SENDING) and mark == (
                    len(items), items[-1] if items else None, self._sends_started):
                self.on_change(transcript.load_history(page.messages))
                if transcript.newest_runs() != runs or (
                        transcript.compacted_since_last_turn() and not compacted):
                    model = await self.session.read_context_size(self.on_change, newer=True)
                    if model and not runs_on(self.session.agent, model):
                        await recheck_model(self.session, self.listener)
                await self.session.fill_footer_tokens(self.on_change)

    def note_reachable(self, reached: bool) -> None:
        """Requests (of this chat or any other part of the app) started (``True``) or
        stopped reaching the server: the state follows; once the server is back, the user
        hears it and :attr:`on_back_online` is called."""
        if reached != self._state.offline:
            return
        self.update(offline=not reached)
        if reached:
            self.listener.report(BACK_ONLINE, title="Connection", severity="information")
            self.on_back_online()

    # --- tasks ----------------------------------------------------------------------------

    def start_turn(self, work: Work) -> None:
        """Run ``work`` as the turn task, in place of the one running."""
        self.cancel_turn()
        self.turn = asyncio.get_running_loop().create_task(self._guard(work))

    def cancel_turn(self) -> None:
        """Stop the turn task, if one runs."""
        if self.turn is not None and self.turn_running:
            self.turn.cancel()
        self.turn = None

    def check_kept(self, stop_reason: str | None) -> None:
        """A run ended for ``stop_reason``: when that is a failure or a cancel, say under its
        turn if the server kept none of it (a stream that only broke is not looked at). After
        a failure the model may explain, the agent is read again: another client may have
        put it on another model."""
        if stop_reason in CLEAN_STOPS or stop_reason in (None, "requires_approval"):
            return
        if stop_reason not in NOT_THE_MODELS:
            self.start_side_task(lambda: recheck_model(self.session, self.listener))
        if (run_id := self.session.run_id) is not None:
            self.start_side_task(lambda: self._note_if_unkept(run_id))

    async def _note_if_unkept(self, run_id: str) -> None:
        """Say under the turn of ``run_id`` if the server kept none of it; its message goes
        back to the prompt (ahead of anything typed since)."""
        if given := await self.session.note_if_unkept(run_id, self.on_change):
            self.listener.restore_prompt(given)

    def start_side_task(self, work: Work) -> asyncio.Task[None]:
        """Run ``work`` beside the turn (a cancel on the server, a rule change)."""
        task = asyncio.get_running_loop().create_task(self._guard(work))
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
        return task

    async def _guard(self, work: Work) -> None:
        """Run ``work``; a bug in it is reported and leaves the turn idle, never stuck."""
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("the turn failed unexpectedly")
            with contextlib.suppress(Exception):
                self.listener.transcript_changed(self.session.interrupt())
            self.round = None
            self.update(phase=Phase.IDLE, sending=None, asking=None, undecided=0)
            self.listener.report(f"Unexpected error: {error!r}", title="openletta",
                                 notice=True)

