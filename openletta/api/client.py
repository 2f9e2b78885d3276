"""An async client for the Letta REST API (the calls a chat client needs).

Collection paths end with a slash and item paths do not (the server redirects the other
forms with 307, and redirects are not followed). Agent reads always pass ``include=``
explicitly. Every failure is a :class:`~openletta.api.errors.LettaError`.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import httpx
import pydantic

from openletta import __version__
from openletta.api import json_text
from openletta.api.errors import (
    APIConnectionError,
    ConfigurationError,
    ConflictError,
    ConnectError,
    ConversationBusyError,
    LettaError,
    RequestTimeout,
    ServerError,
    ValidationError,
    error_from_response,
)
from openletta.api.history import HistoryPage, history_page
from openletta.api.models import (
    Agent,
    ApprovalRequestMessage,
    Block,
    ContextWindow,
    Conversation,
    Health,
    Message,
    Run,
    RunUsage,
    Step,
    StepMetrics,
    Tool,
    parse_message,
)
from openletta.api.sse import MessageStream
from openletta.config import resolve_connection
from openletta.display import redact, register_secret

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=10.0)
#: The conversations API addresses an agent's default thread (``default`` + ``agent_id``)
#: from this version on; older servers get the deprecated agent stream endpoint.
AGENT_DIRECT_VERSION = (0, 16, 6)
#: The first server version that takes ``client_tools`` in a request.
CLIENT_TOOLS_VERSION = (0, 16, 2)
DEFAULT_THREAD = "default"
FINISHED_RUN_STATES = frozenset({"completed", "failed", "cancelled"})
#: Core memory blocks read at once (an agent has a handful).
BLOCKS_LIMIT = 100
#: ``GET /v1/agents/{id}/tools`` returns 10 tools unless told otherwise.
TOOLS_LIMIT = 1000
RESUME_BATCH_SIZE = 1000
RUN_MESSAGES_LIMIT = 1000
#: Active runs read when looking for the one to follow (a thread runs one at a time).
ACTIVE_RUNS_LIMIT = 20

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)


class ApprovalAnswer(pydantic.BaseModel):
    """The user's decision on one pending tool call."""

    type: Literal["approval"] = "approval"
    tool_call_id: str
    approve: bool
    reason: str | None = None


class ToolReturnAnswer(pydantic.BaseModel):
    """The result of a pending call of a client-side tool, run here."""

    type: Literal["tool"] = "tool"
    tool_call_id: str
    tool_return: str
    status: Literal["success", "error"]
    stdout: list[str] | None = None
    stderr: list[str] | None = None


#: One entry of the answer to a round of pending calls.
Answer = ApprovalAnswer | ToolReturnAnswer


