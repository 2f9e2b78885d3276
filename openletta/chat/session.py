"""One open conversation: the client calls of a chat and the transcript they feed.

No Textual and no turn state here: :class:`~openletta.chat.controller.ChatController`
decides when to call these coroutines, and every :class:`Change` goes to the ``on_change``
callback it passes.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import dataclass
from typing import Any

from openletta.api.client import FINISHED_RUN_STATES, LettaClient, MessageStream
from openletta.api.errors import (
    APIConnectionError,
    LettaError,
    RunStillGoingError,
    StreamDroppedError,
)
from openletta.api.history import HistoryPage
from openletta.api.messages import Message
from openletta.api.resources import Agent, Run
from openletta.chat.approvals import ApprovalRound, Decision
from openletta.transcript import Change, Transcript

PAGE_SIZE = 50
#: Rows per request when reading a whole thread (export).
EXPORT_PAGE_SIZE = 200
INTERRUPTED = "Interrupted by you"

OnChange = Callable[[Change], None]
#: Hears how the connection of a reply fares: :data:`RECONNECTING`, :data:`RECONNECTED`,
#: :data:`FOREGROUND_ONLY`.
OnConnection = Callable[[str], None]
RECONNECTING = "reconnecting"
RECONNECTED = "reconnected"
#: The server cannot run replies in the background: from now on they are not resumable.
FOREGROUND_ONLY = "foreground only"
#: Pauses before each try to resume a dropped reply (about 30 s in all).
RESUME_PAUSES = (0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0)
#: How long a reply that cannot be resumed is waited for, to be read from its run.
RUN_WAIT_SECONDS = 120.0
RUN_POLL_SECONDS = 1.0


def _unheard(_state: str) -> None:
    """An :data:`OnConnection` nobody listens to."""


def _background_refused(error: LettaError) -> bool:
    """Whether ``error`` says the server cannot run a reply in the background (self-hosted
    without Redis: 503; servers that do not know the option: 400 or 422)."""
    said = f"{error.server_message or ''} {error.message}".lower()
    return error.status_code in (400, 422, 503) and ("redis" in said or "background" in said)


@dataclass
class TurnOutcome:
    """How a turn ended: ``sent`` is False when the server never accepted the message."""

    sent: bool
    stop_reason: str | None = None
    error: LettaError | None = None


def newest_page(client: LettaClient, agent_id: str,
                conversation_id: str | None) -> Coroutine[Any, Any, HistoryPage]:
    """The request for the newest page of a thread's history."""
    return client.list_messages(agent_id, conversation_id=conversation_id, limit=PAGE_SIZE)


def new_otid() -> str:
    """A fresh client-side id for an outgoing message."""
    return str(uuid.uuid4())


