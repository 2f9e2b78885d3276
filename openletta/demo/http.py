"""A minimal HTTP/1.1 server on asyncio streams: just enough for a Letta-compatible API.

Requests: request line, headers, ``Content-Length`` body, keep-alive. Responses: JSON with a
``Content-Length``, or Server-Sent Events with chunked transfer encoding. Routing matches
``{name}`` path segments and answers like FastAPI: 404 ``{"detail":"Not Found"}``, 405 for a
known path with another method, 307 to the other trailing-slash form of a known path.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 16 * 1024 * 1024

REASONS = {200: "OK", 307: "Temporary Redirect", 400: "Bad Request", 404: "Not Found",
           405: "Method Not Allowed", 409: "Conflict", 410: "Gone", 413: "Content Too Large",
           422: "Unprocessable Entity", 500: "Internal Server Error"}


class BadRequest(Exception):
    """The bytes on the connection are not an HTTP/1.1 request we can serve."""


class BadParameter(ValueError):
    """A parameter has the wrong type; the router answers 422 with ``str()`` as detail."""


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    #: Values of the ``{name}`` segments of the matched route.
    path_params: dict[str, str] = field(default_factory=dict)

    def param(self, name: str, default: str | None = None) -> str | None:
        """The last value of query parameter ``name``."""
        values = self.query.get(name)
        return values[-1] if values else default

    def params(self, name: str) -> list[str]:
        """Every value of a repeated query parameter (``include=a&include=b``)."""
        return self.query.get(name, [])

    def int_param(self, name: str, default: int) -> int:
        value = self.param(name)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise BadParameter(f"{name} must be an integer") from None

    def json(self) -> Any:
        """The body as JSON (``None`` when empty); raises ``ValueError`` when malformed."""
        return json.loads(self.body) if self.body.strip() else None

    def json_object(self) -> dict[str, Any]:
        """The body when it is a JSON object; ``{}`` for anything else (optional bodies)."""
        try:
            body = self.json()
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    @property
    def keep_alive(self) -> bool:
        return self.headers.get("connection", "").lower() != "close"


@dataclass
class JSONResponse:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class StreamResponse:
    """An SSE response; ``frames`` yields already encoded events (several at once is fine)."""

    frames: AsyncGenerator[bytes, None]


Response = JSONResponse | StreamResponse
Handler = Callable[[Request], Awaitable[Response]]


def sse_event(data: str, *, event: str | None = None) -> bytes:
    """Encode one Server-Sent Event (single-line data)."""
    prefix = f"event: {event}\n" if event else ""
    return f"{prefix}data: {data}\n\n".encode()


def not_found(detail: str = "Not Found") -> JSONResponse:
    return JSONResponse({"detail": detail}, status=404)


class Router:
    """Routes ``(method, path pattern)`` to handlers; :class:`BadParameter` becomes a 422."""

    def __init__(self) -> None:
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern)
        self._routes.append((method, re.compile(f"^{regex}$"), handler))

    async def __call__(self, request: Request) -> Response:
        allowed: list[str] = []
        for method, regex, handler in self._routes:
            match = regex.match(request.path)
            if match is None:
                continue
            if method == request.method:
                request.path_params = match.groupdict()
                try:
                    return await handler(request)
                except BadParameter as error:
                    return JSONResponse({"trace_id": "", "detail": str(error)}, status=422)
            allowed.append(method)
        if allowed:
            return JSONResponse({"detail": "Method Not Allowed"}, status=405,
                                headers={"allow": ", ".join(allowed)})
        other = request.path[:-1] if request.path.endswith("/") else request.path + "/"
        if any(regex.match(other) for _, regex, _ in self._routes):
            return self._redirect(request, other)
        return not_found()

    @staticmethod
    def _redirect(request: Request, path: str) -> JSONResponse:
        query = "&".join(f"{key}={value}" for key, values in request.query.items()
                         for value in values)
        location = f"{path}?{query}" if query else path
        return JSONResponse(None, status=307, headers={"location": location})


class HTTPServer:
    """Serves one handler on a loopback port; :meth:`close` also drops open connections."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (0 = any free port) and return the port."""
        self._server = await asyncio.start_server(self._serve, host, port, backlog=128)
        return self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = list(self._connections)
        for task, writer in list(self._connections.items()):
            writer.transport.abort()
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            while True:
                request = await read_request(reader)
                if request is None:
                    break
                response = await self._respond(request)
                await write_response(writer, response, keep_alive=request.keep_alive)
                if not request.keep_alive:
                    break
        except BadRequest as error:
            with contextlib.suppress(ConnectionError):
                await write_response(writer, JSONResponse({"detail": str(error)}, status=400),
                                     keep_alive=False)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:  # close() ends the connection; the task ends cleanly
            pass
        finally:
            self._connections.pop(task, None)
            writer.close()

    async def _respond(self, request: Request) -> Response:
        try:
            return await self._handler(request)
        except Exception:  # a bug in a handler must not kill the connection silently
            logger.exception("demo server: %s %s failed", request.method, request.path)
            return JSONResponse({"detail": "An unknown error occurred"}, status=500)


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """Read one request; ``None`` when the client closed the connection between requests."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        if error.partial.strip():
            raise BadRequest("Incomplete request") from None
        return None
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, _version = request_line.split(" ")
    except ValueError:
        raise BadRequest("Malformed request line") from None
    headers: dict[str, str] = {}
    for line in header_lines:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise BadRequest("Chunked request bodies are not supported")
    try:
        length = int(headers.get("content-length") or 0)
    except ValueError:
        raise BadRequest("Bad Content-Length") from None
    if not 0 <= length <= MAX_BODY_BYTES:
        raise BadRequest("Bad Content-Length")
    body = await reader.readexactly(length) if length else b""
    url = urlsplit(target)
    return Request(method=method.upper(), path=unquote(url.path),
                   query=parse_qs(url.query, keep_blank_values=True), headers=headers, body=body)


async def write_response(writer: asyncio.StreamWriter, response: Response, *,
                         keep_alive: bool) -> None:
    connection = "keep-alive" if keep_alive else "close"
    if isinstance(response, StreamResponse):
        writer.write(_head(200, {"content-type": "text/event-stream; charset=utf-8",
                                 "cache-control": "no-cache", "transfer-encoding": "chunked",
                                 "connection": connection}))
        async with contextlib.aclosing(response.frames) as frames:
            async for data in frames:
                writer.write(b"%x\r\n%b\r\n" % (len(data), data))
                await writer.drain()
        writer.write(b"0\r\n\r\n")
    else:
        body = b"" if response.body is None and response.status == 307 else json.dumps(
            response.body, separators=(",", ":"), ensure_ascii=False).encode()
        headers = {"content-type": "application/json", **response.headers,
                   "content-length": str(len(body)), "connection": connection}
        writer.write(_head(response.status, headers) + body)
    await writer.drain()


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
