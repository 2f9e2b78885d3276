"""An async client for the Letta REST API (the calls a chat client needs).

Collection paths end with a slash and item paths do not (the server redirects the other
forms with 307, and redirects are not followed). Agent reads always pass ``include=``
explicitly. Every failure is a :class:`~openletta.api.errors.LettaError`.

The endpoints are here; requests go through :class:`~openletta.api.http.LettaHTTP`.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from openletta.api.answers import Answer
from openletta.api.conversations import ConversationCalls
from openletta.api.errors import (
    ConflictError,
    ConversationBusyError,
    LettaError,
    ValidationError,
    not_a_letta_server,
)
from openletta.api.history import HistoryPage, history_page
from openletta.api.http import (
    DEFAULT_TIMEOUT,
    LettaHTTP,
    as_list,
    route_missing,
    validate,
    validate_list,
    without_none,
)
from openletta.api.messages import ApprovalRequestMessage, parse_message
from openletta.api.resources import (
    Agent,
    Block,
    Health,
    Model,
    Tool,
)
from openletta.api.runs import DEFAULT_THREAD, FINISHED_RUN_STATES, RunReads
from openletta.api.sse import MessageStream
from openletta.config import resolve_connection
from openletta.redaction import register_secret

#: The conversations API addresses an agent's default thread (``default`` + ``agent_id``)
#: from this version on; older servers get the deprecated agent stream endpoint.
AGENT_DIRECT_VERSION = (0, 16, 6)
#: The first server version that takes ``client_tools`` in a request.
CLIENT_TOOLS_VERSION = (0, 16, 2)
#: Core memory blocks read at once (an agent has a handful).
BLOCKS_LIMIT = 100
#: ``GET /v1/agents/{id}/tools`` returns 10 tools unless told otherwise.
TOOLS_LIMIT = 1000
RESUME_BATCH_SIZE = 1000


def parse_version(version: str) -> tuple[int, ...] | None:
    """``"0.16.8"`` → ``(0, 16, 8)``; ``None`` when there is no leading number."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