class ChatSession:
    """The agent and conversation being chatted with, its transcript and its history."""

    def __init__(self, client: LettaClient, agent: Agent, conversation_id: str | None = None,
                 *, requested_page: Awaitable[HistoryPage] | None = None) -> None:
        """``requested_page``: the newest page of history, already asked for (at launch)."""
        self.client = client
        self._requested_page = requested_page
        self.agent = agent
        self.conversation_id = conversation_id
        self.transcript = Transcript(footers=True)
        #: Whether the server holds history older than what is loaded.
        self.has_more_history = False
        self._before: str | None = None
        self._stream_open: MessageStream | None = None
        self._turn: object | None = None
        #: Whether replies run in the background (resumable); off once the server refuses.
        self.background = True
        #: Runs whose usage the server could not give (not asked again).
        self._unknown_runs: set[str] = set()
        #: Tools this client runs, declared in every request (``client_tools``).
        self.client_tools: list[dict[str, Any]] = []

    @property
    def turn_open(self) -> bool:
        """True from the moment the server accepted a message until its stream is closed."""
        return self._stream_open is not None

    @property
    def run_id(self) -> str | None:
        """The id of the running (or last) run, once the server has told it."""
        stream = self._stream_open
        stream_run = stream.run_id if stream is not None else None
        return stream_run or self.transcript.run_id

    async def load_latest(self) -> Change:
        """Load the newest page of history (plus a pending approval request, if any)."""
        requested, self._requested_page = self._requested_page, None
        page = await (requested or newest_page(self.client, self.agent.id, self.conversation_id))
        self._remember_page(page.before_cursor, page.has_more)
        messages = list(page.messages)
        if self.agent.pending_approval is not None:
            messages.append(self.agent.pending_approval)
        return self.transcript.load_history(messages)

    async def load_earlier(self) -> Change:
        """Insert the next older page of history above what is loaded."""
        if not self.has_more_history:
            return Change()
        page = await self.client.list_messages(
            self.agent.id, conversation_id=self.conversation_id, before=self._before,
            limit=PAGE_SIZE)
        self._remember_page(page.before_cursor, page.has_more)
        return self.transcript.prepend_history(page.messages)

    async def fill_footer_tokens(self, on_change: OnChange) -> None:
        """Give the turn footers read from history their token counts, from their runs'
        usage (history itself has none); a run the server cannot tell about is skipped."""
        for footer in self.transcript.footers_without_tokens():
            if self._unknown_runs.intersection(footer.run_ids):
                continue
            try:
                usages = [await self.client.get_run_usage(run_id) for run_id in footer.run_ids]
            except LettaError:
                self._unknown_runs.update(footer.run_ids)
                continue
            on_change(self.transcript.set_footer_tokens(
                footer, sum(usage.total_tokens for usage in usages)))

    async def all_messages(self) -> list[Message]:
        """Every stored message of this thread, oldest first (reads all pages)."""
        pages: list[list[Message]] = []
        before: str | None = None
        while True:
            page = await self.client.list_messages(
                self.agent.id, conversation_id=self.conversation_id, before=before,
                limit=EXPORT_PAGE_SIZE)
            pages.append(list(page.messages))
            if not page.has_more or page.before_cursor is None:
                return [message for older in reversed(pages) for message in older]
            before = page.before_cursor

    async def stream_turn(self, text: str, on_change: OnChange,
                          on_connection: OnConnection = _unheard) -> TurnOutcome:
        """Send ``text`` and feed the reply into the transcript as it streams.

        Errors before the server accepted the message propagate (nothing was shown). Once the
        turn is open, a broken stream is resumed (:meth:`_follow`); if that fails, what
        arrived is kept and marked as dropped.
        """
        otid = new_otid()

        def send(background: bool) -> MessageStream:
            return self.client.send_message(self.agent.id, text, otid=otid,
                                            conversation_id=self.conversation_id,
                                            background=background,
                                            client_tools=self.client_tools)

        stream = await self._accepted(send, on_connection)
        return await self._follow(stream, lambda: self.transcript.add_user(text, otid=otid),
                                  on_change, on_connection)

    async def pending_round(self, on_change: OnChange,
                            auto_approve: Collection[str] = ()) -> ApprovalRound | None:
        """The calls the server holds pending (the authority, not what the stream showed);
        calls of the tools in ``auto_approve`` come already approved."""
        request = await self.client.get_pending_approval(self.agent.id, self.conversation_id)
        ids = [call.tool_call_id for call in request.tool_calls] if request else []
        held = [call_id for call_id in ids if call_id is not None]
        on_change(self.transcript.settle_unheld(held))
        if request is None:
            return None
        # A call without an id is never in the transcript (nor answerable): feed it all the same.
        if len(held) < len(ids) or any(self.transcript.call(call_id) is None for call_id in held):
            on_change(self.transcript.feed(request))
        calls = [self.transcript.call(call_id) for call_id in held]
        round_ = ApprovalRound([call for call in calls if call is not None])
        for call in round_.calls:
            if call.name in auto_approve:
                round_.decide(call, Decision(approve=True, auto=True))
        return round_ if round_.calls else None

    async def answer_round(self, round_: ApprovalRound, on_change: OnChange,
                           on_connection: OnConnection = _unheard) -> TurnOutcome:
        """Send the decisions of a complete round and stream the agent's continuation."""
        decisions = round_.decisions

        def send(background: bool) -> MessageStream:
            return self.client.send_approvals(self.agent.id, round_.answers(),
                                              conversation_id=self.conversation_id,
                                              background=background,
                                              client_tools=self.client_tools)

        stream = await self._accepted(send, on_connection)
        return await self._follow(stream, lambda: self.transcript.record_decisions(
            {key: (decision.approve, decision.reason) for key, decision in decisions.items()},
            auto={key for key, decision in decisions.items() if decision.auto}),
            on_change, on_connection)

    async def active_run(self, run_id: str | None = None) -> Run | None:
        """The run going on in this conversation (``run_id``, when the server named the run
        that holds it), or ``None``."""
        if run_id is not None:
            run = await self.client.get_run(run_id)
            return None if run.status in FINISHED_RUN_STATES else run
        runs = await self.client.active_runs(self.agent.id, self.conversation_id)
        return runs[0] if runs else None

    async def follow_run(self, run: Run, note: str, on_change: OnChange,
                         on_connection: OnConnection = _unheard) -> TurnOutcome | None:
        """Stream a run that was already going, from its start, under an event saying
        ``note`` (what history shows of it is not repeated). ``None`` when the server keeps
        no stream of it (a foreground run): :meth:`catch_up` shows it once it ended."""
        if not run.background:
            return None
        stream = self.client.resume_stream(run.id, 0)
        try:
            await stream.open()
        except LettaError:
            await stream.aclose()
            return None
        return await self._follow(stream, lambda: self.transcript.follow_run(run.id, note),
                                  on_change, on_connection)

    async def catch_up(self, run: Run, on_change: OnChange) -> str | None:
        """Wait for ``run`` to end (for up to :data:`RUN_WAIT_SECONDS`), then show what it
        stored (the newest page of history, added below what is shown); its stop reason."""
        ended = await self._until_finished(run.id)
        page = await self.client.list_messages(
            self.agent.id, conversation_id=self.conversation_id, limit=PAGE_SIZE)
        on_change(self.transcript.load_history(page.messages))
        return ended.stop_reason

    async def _follow(self, stream: MessageStream, opened: Callable[[], Change],
                      on_change: OnChange, on_connection: OnConnection) -> TurnOutcome:
        """Show ``opened()`` and feed the accepted ``stream``. A reply whose connection
        breaks is resumed where it stopped (:meth:`_resume`), else completed from its run."""
        self._stream_open = stream
        turn = self._turn = object()  # a newer turn may start while this one is cancelled
        try:
            on_change(opened())
            await self._feed(stream, on_change)
        except StreamDroppedError as dropped:
            run_id = dropped.run_id or await self._run_of_dropped_reply()
            error = await self._resume(run_id, dropped, on_change, on_connection)
            if error is not None and run_id is not None:
                error = await self._complete_from_run(run_id, error, on_change)
            if error is not None:
                if self._stream_open is not None:
                    on_change(self.transcript.end_stream("dropped", error.message))
                return TurnOutcome(sent=True, stop_reason="dropped", error=error)
        finally:
            await stream.aclose()
            if self._turn is turn:
                self._stream_open = None
        return TurnOutcome(sent=True, stop_reason=self.transcript.stop_reason)

    async def _accepted(self, send: Callable[[bool], MessageStream],
                        on_connection: OnConnection) -> MessageStream:
        """The opened stream of ``send``: in the background unless the server refuses that
        (then in the foreground, from now on, and ``on_connection`` hears it once)."""
        stream = send(self.background)
        try:
            await stream.open()
        except LettaError as error:
            if not (self.background and _background_refused(error)):
                raise
            self.background = False
            on_connection(FOREGROUND_ONLY)
            stream = send(False)
            await stream.open()
        return stream

    async def _complete_from_run(self, run_id: str, error: LettaError,
                                 on_change: OnChange) -> LettaError | None:
        """The reply could not be resumed: wait for its run to end and complete the turn
        from what the run stored. ``error`` again if that fails too, else ``None``."""
        try:
            run = await self._until_finished(run_id)
            messages = await self.client.list_run_messages(run_id)
        except LettaError:
            return error
        if not messages or self._stream_open is None:  # nothing stored, or Esc meanwhile
            return error
        on_change(self.transcript.complete_run(messages, run.stop_reason or "end_turn"))
        return None

    async def _until_finished(self, run_id: str) -> Run:
        """The run once it ended; :class:`RunStillGoingError` after :data:`RUN_WAIT_SECONDS`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RUN_WAIT_SECONDS
        while (run := await self.client.get_run(run_id)).status not in FINISHED_RUN_STATES:
            if loop.time() > deadline:
                raise RunStillGoingError(run_id)
            await asyncio.sleep(RUN_POLL_SECONDS)
        return run

    async def _feed(self, stream: MessageStream, on_change: OnChange) -> None:
        async for message in stream:
            on_change(self.transcript.feed(message))

    async def _run_of_dropped_reply(self) -> str | None:
        """The run of a reply that dropped before naming it: the conversation's active run
        (a conversation runs one request at a time, and it had accepted this one)."""
        try:
            run = await self.active_run()
        except LettaError:
            return None
        return run.id if run is not None else None

    async def _resume(self, run_id: str | None, dropped: StreamDroppedError,
                      on_change: OnChange, on_connection: OnConnection) -> LettaError | None:
        """Re-attach to the dropped run after its last chunk, with growing pauses for about
        30 s; the error that ended the reply, or ``None`` once it ended well."""
        if run_id is None or not self.background:  # a foreground reply cannot be resumed
            return dropped
        cursor = dropped.last_seq_id or 0
        error: LettaError = dropped
        for pause in RESUME_PAUSES:
            on_connection(RECONNECTING)
            await asyncio.sleep(pause)
            stream = self.client.resume_stream(run_id, cursor)
            try:
                async with stream:
                    self._stream_open = stream
                    on_connection(RECONNECTED)
                    await self._feed(stream, on_change)
                return None
            except StreamDroppedError as again:
                error, cursor = again, again.last_seq_id or cursor
            except APIConnectionError as again:
                error = again
            except LettaError as refused:  # expired, not a background run, unknown run
                return refused
        return error

    def interrupt(self) -> Change:
        """Close the open turn as interrupted by the user (what arrived is kept)."""
        if self._stream_open is None:
            return Change()
        self._stream_open = None
        return self.transcript.end_stream("interrupted", INTERRUPTED)

    async def cancel_run(self, run_id: str | None, on_change: OnChange) -> None:
        """Ask the server to stop ``run_id`` (or the agent's active runs); then the calls
        it ran before it stopped get their results (Esc marked them cancelled)."""
        await self.client.cancel(self.agent.id, conversation_id=self.conversation_id,
                                 run_ids=[run_id] if run_id else None)
        if run_id is None:
            return
        try:
            stored = await self.client.list_run_messages(run_id)
        except LettaError:
            return  # the cards stay "cancelled" until the history is read again
        on_change(self.transcript.apply_stored_returns(stored))

    def _remember_page(self, before: str | None, has_more: bool) -> None:
        self._before = before
        self.has_more_history = has_more and before is not None
