"""The REST/SSE endpoints of the demo server, with the real server's paths and answers: the
route table, and the endpoints that read and change agents, history, core memory and
conversations (those of runs are in :mod:`openletta.demo.run_routes`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from openletta.demo import catalog, resources
from openletta.demo.endpoints import Endpoints, conversation_not_found, invalid
from openletta.demo.history import compaction_row, system_row
from openletta.demo.http import BadParameter, JSONResponse, Request, Response, Router
from openletta.demo.ids import new_id
from openletta.demo.run_routes import RunRoutes
from openletta.demo.state import BASE_CONTEXT_TOKENS, AgentRecord, Store, Thread
from openletta.demo.turns import Engine

#: Fewer user messages than this since the last compaction leave nothing to compact.
MIN_MESSAGES_TO_COMPACT = 2
NOTHING_TO_COMPACT = ("Summarization failed to reduce the number of messages. You may not have "
                      "enough messages to compact or need to use a different "
                      "CompactionSettings (e.g. using `all` mode).")
#: Relationships a legacy (non-SDK) client gets when it names none.
LEGACY_RELATIONSHIPS = {"agent.blocks", "agent.tools", "agent.tags"}
_SDK_V1_AGENT = re.compile(r"^(@letta-ai/)?letta-client/1\.")


class Api(Endpoints):
    """Every endpoint over one :class:`Store`; those of runs are :attr:`runs`'."""

    def __init__(self, store: Store, engine: Engine, *, keepalive: float) -> None:
        super().__init__(store, engine)
        #: Sending, cancelling, resuming and reading runs.
        self.runs = RunRoutes(store, engine, keepalive=keepalive)

    @property
    def tasks(self) -> set[asyncio.Task[None]]:
        """The :class:`Turn` tasks running."""
        return self.runs.tasks

    @property
    def cancelled(self) -> list[str]:
        """Ids of runs cancelled through the API, oldest first."""
        return self.runs.cancelled

    def router(self) -> Router:
        router = Router()
        for method, path, handler in (
            ("GET", "/v1/health/", self.health),
            ("GET", "/v1/models/", self.models),
            ("GET", "/v1/agents/", self.list_agents),
            ("POST", "/v1/agents/", self.create_agent),
            ("GET", "/v1/agents/{agent_id}", self.get_agent),
            ("PATCH", "/v1/agents/{agent_id}", self.update_agent),
            ("GET", "/v1/agents/{agent_id}/tools", self.agent_tools),
            ("PATCH", "/v1/agents/{agent_id}/tools/approval/{tool_name}", self.set_approval),
            ("GET", "/v1/agents/{agent_id}/core-memory/blocks", self.list_blocks),
            ("PATCH", "/v1/agents/{agent_id}/core-memory/blocks/{label}", self.update_block),
            ("GET", "/v1/agents/{agent_id}/messages", self.agent_messages),
            ("POST", "/v1/agents/{agent_id}/messages/stream", self.runs.agent_send),
            ("POST", "/v1/agents/{agent_id}/messages/cancel", self.runs.agent_cancel),
            ("GET", "/v1/conversations/", self.list_conversations),
            ("POST", "/v1/conversations/", self.create_conversation),
            ("GET", "/v1/conversations/{conversation_id}", self.get_conversation),
            ("PATCH", "/v1/conversations/{conversation_id}", self.update_conversation),
            ("DELETE", "/v1/conversations/{conversation_id}", self.delete_conversation),
            ("GET", "/v1/conversations/{conversation_id}/messages",
             self.conversation_messages),
            ("POST", "/v1/conversations/{conversation_id}/messages", self.runs.conversation_send),
            ("POST", "/v1/conversations/{conversation_id}/cancel", self.runs.conversation_cancel),
            ("POST", "/v1/conversations/{conversation_id}/compact", self.compact),
            ("GET", "/v1/messages/{message_id}", self.get_message),
            ("GET", "/v1/runs/", self.runs.list_runs),
            ("GET", "/v1/runs/{run_id}", self.runs.get_run),
            ("GET", "/v1/runs/{run_id}/messages", self.runs.run_messages),
            ("GET", "/v1/runs/{run_id}/steps", self.runs.run_steps),
            ("GET", "/v1/runs/{run_id}/usage", self.runs.run_usage),
            ("GET", "/v1/agents/{agent_id}/context", self.context_window),
            ("POST", "/v1/runs/{run_id}/stream", self.runs.resume_run),
        ):
            router.add(method, path, handler)
        return router

    # --- server, models, agents -----------------------------------------------------------

    async def health(self, _request: Request) -> Response:
        return JSONResponse({"version": catalog.SERVER_VERSION, "status": "ok"})

    async def models(self, _request: Request) -> Response:
        return JSONResponse(catalog.models())

    async def list_agents(self, request: Request) -> Response:
        agents = list(self.store.agents.values())
        if text := request.param("query_text"):
            agents = [agent for agent in agents if text.lower() in agent.spec.name.lower()]
        if name := request.param("name"):
            agents = [agent for agent in agents if agent.spec.name == name]
        order_by = request.param("order_by", "created_at")
        key: Callable[[AgentRecord], datetime | None] = {
            "updated_at": lambda agent: agent.updated_at,
            "last_run_completion": lambda agent: agent.last_run_completion,
        }.get(order_by or "", lambda agent: agent.created_at)
        dated = [agent for agent in agents if key(agent) is not None]
        dated.sort(key=key, reverse=request.param("order", "desc") == "desc")  # type: ignore
        agents = dated + [agent for agent in agents if key(agent) is None]  # nulls last
        page = _between(agents, [agent.id for agent in agents], request)
        page = page[:request.int_param("limit", 50)]
        include = _includes(request)
        return JSONResponse([resources.agent_json(agent, include=include)
                             for agent in page[:request.int_param("limit", 50)]])

    async def create_agent(self, request: Request) -> Response:
        """Make an agent on the scripted model, with the memory blocks asked for."""
        body = request.json_object()
        if (unknown := _unknown_model(body.get("model"))) is not None:
            return unknown
        blocks = {block["label"]: str(block.get("value", ""))
                  for block in body.get("memory_blocks") or []
                  if isinstance(block, dict) and isinstance(block.get("label"), str)}
        spec = catalog.AgentSpec(str(body.get("name") or "agent"), "",
                                 blocks.get("persona", ""), blocks.get("human", ""), (),
                                 created_ago=timedelta(0), last_ran_ago=timedelta(0),
                                 id_seed=new_id("agent"))
        now = self.engine.clock()
        agent = self.store.add_agent(spec, now, system_row(spec, now))
        agent.blocks = blocks
        return JSONResponse(resources.agent_json(agent, include=_includes(request)))

    async def update_agent(self, request: Request) -> Response:
        """Change an agent: only its model (there is one) is understood."""
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        body = request.json_object()
        if "model" in body and (unknown := _unknown_model(body["model"])) is not None:
            return unknown
        agent.model = str(body.get("model") or agent.model)
        agent.updated_at = self.engine.clock()
        return JSONResponse(resources.agent_json(agent, include=_includes(request)))

    async def get_agent(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        return JSONResponse(resources.agent_json(agent, include=_includes(request)))

    async def agent_tools(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        return JSONResponse([resources.tool_json(tool)
                             for tool in catalog.TOOLS[:request.int_param("limit", 10)]])

    async def set_approval(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        tool_name = request.path_params["tool_name"]
        if tool_name not in catalog.TOOLS_BY_NAME:
            return JSONResponse({"detail": f"Tool {tool_name} not found"}, status=404)
        body = request.json_object()
        value = body.get("requires_approval", request.param("requires_approval"))
        if value is None:
            return invalid("requires_approval is required")
        agent.set_requires_approval(tool_name, value in (True, "true", "True", "1"))
        agent.updated_at = self.engine.clock()
        if _is_sdk_v1(request):
            return JSONResponse(None)
        return JSONResponse(resources.agent_json(agent, include=LEGACY_RELATIONSHIPS))

    async def context_window(self, request: Request) -> Response:
        found = self._thread(request.param("conversation_id") or "default",
                             request.path_params["agent_id"])
        if isinstance(found, JSONResponse):
            return found
        return JSONResponse(resources.context_json(*found))

    async def compact(self, request: Request) -> Response:
        """Summarise a thread's rows (the user's messages, named) into a stored note, as a
        compaction does; too few rows are refused with the real server's words."""
        found = self._thread(request.path_params["conversation_id"],
                             request.json_object().get("agent_id") or request.param("agent_id"))
        if isinstance(found, JSONResponse):
            return found
        thread = found[1]
        said = [text for row in thread.rows[1 + thread.summarised_rows:]
                for chunk in row.messages if chunk.get("message_type") == "user_message"
                and not (text := str(chunk["content"])).lstrip().startswith("{")]  # notes
        if len(said) < MIN_MESSAGES_TO_COMPACT:
            return JSONResponse({"detail": NOTHING_TO_COMPACT}, status=400)
        before = thread.in_context
        summary = ("The user asked the demo agent: " + "; ".join(
            " ".join(text.split())[:40] for text in said) + ".")
        moment = self.engine.clock()
        thread.summarised_rows = len(thread.rows) - 1  # every row after the system prompt
        thread.extend([compaction_row(summary, moment)])
        thread.context_tokens = BASE_CONTEXT_TOKENS + len(summary) // 4
        return JSONResponse({"summary": summary, "num_messages_before": before,
                             "num_messages_after": thread.in_context})

    # --- history --------------------------------------------------------------------------

    async def agent_messages(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        conversation_id = request.param("conversation_id") or "default"
        found = self._thread(conversation_id, agent.id)
        if isinstance(found, JSONResponse):
            return found
        return _history(found[1], request, chronological=True)

    async def conversation_messages(self, request: Request) -> Response:
        conversation_id = request.path_params["conversation_id"]
        found = self._thread(conversation_id, request.param("agent_id"))
        if isinstance(found, JSONResponse):
            return found
        named = conversation_id in self.store.conversations
        return _history(found[1], request, chronological=not named)

    async def get_message(self, request: Request) -> Response:
        """Every Letta message of one stored row (as ``GET /v1/messages/{id}`` returns)."""
        message_id = request.path_params["message_id"]
        row = self.store.find_row(message_id)
        if row is None:
            return JSONResponse({"detail": f"Message with ID {message_id} not found"},
                                status=404)
        return JSONResponse(row.messages)

    # --- core memory ----------------------------------------------------------------------

    async def list_blocks(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        return JSONResponse(resources.blocks_json(agent))

    async def update_block(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        label = request.path_params["label"]
        if label not in agent.blocks:
            return JSONResponse({"detail": f"Block with label {label} not found"}, status=404)
        value = request.json_object().get("value")
        if not isinstance(value, str):
            raise BadParameter("value must be a string")
        agent.blocks[label] = value
        return JSONResponse(resources.block_json(agent, label))

    # --- conversations --------------------------------------------------------------------

    async def list_conversations(self, request: Request) -> Response:
        agent_id = request.param("agent_id")
        conversations = [conversation for conversation in self.store.conversations.values()
                         if agent_id is None or conversation.agent_id == agent_id]
        if request.param("order_by") in ("last_message_at", "last_run_completion"):
            conversations.sort(key=lambda item: item.thread.last_message_at or item.created_at)
        if request.param("order", "desc") == "desc":
            conversations.reverse()
        page = _between(conversations, [item.id for item in conversations], request)
        return JSONResponse([resources.conversation_json(conversation)
                             for conversation in page[:request.int_param("limit", 50)]])

    async def create_conversation(self, request: Request) -> Response:
        agent_id = request.param("agent_id")
        if agent_id is None:
            return invalid("agent_id is required")
        agent = self._agent(agent_id)
        if isinstance(agent, JSONResponse):
            return agent
        now = self.engine.clock()
        conversation = self.store.add_conversation(
            agent, now, system_row(agent.spec, now), request.json_object().get("summary"))
        return JSONResponse(resources.conversation_json(conversation))

    async def get_conversation(self, request: Request) -> Response:
        conversation = self.store.conversations.get(request.path_params["conversation_id"])
        if conversation is None:
            return conversation_not_found(request.path_params["conversation_id"])
        return JSONResponse(resources.conversation_json(conversation))

    async def update_conversation(self, request: Request) -> Response:
        conversation = self.store.conversations.get(request.path_params["conversation_id"])
        if conversation is None:
            return conversation_not_found(request.path_params["conversation_id"])
        summary = request.json_object().get("summary")
        if isinstance(summary, str):
            conversation.summary = summary
        return JSONResponse(resources.conversation_json(conversation))

    async def delete_conversation(self, request: Request) -> Response:
        conversation_id = request.path_params["conversation_id"]
        if self.store.conversations.pop(conversation_id, None) is None:
            return conversation_not_found(conversation_id)
        return JSONResponse(None)


def _history(thread: Thread, request: Request, *, chronological: bool) -> JSONResponse:
    """A page of history. ``limit`` counts rows; a row expands to all its messages."""
    newest_first = request.param("order", "desc") == "desc"
    rows = thread.page(before=request.param("before"), after=request.param("after"),
                       limit=request.int_param("limit", 100), newest_first=newest_first)
    if newest_first and not chronological:
        rows.reverse()
    types = set(request.params("include_return_message_types"))
    return JSONResponse([message for row in rows for message in row.messages
                         if not types or message["message_type"] in types])


def _between(items: list[Any], ids: list[str], request: Request) -> list[Any]:
    """Items after ``after`` and before ``before`` (ids in the listed order)."""
    after, before = request.param("after"), request.param("before")
    start = ids.index(after) + 1 if after in ids else 0
    end = ids.index(before) if before in ids else len(items)
    return items[start:end]


def _includes(request: Request) -> set[str]:
    include = set(request.params("include"))
    if not include and not _is_sdk_v1(request) and "include_relationships" not in request.query:
        return set(LEGACY_RELATIONSHIPS)
    return include


def _is_sdk_v1(request: Request) -> bool:
    """Letta's ``is_1_0_sdk_version``: Stainless header, no User-Agent or letta-client/1.x."""
    if "x-stainless-package-version" in request.headers:
        return True
    agent = request.headers.get("user-agent", "")
    return not agent or bool(_SDK_V1_AGENT.match(agent))


def _unknown_model(handle: object) -> JSONResponse | None:
    """The real server's 404 for a model handle it does not serve (``None``: it serves it)."""
    if handle == catalog.MODEL_HANDLE:
        return None
    return JSONResponse({"detail": f"NOT_FOUND: Handle {handle} not found, must be one of "
                                   f"[{catalog.MODEL_HANDLE}]"}, status=404)
