"""How a reply's stream is followed, and what happens when its connection breaks.

:class:`ReplyStreams` opens a turn for each accepted stream and feeds it into the
transcript. A stream that breaks is resumed after its last chunk (a background run), else the
turn is completed from what its run stored; if neither works, what arrived is kept, marked
dropped, and when it broke because the server could not be reached, :meth:`take_up_dropped`
goes on with it once the server is back. Esc closes the open turn (:meth:`interrupt`); a
request the server has not answered yet is not closed but handed over
(:meth:`take_in_flight`): the server may take it all the same.

No Textual here: :class:`~openletta.chat.session.ChatSession` builds on it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from openletta.api.client import LettaClient, MessageStream
from openletta.api.errors import (
    APIConnectionError,
    LettaError,
    RunStillGoingError,
    StreamDroppedError,
)
from openletta.api.messages import Message, UserMessage
from openletta.api.resources import Agent, Run
from openletta.api.runs import FINISHED_RUN_STATES
from openletta.transcript import Change, Transcript

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
#: Runs that ended read for the message of a reply that dropped before naming its run.
ENDED_RUNS_SEARCHED = 3
#: How long the stream of a request Esc stopped is read for the run it names (its first
#: event, a ping, names it at once).
NAMING_SECONDS = 5.0


def unheard(_state: str) -> None:
    """An :data:`OnConnection` nobody listens to."""


async def read_until_named(stream: MessageStream,
                           fed: Callable[[Message], None] = lambda _message: None) -> None:
    """Read ``stream`` (each message to ``fed``) until it names its run (a ping, its first
    event, does), for :data:`NAMING_SECONDS` at most; a stream that breaks ends it."""
    with contextlib.suppress(LettaError, TimeoutError):
        async with asyncio.timeout(NAMING_SECONDS):
            async for message in stream:
                fed(message)
                if stream.run_id is not None:
                    return


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


@dataclass
class SendInFlight:
    """A request sent (a message, answers) that the server has not answered yet. Closing it
    would not undo it: a server that read it takes it all the same, so Esc takes it over
    (:meth:`ReplyStreams.take_in_flight`) to learn its outcome."""

    stream: MessageStream
    #: Sending the request: done once the server answered (raises what it refused with).
    opening: asyncio.Future[None]
    #: What the transcript shows once the server took it (the message, the decisions).
    opened: Callable[[], Change]
    #: The client-side id of the user's message it carries, if it carries one.
    otid: str | None = None

    async def abandon(self) -> None:
        """Stop waiting for the answer and close the request."""
        self.opening.cancel()
        await self.stream.aclose()


class ReplyStreams:
    """The replies of one conversation as they stream (see the module docstring)."""

    def __init__(self, client: LettaClient, agent: Agent,
                 conversation_id: str | None = None) -> None:
        self.client = client
        self.agent = agent
        self.conversation_id = conversation_id
        self.transcript = Transcript(footers=True)
        self.transcript.one_call_per_step = agent.runs_one_call_per_step
        #: Whether replies run in the background (resumable); off once the server refuses.
        self.background = True
        #: The open turn (a token: Esc closes it), and the stream it reads now, if any.
        self._turn: object | None = None
        self._stream_open: MessageStream | None = None
        #: The reply that dropped because the server could not be reached, with the cursor
        #: to resume it after (:meth:`take_up_dropped`), until another turn starts.
        self._unreached: StreamDroppedError | None = None
        #: Whether Esc last closed a turn before its stream named its run (the cancel may
        #: tell it: :meth:`~openletta.chat.session.ChatSession.cancel_run`).
        self._stopped_unnamed = False
        #: The request sent that the server has not answered yet, if one is.
        self._in_flight: SendInFlight | None = None
        #: How many requests (a message, answers) were sent: whether one went out since.
        self.requests_sent = 0

    @property
    def turn_open(self) -> bool:
        """True from the moment the server accepted a message until its stream is closed."""
        return self._turn is not None

    @property
    def dropped_unreached(self) -> bool:
        """Whether the last reply dropped because the server could not be reached (and no
        turn started since): :meth:`take_up_dropped` goes on with it."""
        return self._unreached is not None

    @property
    def run_id(self) -> str | None:
        """The id of the running (or last) run, once the server has told it."""
        stream = self._stream_open
        stream_run = stream.run_id if stream is not None else None
        return stream_run or self.transcript.run_id

    async def active_run(self, run_id: str | None = None) -> Run | None:
        """The run going on in this conversation (``run_id``, when the server named the run
        that holds it), or ``None``."""
        if run_id is not None:
            run = await self.client.get_run(run_id)
            return None if run.status in FINISHED_RUN_STATES else run
        runs = await self.client.active_runs(self.agent.id, self.conversation_id)
        return runs[0] if runs else None

    def take_in_flight(self) -> SendInFlight | None:
        """The request the server has not answered yet, taken over: the task that sent it
        may be cancelled, the request goes on (the taker awaits or abandons it)."""
        flight, self._in_flight = self._in_flight, None
        return flight

    async def stop_accepted(self, flight: SendInFlight, on_change: OnChange) -> str | None:
        """``flight``, stopped by Esc before the server answered, was taken all the same:
        show it as a turn Esc interrupted as soon as its stream names its run (which is
        returned; ``None`` if it did not name it in time). The stream is closed."""
        async with self._open_turn(flight.stream):
            on_change(flight.opened())
            await read_until_named(flight.stream,
                                   lambda message: on_change(self.transcript.feed(message)))
            run_id = self.run_id
            on_change(self.interrupt())
        return run_id

    def interrupt(self) -> Change:
        """Close the open turn as interrupted by the user (what arrived is kept)."""
        self._stopped_unnamed = False
        if self._turn is None:
            return Change()
        self._stopped_unnamed = self.run_id is None
        self._turn = self._stream_open = None
        return self.transcript.end_stream("interrupted", INTERRUPTED)

    async def take_up_dropped(self, on_change: OnChange,
                              on_connection: OnConnection = unheard) -> TurnOutcome | None:
        """The server can be reached again: go on with the reply that dropped while it
        could not (resumed after its last chunk, or completed from its run), in place of
        its "dropped" mark. ``None`` when there is none, or another turn started since."""
        dropped = self._unreached
        if dropped is None:
            return None
        async with self._open_turn(None):
            on_change(self.transcript.reopen_dropped())
            return await self._take_up(dropped, on_change, on_connection)

    async def _follow(self, stream: MessageStream, opened: Callable[[], Change],
                      on_change: OnChange, on_connection: OnConnection,
                      otid: str | None = None) -> TurnOutcome:
        """Show ``opened()`` and feed the accepted ``stream`` (of the message sent as
        ``otid``, if one was). A reply whose connection breaks is resumed where it stopped
        (:meth:`_resume`), else completed from its run."""
        async with self._open_turn(stream):
            try:
                on_change(opened())
                await self._feed(stream, on_change)
            except StreamDroppedError as dropped:
                return await self._take_up(dropped, on_change, on_connection, otid)
            return TurnOutcome(sent=True, stop_reason=self.transcript.stop_reason)

    @contextlib.asynccontextmanager
    async def _open_turn(self, stream: MessageStream | None) -> AsyncIterator[None]:
        """The turn is open while the block runs (Esc may close it first); ``stream``, the
        one it reads, is closed after."""
        turn = self._turn = object()  # a newer turn may start while this one is cancelled
        self._stream_open, self._unreached = stream, None
        self._stopped_unnamed = False
        try:
            yield
        finally:
            if stream is not None:
                await stream.aclose()
            if self._turn is turn:
                self._turn = self._stream_open = None

    async def _take_up(self, dropped: StreamDroppedError, on_change: OnChange,
                       on_connection: OnConnection, otid: str | None = None) -> TurnOutcome:
        """A reply whose connection broke: resumed where it stopped (:meth:`_resume`), else
        completed from its run. If neither works, what arrived is kept, marked dropped (and
        taken up later when the server could not be reached)."""
        run_id = dropped.run_id or await self._run_of_dropped_reply(otid)
        error, cursor = await self._resume(run_id, dropped, on_change, on_connection)
        if error is not None and run_id is not None:
            error = await self._complete_from_run(run_id, error, on_change)
        if error is None:
            return TurnOutcome(sent=True, stop_reason=self.transcript.stop_reason)
        if self._turn is not None:
            on_change(self.transcript.end_stream("dropped", error.message))
            if isinstance(error, APIConnectionError) and run_id is not None:
                self._unreached = StreamDroppedError(run_id, cursor, error.message)
        return TurnOutcome(sent=True, stop_reason="dropped", error=error)

    async def _accepted(self, send: Callable[[bool], MessageStream],
                        on_connection: OnConnection, opened: Callable[[], Change],
                        otid: str | None = None) -> MessageStream:
        """The opened stream of ``send``: in the background unless the server refuses that
        (then in the foreground, from now on, and ``on_connection`` hears it once). Until
        the server answers, the request is in flight (``opened`` and ``otid`` as in
        :class:`SendInFlight`)."""
        stream = send(self.background)
        try:
            await self._open(stream, opened, otid)
        except LettaError as error:
            if not (self.background and _background_refused(error)):
                raise
            self.background = False
            on_connection(FOREGROUND_ONLY)
            stream = send(False)
            await self._open(stream, opened, otid)
        return stream

    async def _open(self, stream: MessageStream, opened: Callable[[], Change],
                    otid: str | None) -> None:
        """Send ``stream``'s request and wait for the answer. Cancelled meanwhile, the
        request is closed, unless Esc took it over first (:meth:`take_in_flight`)."""
        self.requests_sent += 1
        flight = self._in_flight = SendInFlight(stream, asyncio.ensure_future(stream.open()),
                                                opened, otid)
        try:
            await asyncio.shield(flight.opening)
        except asyncio.CancelledError:
            if self._in_flight is flight:
                await flight.abandon()
            raise
        finally:
            if self._in_flight is flight:
                self._in_flight = None

    async def _complete_from_run(self, run_id: str, error: LettaError,
                                 on_change: OnChange) -> LettaError | None:
        """The reply could not be resumed: wait for its run to end and complete the turn
        from what the run stored. ``None`` once done; if that fails too, ``error`` again
        (or that the server cannot be reached)."""
        try:
            run = await self._until_finished(run_id)
            messages = await self.client.list_run_messages(run_id)
        except APIConnectionError as unreachable:
            return unreachable
        except LettaError:
            return error
        if not messages or self._turn is None:  # nothing stored, or Esc meanwhile
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

    async def _run_of_dropped_reply(self, otid: str | None) -> str | None:
        """The run of a reply that dropped before naming it: the conversation's active run
        (a conversation runs one request at a time, and it had accepted this one); if none
        is active, the run ended meanwhile: the newest one that stored the message sent
        (``otid``), if it was one."""
        try:
            run = await self.active_run()
            if run is None and otid is not None:
                run = await self._ended_run_of(otid)
        except LettaError:
            return None
        return run.id if run is not None else None

    async def _ended_run_of(self, otid: str) -> Run | None:
        """Of the thread's newest few runs, the one whose stored user message is ``otid``."""
        runs = await self.client.recent_runs(self.agent.id, self.conversation_id)
        for run in runs[:ENDED_RUNS_SEARCHED]:
            messages = await self.client.list_run_messages(run.id)
            if any(isinstance(message, UserMessage) and message.otid == otid
                   for message in messages):
                return run
        return None

    async def _resume(self, run_id: str | None, dropped: StreamDroppedError,
                      on_change: OnChange, on_connection: OnConnection
                      ) -> tuple[LettaError | None, int]:
        """Re-attach to the dropped run after its last chunk, with growing pauses for about
        30 s; the error that ended the reply (``None`` once it ended well), and the cursor
        reached."""
        cursor = dropped.last_seq_id or 0
        if run_id is None or not self.background:  # a foreground reply cannot be resumed
            return dropped, cursor
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
                return None, cursor
            except StreamDroppedError as again:
                error, cursor = again, again.last_seq_id or cursor
            except APIConnectionError as again:
                error = again
            except LettaError as refused:  # expired, not a background run, unknown run
                return refused, cursor
        return error, cursor