def parse_version(version: str) -> tuple[int, ...] | None:
    """``"0.16.8"`` → ``(0, 16, 8)``; ``None`` when there is no leading number."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def _trace_calling(on_wait: Callable[[], object]) -> Callable[..., Awaitable[None]]:
    """httpcore's ``trace`` extension calling ``on_wait`` once the request is sent and its
    answer is awaited."""

    async def trace(event: str, _info: dict[str, Any]) -> None:
        if event.endswith(".receive_response_headers.started"):
            on_wait()

    return trace


class LettaClient:
    """The Letta REST API over one ``httpx.AsyncClient`` (use ``async with`` or :meth:`aclose`).

    ``on_wait`` is called each time a request has gone out and the client starts waiting for
    the server's answer: time the server takes anyway, in which the caller may do work of its
    own (it is called from the event loop, so the answer waits while it runs).
    """

    def __init__(self, base_url: str, api_key: str | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None,
                 timeout: httpx.Timeout = DEFAULT_TIMEOUT,
                 on_wait: Callable[[], object] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        register_secret(api_key.strip() if api_key else None)
        self._http = _http_client(self.base_url, api_key, transport, timeout)
        #: The server's version as numbers, known after :meth:`health`.
        self.server_version: tuple[int, ...] | None = None
        self._agent_stream_only = False
        self._history_filter = True
        self._extensions = {"trace": _trace_calling(on_wait)} if on_wait else {}

    @classmethod
    def from_settings(cls, base_url: str | None = None, api_key: str | None = None, *,
                      env: Mapping[str, str] = os.environ, **options: Any) -> LettaClient:
        """A client for the server chosen by :func:`openletta.config.resolve_connection`."""
        connection = resolve_connection(base_url, api_key, env)
        return cls(connection.base_url, connection.api_key, **options)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> LettaClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- server, agents, tools ----------------------------------------------------------

    async def health(self) -> Health:
        """``GET /v1/health/``; also records :attr:`server_version`."""
        health = _validate(Health, await self._request("GET", "/v1/health/"))
        self.server_version = parse_version(health.version)
        return health

    async def list_agents(self, query: str | None = None, limit: int = 50,
                          after: str | None = None) -> list[Agent]:
        """Agents whose name contains ``query``, most recently used first."""
        params = _without_none(limit=limit, order="desc", order_by="last_run_completion",
                               query_text=query, after=after)
        return _validate_list(Agent, await self._request("GET", "/v1/agents/", params=params))

    async def get_agent(self, agent_id: str, *, tools: bool = False, blocks: bool = False,
                        pending_approval: bool = True) -> Agent:
        include = [name for name, wanted in (("agent.tools", tools), ("agent.blocks", blocks),
                                             ("agent.pending_approval", pending_approval))
                   if wanted]
        params = {"include": include} if include else None
        return _validate(Agent, await self._request("GET", f"/v1/agents/{agent_id}",
                                                    params=params))

    async def list_agent_tools(self, agent_id: str) -> list[Tool]:
        data = await self._request("GET", f"/v1/agents/{agent_id}/tools",
                                   params={"limit": TOOLS_LIMIT})
        return _validate_list(Tool, data)

    async def set_tool_approval(self, agent_id: str, tool_name: str,
                                requires_approval: bool) -> None:
        """Make calls of ``tool_name`` wait for the user's approval (or not)."""
        path = f"/v1/agents/{agent_id}/tools/approval/{quote(tool_name, safe='')}"
        await self._request("PATCH", path, json={"requires_approval": requires_approval})

    # --- conversations and history ------------------------------------------------------

    async def list_blocks(self, agent_id: str) -> list[Block]:
        """The agent's core memory blocks."""
        data = await self._request("GET", f"/v1/agents/{agent_id}/core-memory/blocks",
                                   params={"limit": BLOCKS_LIMIT})
        return _validate_list(Block, _as_list(data))

    async def update_block(self, agent_id: str, label: str, value: str) -> Block:
        """Set the value of the agent's block ``label`` (the user asked for this change)."""
        path = f"/v1/agents/{agent_id}/core-memory/blocks/{quote(label, safe='')}"
        data = await self._request("PATCH", path, json={"value": value})
        return _validate(Block, data)

    async def list_conversations(self, agent_id: str, limit: int = 50,
                                 after: str | None = None) -> list[Conversation]:
        params = _without_none(agent_id=agent_id, limit=limit, order="desc",
                               order_by="last_message_at", after=after)
        data = await self._request("GET", "/v1/conversations/", params=params)
        return _validate_list(Conversation, data)

    async def create_conversation(self, agent_id: str, summary: str | None = None) -> Conversation:
        data = await self._request("POST", "/v1/conversations/", params={"agent_id": agent_id},
                                   json=_without_none(summary=summary))
        return _validate(Conversation, data)

    async def get_conversation(self, conversation_id: str) -> Conversation:
        data = await self._request("GET", f"/v1/conversations/{conversation_id}")
        return _validate(Conversation, data)

    async def list_messages(self, agent_id: str, conversation_id: str | None = None,
                            before: str | None = None, limit: int = 50) -> HistoryPage:
        """The newest ``limit`` rows of a thread (older than ``before``), oldest first."""
        params = _without_none(limit=limit, order="desc", before=before)
        if conversation_id is not None:
            data = await self._request("GET", f"/v1/conversations/{conversation_id}/messages",
                                       params=params)
            return history_page(_as_list(data), limit=limit, newest_first=True)
        path = f"/v1/agents/{agent_id}/messages"
        if self._history_filter:
            try:
                data = await self._request("GET", path, params={
                    **params, "conversation_id": DEFAULT_THREAD})
                return history_page(_as_list(data), limit=limit, newest_first=False)
            except ValidationError:  # a server from before conversations
                self._history_filter = False
        data = await self._request("GET", path, params=params)
        return history_page(_as_list(data), limit=limit, newest_first=False)

    async def get_pending_approval(self, agent_id: str, conversation_id: str | None = None
                                   ) -> ApprovalRequestMessage | None:
        """The tool-call approval request the thread waits on, if any."""
        if conversation_id is None:
            return (await self.get_agent(agent_id, pending_approval=True)).pending_approval
        conversation = await self.get_conversation(conversation_id)
        if not conversation.in_context_message_ids:
            return None
        last_id = conversation.in_context_message_ids[-1]
        data = await self._request("GET", f"/v1/messages/{last_id}")
        for entry in data if isinstance(data, list) else [data]:
            message = parse_message(entry)
            if isinstance(message, ApprovalRequestMessage):
                return message
        return None

    # --- sending, resuming, cancelling --------------------------------------------------

    def send_message(self, agent_id: str, text: str, *, conversation_id: str | None = None,
                     otid: str | None = None, background: bool = False,
                     stream_tokens: bool = True,
                     client_tools: Sequence[Mapping[str, Any]] = ()) -> MessageStream:
        """Send ``text`` as the user; the reply streams (see :class:`MessageStream`).

        ``client_tools``: tools this client runs (name, description, JSON schema); the agent
        may call them, and every such call comes back as a pending approval.
        """
        item = {"type": "message", "role": "user", "content": text,
                "otid": otid or str(uuid.uuid4())}
        return self._stream_turn(agent_id, conversation_id, item,
                                 turn_options(background, stream_tokens,
                                               self._declarable(client_tools)))

    def send_approvals(self, agent_id: str, decisions: Sequence[Answer], *,
                       conversation_id: str | None = None, background: bool = False,
                       stream_tokens: bool = True,
                       client_tools: Sequence[Mapping[str, Any]] = ()) -> MessageStream:
        """Answer a pending approval request; ``decisions`` must cover every pending call
        (results of client-side tools go as :class:`ToolReturnAnswer`)."""
        if not decisions:
            raise ValueError("send_approvals needs at least one decision")
        item = {"type": "approval",
                "approvals": [decision.model_dump(exclude_none=True) for decision in decisions]}
        return self._stream_turn(agent_id, conversation_id, item,
                                 turn_options(background, stream_tokens,
                                               self._declarable(client_tools)))

    def resume_stream(self, run_id: str, starting_after: int) -> MessageStream:
        """Re-attach to a background run, after the chunk with ``seq_id`` ``starting_after``."""
        body = {"starting_after": starting_after, "include_pings": True,
                "batch_size": RESUME_BATCH_SIZE}
        return MessageStream(lambda: self._open_stream(f"/v1/runs/{run_id}/stream", body),
                             starting_after=starting_after)

    async def cancel(self, agent_id: str, *, conversation_id: str | None = None,
                     run_ids: Sequence[str] | None = None) -> dict[str, str]:
        """Stop active runs; returns ``{run_id: status}`` (empty when nothing ran)."""
        agent_cancel = f"/v1/agents/{agent_id}/messages/cancel"
        try:
            if run_ids:
                data = await self._request("POST", agent_cancel, json={"run_ids": list(run_ids)})
            elif conversation_id is None and self._agent_stream_needed():
                data = await self._request("POST", agent_cancel)
            else:
                data = await self._cancel_conversation(agent_id, conversation_id, agent_cancel)
        except ConflictError as error:
            if error.status_code != 409:
                raise
            return {}
        return {str(run): str(status) for run, status in data.items()} if isinstance(
            data, dict) else {}

    async def get_run(self, run_id: str) -> Run:
        return _validate(Run, await self._request("GET", f"/v1/runs/{run_id}"))

    async def active_runs(self, agent_id: str, conversation_id: str | None = None) -> list[Run]:
        """The agent's runs still going (created or running) in one thread, newest first;
        ``conversation_id`` ``None`` is the default thread."""
        data = await self._request("GET", "/v1/runs/", params={
            "agent_id": agent_id, "active": "true", "order": "desc",
            "limit": ACTIVE_RUNS_LIMIT})
        return [run for run in _validate_list(Run, _as_list(data))
                if run.status not in FINISHED_RUN_STATES
                and _in_thread(run, agent_id, conversation_id)]

    async def list_run_steps(self, run_id: str) -> list[Step]:
        """The LLM calls of a run, in order."""
        data = await self._request("GET", f"/v1/runs/{run_id}/steps",
                                   params={"order": "asc", "limit": RUN_MESSAGES_LIMIT})
        return _validate_list(Step, _as_list(data))

    async def get_step_metrics(self, step_id: str) -> StepMetrics:
        """How long a step took: in all, waiting for the model, running its tool."""
        return _validate(StepMetrics, await self._request(
            "GET", f"/v1/steps/{step_id}/metrics"))

    async def get_run_usage(self, run_id: str) -> RunUsage:
        """The tokens a run used."""
        return _validate(RunUsage, await self._request("GET", f"/v1/runs/{run_id}/usage"))

    async def get_context(self, agent_id: str) -> ContextWindow:
        """How the agent's context window is spent now."""
        return _validate(ContextWindow, await self._request(
            "GET", f"/v1/agents/{agent_id}/context"))

    async def list_run_messages(self, run_id: str) -> list[Message]:
        """What a run stored, oldest first (a cancelled run stores nothing)."""
        data = await self._request("GET", f"/v1/runs/{run_id}/messages",
                                   params={"limit": RUN_MESSAGES_LIMIT, "order": "asc"})
        return [parse_message(entry) for entry in _as_list(data)]

    async def _cancel_conversation(self, agent_id: str, conversation_id: str | None,
                                   agent_cancel: str) -> Any:
        params = {"agent_id": agent_id} if conversation_id is None else None
        path = f"/v1/conversations/{conversation_id or DEFAULT_THREAD}/cancel"
        try:
            return await self._request("POST", path, params=params)
        except LettaError as error:
            if not _route_missing(error):
                raise
        return await self._request("POST", agent_cancel)

    def _stream_turn(self, agent_id: str, conversation_id: str | None, item: dict[str, Any],
                     options: dict[str, Any]) -> MessageStream:
        return MessageStream(lambda: self._open_turn(agent_id, conversation_id, item, options))

    async def _open_turn(self, agent_id: str, conversation_id: str | None,
                         item: dict[str, Any], options: dict[str, Any]) -> httpx.Response:
        """Send one turn to the conversations API, or the agent stream API on old servers."""
        agent_stream = (f"/v1/agents/{agent_id}/messages/stream",
                        {"messages": [item], **options})
        if conversation_id is None and self._agent_stream_needed():
            return await self._open_stream(*agent_stream)
        body: dict[str, Any] = {"messages": [item], "streaming": True, **options}
        if conversation_id is None:
            body["agent_id"] = agent_id
        path = f"/v1/conversations/{conversation_id or DEFAULT_THREAD}/messages"
        try:
            return await self._open_stream(path, body)
        except ConversationBusyError as error:
            if conversation_id is not None or not await self._lock_is_stale(error):
                raise
            return await self._open_stream(*agent_stream)
        except LettaError as error:
            if conversation_id is not None or not _route_missing(error):
                raise
        self._agent_stream_only = True
        return await self._open_stream(*agent_stream)

    async def _lock_is_stale(self, error: ConversationBusyError) -> bool:
        """True when the run holding the default thread's lock has already ended.

        Letta 0.16.8 keeps the default thread's lock for minutes after a cancelled run; the
        agent stream route takes no lock, so a send can go that way once the run is over.
        """
        if error.run_id is None:
            return False
        try:
            run = await self.get_run(error.run_id)
        except LettaError:
            return False
        return run.status in FINISHED_RUN_STATES

    def _declarable(self, client_tools: Sequence[Mapping[str, Any]]
                    ) -> Sequence[Mapping[str, Any]]:
        """``client_tools``, unless the server is known to be too old to take them."""
        old = self.server_version is not None and self.server_version < CLIENT_TOOLS_VERSION
        return () if old else client_tools

    def _agent_stream_needed(self) -> bool:
        old = self.server_version is not None and self.server_version < AGENT_DIRECT_VERSION
        return self._agent_stream_only or old

    # --- HTTP -------------------------------------------------------------------------

    async def _request(self, method: str, path: str, *, params: Any = None,
                       json: Any = None) -> Any:
        """Send a request and return its decoded JSON body (``None`` when empty)."""
        try:
            response = await self._http.request(method, path, params=params, json=json,
                                                extensions=self._extensions)
        except httpx.TransportError as error:
            raise self._network_error(error) from error
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

    async def _open_stream(self, path: str, body: dict[str, Any]) -> httpx.Response:
        """POST ``body`` and return the open event-stream response (errors raised typed)."""
        request = self._http.build_request("POST", path, json=body,
                                           headers={"Accept": "text/event-stream"},
                                           extensions=self._extensions)
        try:
            response = await self._http.send(request, stream=True)
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
        shown_url = redact(self.base_url)
        if isinstance(error, httpx.ConnectError):
            return ConnectError(shown_url)
        if isinstance(error, httpx.ConnectTimeout):
            return RequestTimeout(shown_url, "accept the connection")
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
    if base_url.lower().startswith(("http://", "https://")):
        try:
            return httpx.AsyncClient(base_url=base_url, headers=headers, timeout=timeout,
                                     transport=transport, follow_redirects=False)
        except httpx.InvalidURL as error:
            problem = str(error)
    raise ConfigurationError(f"The base URL {redact(base_url)!r} cannot be used: "
                             f"{problem}. Check --base-url or LETTA_BASE_URL.")


