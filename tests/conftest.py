"""Shared fixtures: the recorded captures and a loopback HTTP server that replays them.

:class:`ReplayServer` speaks plain HTTP/1.1 on 127.0.0.1 (asyncio streams, no framework),
answers each request with the next queued :class:`Reply`, records what it received and
can end a body cleanly, drop the connection mid-body or stall until the client leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import pytest

from openletta.api.client import LettaClient

#: Local times on screen (turn footers) must not depend on the machine's time zone.
os.environ["TZ"] = "UTC"
time.tzset()

FIXTURES = Path(__file__).parent / "fixtures"
SSE_TYPE = "text/event-stream; charset=utf-8"
JSON_TYPE = "application/json"
#: HTTP status of the captures that were not answered with 200 (from the recordings).
CAPTURE_STATUS = {
    "bg_resume_get_method.json": 405,
    "compact_nothing_to_compact_400.json": 400,
    "conv_busy_second_request.json": 409,
    "error_agent_bad_id_format.json": 422,
    "error_agent_not_found_404.json": 404,
    "error_stream_bad_message_422.json": 422,
    "error_stream_empty_body_422.json": 422,
    "error_stream_unknown_agent.json": 404,
    "hello_messages_endpoint_streaming_legacy_ua.json": 422,
    "llm_error_nonstream.json": 500,
    "resume_foreground_run_error.json": 400,
}
API_KEY = "test-key"


def _load_fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@pytest.fixture
def fixture_path() -> Callable[[str], Path]:
    """``fixture_path(name)``: the path of a recorded capture in ``tests/fixtures``."""
    return lambda name: FIXTURES / name


@pytest.fixture
def load_fixture() -> Callable[[str], bytes]:
    """``load_fixture(name)``: the exact bytes of a recorded capture."""
    return _load_fixture


Ending = Literal["end", "abort", "stall"]


@dataclass
class Reply:
    """One canned HTTP answer."""

    status: int = 200
    body: bytes = b""
    content_type: str = JSON_TYPE
    #: Send the body chunked, in pieces of this many bytes (``None``: one piece per SSE
    #: event for streams, a plain ``Content-Length`` body otherwise).
    chunk_size: int | None = None
    #: Send only this many bytes of the body.
    cut_after: int | None = None
    #: After the body: ``end`` it properly, ``abort`` (close without ending the body) or
    #: ``stall`` (keep the connection open until the client closes it).
    ending: Ending = "end"

    @classmethod
    def capture(cls, name: str, **options: Any) -> Reply:
        """A capture with its real status and content type."""
        content_type = SSE_TYPE if name.endswith(".sse") else JSON_TYPE
        return cls(CAPTURE_STATUS.get(name, 200), _load_fixture(name), content_type, **options)

    @classmethod
    def json(cls, data: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(data).encode())

    @classmethod
    def sse(cls, text: str, **options: Any) -> Reply:
        return cls(200, text.encode(), SSE_TYPE, **options)

    @property
    def streamed(self) -> bool:
        return self.content_type == SSE_TYPE or self.chunk_size is not None

    def pieces(self) -> list[bytes]:
        body = self.body if self.cut_after is None else self.body[: self.cut_after]
        if self.chunk_size is not None:
            return [body[i:i + self.chunk_size] for i in range(0, len(body), self.chunk_size)]
        if self.content_type == SSE_TYPE:  # one piece per event, as the server sends them
            events = [event + b"\n\n" for event in body.split(b"\n\n")]
            events[-1] = events[-1].removesuffix(b"\n\n")  # a cut leaves an unfinished event
            return [event for event in events if event]
        return [body]


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    raw_body: bytes

    @property
    def body(self) -> Any:
        """The JSON body, or ``None`` when there is none."""
        return json.loads(self.raw_body) if self.raw_body else None


@dataclass
class ReplayServer:
    """A loopback HTTP/1.1 server answering with queued :class:`Reply` objects in order."""

    replies: deque[Reply] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    #: Set when a client closed a connection the server was stalling on.
    client_left: asyncio.Event = field(default_factory=asyncio.Event)
    base_url: str = ""
    _server: asyncio.Server | None = None
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)

    def reply_capture(self, name: str, **options: Any) -> None:
        """Queue a capture with its real status and content type."""
        self.replies.append(Reply.capture(name, **options))

    def reply_bytes(self, body: bytes, status: int = 200) -> None:
        """Queue a body exactly as given (labelled JSON)."""
        self.replies.append(Reply(status=status, body=body))

    def reply_json(self, data: Any, status: int = 200) -> None:
        self.replies.append(Reply.json(data, status))

    def reply_sse(self, text: str, **options: Any) -> None:
        self.replies.append(Reply.sse(text, **options))

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"
        return self.base_url

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *header_lines = head.rstrip("\r\n").split("\r\n")
        method, target, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        url = urlsplit(target)
        self.requests.append(RecordedRequest(method, url.path, parse_qs(url.query),
                                             headers, body))
        reply = self.replies.popleft() if self.replies else Reply.json(
            {"detail": f"no reply queued for {method} {url.path}"}, 500)
        await self._answer(reply, reader, writer)

    async def _answer(self, reply: Reply, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        lines = [f"HTTP/1.1 {reply.status} {HTTPStatus(reply.status).phrase}",
                 f"content-type: {reply.content_type}", "connection: close"]
        if reply.streamed:
            lines.append("transfer-encoding: chunked")
        else:
            lines.append(f"content-length: {len(reply.body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        for piece in reply.pieces():
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece) if reply.streamed else piece)
            await writer.drain()
        if reply.ending == "abort":
            return
        if reply.ending == "stall":
            await reader.read()  # until the client closes the connection
            self.client_left.set()
            return
        if reply.streamed:
            writer.write(b"0\r\n\r\n")
        await writer.drain()


@pytest.fixture
async def replay_server() -> AsyncIterator[ReplayServer]:
    """A started :class:`ReplayServer`; queue answers with its ``reply_*`` methods."""
    server = ReplayServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def replay_client(replay_server: ReplayServer) -> AsyncIterator[LettaClient]:
    """A :class:`LettaClient` with an API key, talking to :func:`replay_server`."""
    async with LettaClient(replay_server.base_url, api_key=API_KEY) as client:
        yield client
