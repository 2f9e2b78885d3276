"""Reading Letta's server-sent event streams into message models.

One per-event state machine (:class:`StreamState`) serves both the live reader
(:class:`MessageStream`, over an ``httpx`` response) and the offline one
(:func:`parse_sse_text`, for ``openletta replay`` and tests).

How a stream ends (``ended``):

* ``"done"``: ``data: [DONE]`` arrived (also when it followed an error or a stop reason);
* ``"stop_reason"``: a ``stop_reason`` arrived, then the stream closed without ``[DONE]``
  (a cancelled foreground run ends like this);
* ``"error"``: an ``event: error`` arrived and nothing but the end followed. It is yielded
  as an :class:`~openletta.api.messages.ErrorMessage` and is terminal;
* ``"cancelled"``: an ``event: cancelled`` arrived;
* ``None``: the stream stopped with none of these. :class:`MessageStream` raises
  :class:`~openletta.api.errors.StreamDroppedError` after yielding what arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
from httpx_sse import EventSource, ServerSentEvent

from openletta.api import json_text
from openletta.api.errors import LettaError, StreamDroppedError, error_from_stream
from openletta.api.messages import (
    ErrorMessage,
    Message,
    StopReason,
    UnknownMessage,
    parse_known_json,
    parse_message,
)

log = logging.getLogger(__name__)

Ended = Literal["done", "stop_reason", "error", "cancelled"]
DONE = "[DONE]"
#: After a stop reason or an error only the tail (usage, ``[DONE]``) is expected: wait this
#: long for each further event, then end quietly instead of hanging on a silent connection.
DRAIN_TIMEOUT = 5.0
#: A stream that sends nothing for this long, pings included (the server pings after 20 s
#: of silence), is taken as dropped.
STALL_TIMEOUT = 45.0
SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"


class StreamState:
    """What a stream has said so far; :meth:`feed` turns one SSE event into messages."""

    def __init__(self, starting_after: int | None = None) -> None:
        self.run_id: str | None = None
        #: The highest ``seq_id`` seen on a chunk (background runs only; ``starting_after``
        #: for a resumed stream until more arrives): the cursor to resume after. Chunks seen
        #: before are not dropped here: the transcript ignores them (one place).
        self.last_seq_id: int | None = starting_after
        self.stop_reason: str | None = None
        self.ended: Ended | None = None
        #: The typed error of an in-stream ``event: error``.
        self.error: LettaError | None = None
        #: True once nothing more is to be read.
        self.finished = False

    @property
    def draining(self) -> bool:
        """True after a stop reason or an error: only the tail of the stream is expected."""
        return self.ended is not None

    def feed(self, event: str, data: str) -> list[Message]:
        """The messages carried by one event (usually one; none for markers and repeats)."""
        chunk = (self.ended != "error" and not self.finished and data[:1] == "{"
                 and event == "message")
        if chunk:  # as nearly every event is: read straight into its model
            known = parse_known_json(data)
            if known is not None:
                return self._message(known)
        if self.finished:
            return []
        if data.strip() == DONE:
            self.ended, self.finished = "done", True
            return []
        if self.ended == "error":  # only [DONE] may follow an error
            self.finished = True
            return []
        if event == "cancelled":
            self.ended, self.finished = "cancelled", True
            if self.stop_reason:
                return []
            self.stop_reason = "cancelled"
            return [StopReason(stop_reason="cancelled")]
        if event == "error":
            return [self._error(data)]
        if not data.strip():
            return []
        known = None if chunk else parse_known_json(data)  # a chunk was tried above
        if known is not None:
            return self._message(known)
        try:
            payload = json_text.loads(data)
        except json_text.JSONTextError as problem:
            log.warning("Skipping a malformed SSE data line (%s): %.200r", problem, data)
            return [UnknownMessage(message_type="malformed",
                                   raw={"data": data, "error": str(problem)})]
        if isinstance(payload, dict) and payload.get("message_type") == "error_message":
            return [self._error(data)]
        return self._message(parse_message(payload))

    def finish_at_end_of_stream(self) -> None:
        """Record that the connection closed."""
        self.finished = True

    def _message(self, message: Message) -> list[Message]:
        seq_id = getattr(message, "seq_id", None)
        if seq_id is not None:
            self.last_seq_id = max(seq_id, self.last_seq_id or 0)
        if run_id := getattr(message, "run_id", None):  # _note_run, without a call per chunk
            self.run_id = run_id
        if type(message) is StopReason:  # not isinstance(): pydantic's classes are ABCs, slow
            self.stop_reason = message.stop_reason
            self.ended = "stop_reason"
        return [message]

    def _error(self, data: str) -> ErrorMessage:
        message = _error_message(data)
        self._note_run(message.run_id)
        self.ended = "error"
        self.error = error_from_stream(message)
        return message

    def _note_run(self, run_id: str | None) -> None:
        if run_id:
            self.run_id = run_id


_NO_MESSAGE = ErrorMessage.model_fields["message"].default


def _error_message(data: str) -> ErrorMessage:
    """An :class:`ErrorMessage` from any ``event: error`` payload, never raising."""
    try:
        payload: Any = json_text.loads(data)
    except json_text.JSONTextError:
        payload = data.strip()
    if isinstance(payload, dict) and ("message" in payload or "error" in payload):
        with contextlib.suppress(ValueError):
            error = ErrorMessage.model_validate(payload)
            if error.message != _NO_MESSAGE or error.detail is not None:
                return error
    if isinstance(payload, str) and payload:
        return ErrorMessage(message=payload)
    return ErrorMessage(detail=data.strip() or None)


# --- offline: a whole recorded stream -----------------------------------------------------


@dataclass
class SSEParseResult:
    """Everything a recorded stream holds, and how it ended (see the module docstring)."""

    messages: list[Message] = field(default_factory=list)
    ended: Ended | None = None
    stop_reason: str | None = None
    run_id: str | None = None
    last_seq_id: int | None = None
    error: LettaError | None = None


def parse_sse_text(text: str | bytes, *, starting_after: int | None = None) -> SSEParseResult:
    """Parse a whole SSE body; a last event missing its blank line still counts."""
    state = StreamState(starting_after)
    messages: list[Message] = []
    for event, data in recorded_events(text):
        messages.extend(state.feed(event, data))
        if state.finished:
            break
    state.finish_at_end_of_stream()
    return SSEParseResult(messages, state.ended, state.stop_reason, state.run_id,
                          state.last_seq_id, state.error)


def parse_sse_file(path: str | Path) -> SSEParseResult:
    """:func:`parse_sse_text` of a file."""
    return parse_sse_text(Path(path).read_bytes())


def recorded_events(text: str | bytes) -> Iterator[tuple[str, str]]:
    """``(event, data)`` of each event of a whole body, as :class:`EventSource` reads them
    from a response (the decoder of the SSE standard, without a response's machinery).

    An event of one ``data: `` line (nearly every one) is sliced out whole; anything else is
    read line by line (:class:`_EventLines`).
    """
    text = _recorded_body(text)
    lines = _EventLines()
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)  # each line ends with one
        if not lines.pending and text.startswith("data: ", start) and text.startswith(
                "\n", end + 1):
            yield "message", text[start + 6:end]
            start = end + 2
        else:
            yield from lines.read(text[start:end])
            start = end + 1


class _EventLines:
    """The SSE standard's decoder, one line at a time (the last event id outlives events)."""

    def __init__(self) -> None:
        self.event, self.last_id, self.retry = "", "", False
        self.data: list[str] = []
        #: Whether an event has begun and not ended.
        self.pending = False

    def read(self, line: str) -> Iterator[tuple[str, str]]:
        """The event that ``line`` ends, if it ends one."""
        if line:
            self._field(line)
            self.pending = bool(self.event or self.data or self.retry)
        elif self.pending or self.last_id:
            yield self.event or "message", "\n".join(self.data)
            self.event, self.data, self.retry = "", [], False  # the id is kept
            self.pending = False

    def _field(self, line: str) -> None:
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.event = value
        elif name == "id" and "\0" not in value:
            self.last_id = value
        elif name == "retry":
            self.retry = self.retry or _is_int(value)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _recorded_body(text: str | bytes) -> str:
    """A body decoded as a response decodes it (UTF-8, bad bytes replaced), its line breaks
    (``\\r\\n``, ``\\r`` and ``\\n`` only) made ``\\n``, and ending with a blank line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    elif not text.isascii():
        text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates: "?"
    if not text.endswith("\n\n"):
        text += "\n\n"
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# --- live: an HTTP response -----------------------------------------------------------------

ResponseOpener = Callable[[], Awaitable[httpx.Response]]


class MessageStream:
    """The messages of one streamed reply, read as they arrive.

    ``async with client.send_message(...) as stream: async for message in stream: ...``.
    Entering sends the request (HTTP errors raise there, typed); iterating yields
    :data:`~openletta.api.messages.Message` models until the stream ends, then raises
    :class:`StreamDroppedError` if it ended without a marker or sent nothing, not even a
    ping, for ``stall_timeout`` seconds. Leaving the block (or
    :meth:`aclose`, or cancelling the task that iterates) closes the HTTP response.
    """

    def __init__(self, open_response: ResponseOpener, *, starting_after: int | None = None,
                 drain_timeout: float = DRAIN_TIMEOUT,
                 stall_timeout: float | None = None) -> None:
        self._open_response = open_response
        self._state = StreamState(starting_after)
        self._drain_timeout = drain_timeout
        self._stall_timeout = STALL_TIMEOUT if stall_timeout is None else stall_timeout
        self._response: httpx.Response | None = None
        self._events: AsyncGenerator[ServerSentEvent, None] | None = None
        self._pending: deque[Message] = deque()
        self._closed = False

    @property
    def run_id(self) -> str | None:
        return self._state.run_id

    @property
    def last_seq_id(self) -> int | None:
        return self._state.last_seq_id

    @property
    def stop_reason(self) -> str | None:
        return self._state.stop_reason

    @property
    def ended(self) -> Ended | None:
        return self._state.ended

    @property
    def error(self) -> LettaError | None:
        """The typed error of an in-stream ``event: error`` (it is also yielded)."""
        return self._state.error

    @property
    def closed(self) -> bool:
        """True once the HTTP response is closed."""
        return self._closed

    async def open(self) -> None:
        """Send the request (once); raises the typed error of a failed request."""
        if self._closed:
            raise RuntimeError("this stream is closed")
        if self._response is None:
            self._response = await self._open_response()
            self._events = EventSource(self._response).aiter_sse()

    async def aclose(self) -> None:
        """Stop reading and close the HTTP response (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._pending.clear()
        if self._events is not None:
            with contextlib.suppress(RuntimeError):  # being read by a task now cancelled
                await self._events.aclose()
        if self._response is not None:
            await self._response.aclose()

    async def __aenter__(self) -> MessageStream:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __aiter__(self) -> MessageStream:
        return self

    async def __anext__(self) -> Message:
        if not self._closed:
            await self.open()
        while not self._pending:
            if self._closed:
                raise StopAsyncIteration
            if self._state.finished:
                await self.aclose()
                raise StopAsyncIteration
            await self._read_event()
        return self._pending.popleft()

    async def _read_event(self) -> None:
        assert self._events is not None
        draining = self._state.draining
        try:
            async with asyncio.timeout(self._drain_timeout if draining else self._stall_timeout):
                event = await anext(self._events)
        except StopAsyncIteration:
            await self._end("the connection closed")
        except TimeoutError:
            if not draining:
                await self._end(f"nothing arrived for {self._stall_timeout:.0f} s")
            self._state.finish_at_end_of_stream()
        except httpx.TimeoutException as error:
            await self._end("no data arrived in time", error)
        except httpx.TransportError as error:
            await self._end("the connection broke", error)
        else:
            self._pending.extend(self._state.feed(event.event, event.data))

    async def _end(self, reason: str, cause: Exception | None = None) -> None:
        """The connection ended: fine after a marker, a dropped stream otherwise."""
        dropped = self._state.ended is None and not self._closed
        self._state.finish_at_end_of_stream()
        if dropped:
            await self.aclose()
            raise StreamDroppedError(self.run_id, self.last_seq_id, reason) from cause
