"""Requests to a Letta server over one ``httpx.AsyncClient``, and what comes back.

:class:`LettaHTTP` sends JSON requests and opens event streams; the server's errors and
network failures come out typed (:class:`~openletta.api.errors.LettaError`). The helpers at
the end check that an answer has the shape a model expects.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pydantic

from openletta import __version__
from openletta.api import json_text
from openletta.api.errors import (
    CONNECTION_PHASE,
    APIConnectionError,
    ConfigurationError,
    ConnectError,
    LettaError,
    RequestTimeout,
    ServerError,
    TLSHandshakeError,
    error_from_response,
)
from openletta.redaction import redact
from openletta.tls import context_for

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=10.0)
#: Idle connections are dropped after 4 s, before the 5 s after which uvicorn (Letta's
#: server) closes them: one it has just closed is seldom reused.
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=4.0)
ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)


def _trace_calling(on_wait: Callable[[], object]) -> Callable[..., Awaitable[None]]:
    """httpcore's ``trace`` extension calling ``on_wait`` once the request is sent and its
    answer is awaited."""

    async def trace(event: str, _info: dict[str, Any]) -> None:
        if event.endswith(".receive_response_headers.started"):
            on_wait()

    return trace


#: Pauses between two looks for a server that could not be reached (see
#: :func:`reach_again_pauses`).
REACH_AGAIN_PAUSES = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


def reach_again_pauses() -> Iterator[float]:
    """The pauses between two looks for a server that could not be reached:
    :data:`REACH_AGAIN_PAUSES`, then the last of them for ever."""
    yield from REACH_AGAIN_PAUSES
    while True:
        yield REACH_AGAIN_PAUSES[-1]


class LettaHTTP:
    """JSON requests and event streams to the server at ``base_url`` (see :class:`LettaClient`
    for ``on_wait``); every failure is a :class:`~openletta.api.errors.LettaError`."""

    def __init__(self, base_url: str, api_key: str | None, *,
                 transport: httpx.AsyncBaseTransport | None, timeout: httpx.Timeout,
                 on_wait: Callable[[], object] | None) -> None:
        self.base_url = base_url
        self._client = _http_client(base_url, api_key, transport, timeout)
        self._extensions = {"trace": _trace_calling(on_wait)} if on_wait else {}
        #: Whether the last request reached the server (``None`` before the first).
        self.reachable: bool | None = None
        #: ``time.monotonic()`` when the server last answered (``None``: never).
        self.last_answer: float | None = None
        self._reachability_listeners: list[Callable[[bool], None]] = []

    def watch_reachability(self, listener: Callable[[bool], None]) -> Callable[[], None]:
        """Call ``listener`` each time requests start or stop reaching the server (any
        answer counts; a failed connection or a timeout does not); returns the call that
        stops it (once called, calling it again does nothing)."""
        listeners = self._reachability_listeners
        listeners.append(listener)

        def stop() -> None:
            if listener in listeners:
                listeners.remove(listener)

        return stop

    def _reached(self, reached: bool) -> None:
        if reached:
            self.last_answer = time.monotonic()
        if reached != self.reachable:
            self.reachable = reached
            for listener in list(self._reachability_listeners):
                listener(reached)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def request(self, method: str, path: str, *, params: Any = None,
                      json: Any = None) -> Any:
        """Send a request and return its decoded JSON body (``None`` when empty).

        A GET whose connection closed before any answer is sent once more: that is how a
        pooled connection fails when the server closed it, idle, just as it was reused.
        """
        for attempts_left in (1, 0) if method == "GET" else (0,):
            try:
                response = await self._client.request(method, path, params=params, json=json,
                                                      extensions=self._extensions)
                break
            except httpx.RemoteProtocolError as error:
                if not attempts_left:
                    raise self._network_error(error) from error
            except httpx.TransportError as error:
                raise self._network_error(error) from error
        self._reached(True)
        if response.status_code >= 300:
            raise error_from_response(response.status_code, response.content)
        if not response.content:
            return None
        try:
            return json_text.loads(response.content)
        except json_text.JSONTextError as problem:
            raise ServerError(f"The Letta server sent an answer openletta cannot read: {problem}. "
                              "Check the base URL.", status_code=response.status_code,
                              body=response.text) from None

    async def open_stream(self, path: str, body: dict[str, Any]) -> httpx.Response:
        """POST ``body`` and return the open event-stream response (errors raised typed)."""
        request = self._client.build_request("POST", path, json=body,
                                             headers={"Accept": "text/event-stream"},
                                             extensions=self._extensions)
        try:
            response = await self._client.send(request, stream=True)
            self._reached(True)
            if response.status_code < 300 and _is_event_stream(response):
                return response
            try:
                content = await response.aread()
            finally:
                await response.aclose()
        except httpx.TransportError as error:
            raise self._network_error(error) from error
        if response.status_code >= 300:
            raise error_from_response(response.status_code, content)
        raise ServerError("The Letta server did not answer with an event stream. "
                          "Check that openletta supports this server version.",
                          status_code=response.status_code, body=response.text)

    def _network_error(self, error: httpx.TransportError) -> APIConnectionError:
        self._reached(False)
        shown_url = redact(self.base_url)
        if isinstance(error, httpx.ConnectError) and "[SSL" in str(error):
            return TLSHandshakeError(shown_url, str(error).split("]")[0].strip("[ "))
        if isinstance(error, httpx.ConnectError):
            return ConnectError(shown_url)
        if isinstance(error, httpx.ConnectTimeout):
            return RequestTimeout(shown_url, CONNECTION_PHASE)
        if isinstance(error, httpx.TimeoutException):
            return RequestTimeout(shown_url)
        return APIConnectionError(
            f"The connection to the Letta server at {shown_url} failed "
            f"({type(error).__name__}). Check the server and the network, then try again.")


def _http_client(base_url: str, api_key: str | None,
                 transport: httpx.AsyncBaseTransport | None,
                 timeout: httpx.Timeout) -> httpx.AsyncClient:
    """The HTTP client for ``base_url``; a :class:`ConfigurationError` when the URL or the
    key cannot work."""
    headers = {"User-Agent": f"openletta/{__version__}"}
    if api_key:
        headers["Authorization"] = f"Bearer {_header_safe_key(api_key)}"
    problem = "it does not start with http:// or https://"
    if base_url.lower().rstrip("/") in ("http:", "https:"):
        problem = "it names no host"
    elif base_url.lower().startswith(("http://", "https://")):
        try:
            problem = _address_problem(httpx.URL(base_url))
            if not problem:
                return httpx.AsyncClient(base_url=base_url, headers=headers, timeout=timeout,
                                         transport=transport, follow_redirects=False,
                                         verify=context_for(base_url), limits=LIMITS)
        except httpx.InvalidURL as error:
            problem = str(error)
    raise ConfigurationError(f"The base URL {redact(base_url)!r} cannot be used: "
                             f"{problem}. Check --base-url or LETTA_BASE_URL.")


def _address_problem(url: httpx.URL) -> str:
    """Why ``url`` names no server that can be reached ("" when it does)."""
    if not url.host:
        return "it names no host"
    if "%" in url.host or " " in url.host:
        return f"its host {url.host!r} is not a name or an address"
    if url.port is not None and not 0 < url.port < 65536:
        return f"its port {url.port} is not between 1 and 65535"
    return ""


def _header_safe_key(api_key: str) -> str:
    """The key without surrounding whitespace; a :class:`ConfigurationError` (which never
    holds the key) when it has characters an HTTP header cannot carry."""
    key = api_key.strip()
    if not key.isascii() or not key.isprintable() or any(char.isspace() for char in key):
        raise ConfigurationError("LETTA_API_KEY holds characters an HTTP header cannot carry "
                                 "(spaces, line breaks or non-ASCII letters). Copy the key "
                                 "again, without quotes.")
    return key


def _is_event_stream(response: httpx.Response) -> bool:
    return "text/event-stream" in response.headers.get("content-type", "")


def as_list(data: Any) -> list[Any]:
    """``data`` if it is a list; a :class:`ServerError` if not."""
    if not isinstance(data, list):
        raise ServerError("The Letta server sent something other than a list. "
                          "Check that openletta supports this server version.")
    return data


def validate(model: type[ModelT], data: Any) -> ModelT:
    """``data`` read as a ``model``; a :class:`ServerError` when it does not fit."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as error:
        raise ServerError(f"The Letta server sent an unexpected {model.__name__.lower()} "
                          f"({error.error_count()} problem(s)). Check that openletta "
                          "supports this server version.", body=str(data)[:2000]) from None


def validate_list(model: type[ModelT], data: Any) -> list[ModelT]:
    """A list of ``data`` read as ``model``'s (see :func:`validate`)."""
    return [validate(model, entry) for entry in as_list(data)]


def without_none(**params: Any) -> dict[str, Any]:
    """``params`` without the ones that are ``None`` (query parameters left out)."""
    return {name: value for name, value in params.items() if value is not None}


def route_missing(error: LettaError) -> bool:
    """True for FastAPI's answer to an unknown route or method (not a missing agent)."""
    return error.status_code == 405 or (
        error.status_code == 404 and error.server_message == "Not Found")