def _header_safe_key(api_key: str) -> str:
    """The key without surrounding whitespace; a :class:`ConfigurationError` (which never
    holds the key) when it has characters an HTTP header cannot carry."""
    key = api_key.strip()
    if not key.isascii() or not key.isprintable() or any(char.isspace() for char in key):
        raise ConfigurationError("LETTA_API_KEY holds characters an HTTP header cannot carry "
                                 "(spaces, line breaks or non-ASCII letters). Copy the key "
                                 "again, without quotes.")
    return key


def turn_options(background: bool, stream_tokens: bool,
                  client_tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The request options of a turn (``client_tools`` only when there are some)."""
    options: dict[str, Any] = {"stream_tokens": stream_tokens, "include_pings": True,
                               "background": background}
    if client_tools:
        options["client_tools"] = [dict(tool) for tool in client_tools]
    return options


def _in_thread(run: Run, agent_id: str, conversation_id: str | None) -> bool:
    """Whether ``run`` belongs to the thread (``None``: the agent's default thread)."""
    if conversation_id is not None:
        return run.conversation_id == conversation_id
    return run.conversation_id in (None, DEFAULT_THREAD, agent_id)


def _route_missing(error: LettaError) -> bool:
    """True for FastAPI's answer to an unknown route or method (not a missing agent)."""
    return error.status_code == 405 or (
        error.status_code == 404 and error.server_message == "Not Found")


def _is_event_stream(response: httpx.Response) -> bool:
    return "text/event-stream" in response.headers.get("content-type", "")


def _without_none(**params: Any) -> dict[str, Any]:
    return {name: value for name, value in params.items() if value is not None}


def _as_list(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise ServerError("The Letta server sent something other than a list. "
                          "Check that openletta supports this server version.")
    return data


def _validate(model: type[ModelT], data: Any) -> ModelT:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as error:
        raise ServerError(f"The Letta server sent an unexpected {model.__name__.lower()} "
                          f"({error.error_count()} problem(s)). Check that openletta "
                          "supports this server version.", body=str(data)[:2000]) from None


def _validate_list(model: type[ModelT], data: Any) -> list[ModelT]:
    return [_validate(model, entry) for entry in _as_list(data)]