class LettaClient(ConversationCalls, RunReads):
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
        self._http = LettaHTTP(self.base_url, api_key, transport=transport, timeout=timeout,
                               on_wait=on_wait)
        #: The server's version as numbers, known after :meth:`health`.
        self.server_version: tuple[int, ...] | None = None
        self._agent_stream_only = False
        self._history_filter = True

    @classmethod
    def from_settings(cls, base_url: str | None = None, api_key: str | None = None, *,
                      env: Mapping[str, str] = os.environ, **options: Any) -> LettaClient:
        """A client for the server chosen by :func:`openletta.config.resolve_connection`."""
        connection = resolve_connection(base_url, api_key, env)
        return cls(connection.base_url, connection.api_key, **options)

    async def aclose(self) -> None:
        await self._http.aclose()

    def watch_reachability(self, listener: Callable[[bool], None]) -> Callable[[], None]:
        """See :meth:`LettaHTTP.watch_reachability`."""
        return self._http.watch_reachability(listener)

    @property
    def last_answer(self) -> float | None:
        """``time.monotonic()`` when the server last answered a request (``None``: never)."""
        return self._http.last_answer

    async def __aenter__(self) -> LettaClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- server, agents, tools ----------------------------------------------------------

    async def health(self) -> Health:
        """``GET /v1/health/``; also records :attr:`server_version`. Raises
        :class:`NotLettaServerError` when something else answers at the base URL."""
        try:
            data = await self._http.request("GET", "/v1/health/")
        except LettaError as error:  # no such route, or an unreadable answer (not an error)
            if error.status_code in (404, 405) or (error.status_code or 500) < 300:
                raise not_a_letta_server(error.status_code or 200) from None
            raise
        if not isinstance(data, dict) or not data.keys() & {"version", "status"}:
            raise not_a_letta_server(200)
        return self.note_health(validate(Health, data))

    def note_health(self, health: Health) -> Health:
        """Record the :attr:`server_version` of ``health`` (also from another client's check
        of the same server)."""
        self.server_version = parse_version(health.version)
        return health

    async def list_agents(self, query: str | None = None, limit: int = 50,
                          after: str | None = None, order_by: str = "last_run_completion",
                          *, name: str | None = None) -> list[Agent]:
        """Agents whose name contains ``query`` (or is exactly ``name``), latest first by
        ``order_by``: by default the most recently run (the server may not record it: see
        ``AgentChooserScreen``)."""
        params = without_none(limit=limit, order="desc", order_by=order_by,
                               query_text=query, name=name, after=after)
        return validate_list(Agent, await self._http.request("GET", "/v1/agents/", params=params))

    async def list_models(self) -> list[Model]:
        """The models agents can be made with (entries without a handle left out)."""
        models = validate_list(Model, await self._http.request("GET", "/v1/models/"))
        return [model for model in models if model.handle]

    async def create_agent(self, name: str, model: str,
                           memory: Mapping[str, str] | None = None) -> Agent:
        """Make an agent named ``name`` that runs on ``model`` (a handle), with the core
        memory blocks ``memory`` (label → value); the server's defaults for the rest."""
        body: dict[str, Any] = {"name": name, "model": model}
        if memory:
            body["memory_blocks"] = [{"label": label, "value": value}
                                     for label, value in memory.items()]
        return validate(Agent, await self._http.request("POST", "/v1/agents/", json=body))

    async def set_agent_model(self, agent_id: str, model: str) -> Agent:
        """Make the agent run on ``model`` (a handle) from its next step on (the user asked
        for this change)."""
        return validate(Agent, await self._http.request("PATCH", f"/v1/agents/{agent_id}",
                                                        json={"model": model}))

    async def get_agent(self, agent_id: str, *, tools: bool = False, blocks: bool = False,
                        pending_approval: bool = True) -> Agent:
        include = [name for name, wanted in (("agent.tools", tools), ("agent.blocks", blocks),
                                             ("agent.pending_approval", pending_approval))
                   if wanted]
        params = {"include": include} if include else None
        return validate(Agent, await self._http.request("GET", f"/v1/agents/{agent_id}",
                                                        params=params))

    async def list_agent_tools(self, agent_id: str) -> list[Tool]:
        data = await self._http.request("GET", f"/v1/agents/{agent_id}/tools",
                                        params={"limit": TOOLS_LIMIT})
        return validate_list(Tool, data)

    async def set_tool_approval(self, agent_id: str, tool_name: str,
                                requires_approval: bool) -> None:
        """Make calls of ``tool_name`` wait for the user's approval (or not)."""
        path = f"/v1/agents/{agent_id}/tools/approval/{quote(tool_name, safe='')}"
        await self._http.request("PATCH", path, json={"requires_approval": requires_approval})

    # --- memory and history -------------------------------------------------------------

    async def list_blocks(self, agent_id: str) -> list[Block]:
        """The agent's core memory blocks."""
        data = await self._http.request("GET", f"/v1/agents/{agent_id}/core-memory/blocks",
                                        params={"limit": BLOCKS_LIMIT})
        return validate_list(Block, as_list(data))

    async def update_block(self, agent_id: str, label: str, value: str) -> Block:
        """Set the value of the agent's block ``label`` (the user asked for this change)."""
        path = f"/v1/agents/{agent_id}/core-memory/blocks/{quote(label, safe='')}"
        data = await self._http.request("PATCH", path, json={"value": value})
        return validate(Block, data)

    async def list_messages(self, agent_id: str, conversation_id: str | None = None,
                            before: str | None = None, limit: int = 50) -> HistoryPage:
        """The newest ``limit`` rows of a thread (older than ``before``), oldest first."""
        params = without_none(limit=limit, order="desc", before=before)
        if conversation_id is not None:
            data = await self._http.request("GET", f"/v1/conversations/{conversation_id}/messages",
                                            params=params)
            return history_page(as_list(data), limit=limit, newest_first=True)
        path = f"/v1/agents/{agent_id}/messages"
        if self._history_filter:
            try:
                data = await self._http.request("GET", path, params={
                    **params, "conversation_id": DEFAULT_THREAD})
                return history_page(as_list(data), limit=limit, newest_first=False)
            except ValidationError:  # a server from before conversations
                self._history_filter = False
        data = await self._http.request("GET", path, params=params)
        return history_page(as_list(data), limit=limit, newest_first=False)

    async def get_pending_approval(self, agent_id: str, conversation_id: str | None = None
                                   ) -> ApprovalRequestMessage | None:
        """The tool-call approval request the thread waits on, if any."""
        if conversation_id is None:
            return (await self.get_agent(agent_id, pending_approval=True)).pending_approval
        conversation = await self.get_conversation(conversation_id)
        if not conversation.in_context_message_ids:
            return None
        last_id = conversation.in_context_message_ids[-1]
        data = await self._http.request("GET", f"/v1/messages/{last_id}")
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
        return self._stream_turn(agent_id, conversation_id, [_user_item(text, otid)],
                                 turn_options(background, stream_tokens,
                                               self.declarable(client_tools)))

    def send_approvals(self, agent_id: str, decisions: Sequence[Answer], *,
                       conversation_id: str | None = None, background: bool = False,
                       stream_tokens: bool = True,
                       client_tools: Sequence[Mapping[str, Any]] = (),
                       then_text: str | None = None, otid: str | None = None) -> MessageStream:
        """Answer a pending approval request; ``decisions`` must cover every pending call
        (results of client-side tools go as :class:`ToolReturnAnswer`). ``then_text``: a
        message of the user's that follows the answers in the same request (``otid`` is
        its id): the agent reads both before it replies."""
        if not decisions:
            raise ValueError("send_approvals needs at least one decision")
        items: list[dict[str, Any]] = [{
            "type": "approval",
            "approvals": [decision.model_dump(exclude_none=True) for decision in decisions]}]
        if then_text is not None:
            items.append(_user_item(then_text, otid))
        return self._stream_turn(agent_id, conversation_id, items,
                                 turn_options(background, stream_tokens,
                                               self.declarable(client_tools)))

    def resume_stream(self, run_id: str, starting_after: int) -> MessageStream:
        """Re-attach to a background run, after the chunk with ``seq_id`` ``starting_after``."""
        body = {"starting_after": starting_after, "include_pings": True,
                "batch_size": RESUME_BATCH_SIZE}
        return MessageStream(lambda: self._http.open_stream(f"/v1/runs/{run_id}/stream", body),
                             starting_after=starting_after)

    async def cancel(self, agent_id: str, *, conversation_id: str | None = None,
                     run_ids: Sequence[str] | None = None) -> dict[str, str]:
        """Stop active runs; returns ``{run_id: status}`` (empty when nothing ran)."""
        agent_cancel = f"/v1/agents/{agent_id}/messages/cancel"
        try:
            if run_ids:
                data = await self._http.request("POST", agent_cancel,
                                                json={"run_ids": list(run_ids)})
            elif conversation_id is None and self._agent_stream_needed():
                data = await self._http.request("POST", agent_cancel)
            else:
                data = await self._cancel_conversation(agent_id, conversation_id, agent_cancel)
        except ConflictError as error:
            if error.status_code != 409:
                raise
            return {}
        return {str(run): str(status) for run, status in data.items()} if isinstance(
            data, dict) else {}

    async def _cancel_conversation(self, agent_id: str, conversation_id: str | None,
                                   agent_cancel: str) -> Any:
        params = {"agent_id": agent_id} if conversation_id is None else None
        path = f"/v1/conversations/{conversation_id or DEFAULT_THREAD}/cancel"
        try:
            return await self._http.request("POST", path, params=params)
        except LettaError as error:
            if not route_missing(error):
                raise
        return await self._http.request("POST", agent_cancel)

    def _stream_turn(self, agent_id: str, conversation_id: str | None,
                     items: list[dict[str, Any]], options: dict[str, Any]) -> MessageStream:
        return MessageStream(lambda: self._open_turn(agent_id, conversation_id, items, options))

    async def _open_turn(self, agent_id: str, conversation_id: str | None,
                         items: list[dict[str, Any]], options: dict[str, Any]
                         ) -> httpx.Response:
        """Send one turn to the conversations API, or the agent stream API on old servers."""
        agent_stream = (f"/v1/agents/{agent_id}/messages/stream",
                        {"messages": items, **options})
        if conversation_id is None and self._agent_stream_needed():
            return await self._http.open_stream(*agent_stream)
        body: dict[str, Any] = {"messages": items, "streaming": True, **options}
        if conversation_id is None:
            body["agent_id"] = agent_id
        path = f"/v1/conversations/{conversation_id or DEFAULT_THREAD}/messages"
        try:
            return await self._http.open_stream(path, body)
        except ConversationBusyError as error:
            if conversation_id is not None or not await self._lock_is_stale(error):
                raise
            return await self._http.open_stream(*agent_stream)
        except LettaError as error:
            if conversation_id is not None or not route_missing(error):
                raise
        self._agent_stream_only = True
        return await self._http.open_stream(*agent_stream)

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

    def declarable(self, client_tools: Sequence[Mapping[str, Any]]
                   ) -> Sequence[Mapping[str, Any]]:
        """``client_tools`` as a request declares them: none when the server is known to be
        too old to take them."""
        old = self.server_version is not None and self.server_version < CLIENT_TOOLS_VERSION
        return () if old else client_tools

    def _agent_stream_needed(self) -> bool:
        old = self.server_version is not None and self.server_version < AGENT_DIRECT_VERSION
        return self._agent_stream_only or old


def _user_item(text: str, otid: str | None) -> dict[str, Any]:
    """A message of the user's, as a turn request carries it."""
    return {"type": "message", "role": "user", "content": text,
            "otid": otid or str(uuid.uuid4())}


def turn_options(background: bool, stream_tokens: bool,
                  client_tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The request options of a turn (``client_tools`` only when there are some)."""
    options: dict[str, Any] = {"stream_tokens": stream_tokens, "include_pings": True,
                               "background": background}
    if client_tools:
        options["client_tools"] = [dict(tool) for tool in client_tools]
    return options
