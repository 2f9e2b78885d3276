"""The REST/SSE endpoints of the demo server, with the real server's paths and answers."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from openletta.demo import catalog, resources
from openletta.demo.history import system_row
from openletta.demo.http import (
    BadParameter,
    JSONResponse,
    Request,
    Response,
    Router,
    StreamResponse,
)
from openletta.demo.ids import new_id
from openletta.demo.runs import Run
from openletta.demo.send import InvalidRequest, SendRequest, parse_send
from openletta.demo.state import AgentRecord, Store, Thread
from openletta.demo.turns import DENIAL_ON_CANCEL, Engine, Turn

#: Relationships a legacy (non-SDK) client gets when it names none.
LEGACY_RELATIONSHIPS = {"agent.blocks", "agent.tools", "agent.tags"}
NOT_BACKGROUND = ("INVALID_ARGUMENT: Run was not created in background mode, so it cannot be "
                  "retrieved.")
_SDK_V1_AGENT = re.compile(r"^(@letta-ai/)?letta-client/1\.")


class Api:
    """Handlers over one :class:`Store`; runs are produced by :class:`Turn` tasks."""

    def __init__(self, store: Store, engine: Engine, *, keepalive: float) -> None:
        self.store, self.engine, self.keepalive = store, engine, keepalive
        self.tasks: set[asyncio.Task[None]] = set()
        #: Ids of runs cancelled through the API, oldest first.
        self.cancelled: list[str] = []

    def router(self) -> Router:
        router = Router()
        for method, path, handler in (
            ("GET", "/v1/health/", self.health),
            ("GET", "/v1/models/", self.models),
            ("GET", "/v1/agents/", self.list_agents),
            ("GET", "/v1/agents/{agent_id}", self.get_agent),
            ("GET", "/v1/agents/{agent_id}/tools", self.agent_tools),
            ("PATCH", "/v1/agents/{agent_id}/tools/approval/{tool_name}", self.set_approval),
            ("GET", "/v1/agents/{agent_id}/core-memory/blocks", self.list_blocks),
            ("PATCH", "/v1/agents/{agent_id}/core-memory/blocks/{label}", self.update_block),
            ("GET", "/v1/agents/{agent_id}/messages", self.agent_messages),
            ("POST", "/v1/agents/{agent_id}/messages/stream", self.agent_send),
            ("POST", "/v1/agents/{agent_id}/messages/cancel", self.agent_cancel),
            ("GET", "/v1/conversations/", self.list_conversations),
            ("POST", "/v1/conversations/", self.create_conversation),
            ("GET", "/v1/conversations/{conversation_id}", self.get_conversation),
            ("GET", "/v1/conversations/{conversation_id}/messages",
             self.conversation_messages),
            ("POST", "/v1/conversations/{conversation_id}/messages", self.conversation_send),
            ("POST", "/v1/conversations/{conversation_id}/cancel", self.conversation_cancel),
            ("GET", "/v1/messages/{message_id}", self.get_message),
            ("GET", "/v1/runs/", self.list_runs),
            ("GET", "/v1/runs/{run_id}", self.get_run),
            ("GET", "/v1/runs/{run_id}/messages", self.run_messages),
            ("GET", "/v1/runs/{run_id}/steps", self.run_steps),
            ("GET", "/v1/runs/{run_id}/usage", self.run_usage),
            ("GET", "/v1/agents/{agent_id}/context", self.context_window),
            ("POST", "/v1/runs/{run_id}/stream", self.resume_run),
        ):
            router.add(method, path, handler)
        return router

    # --- server, models, agents -------------------------------------------------------------

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
            return _invalid("requires_approval is required")
        agent.set_requires_approval(tool_name, value in (True, "true", "True", "1"))
        agent.updated_at = self.engine.clock()
        if _is_sdk_v1(request):
            return JSONResponse(None)
        return JSONResponse(resources.agent_json(agent, include=LEGACY_RELATIONSHIPS))

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

    # --- sending, cancelling, resuming --------------------------------------------------------

    async def agent_send(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        try:
            send = parse_send(_json_body(request))
        except InvalidRequest as error:
            return _invalid(str(error))
        return self._start(agent, agent.thread, None, send)

    async def conversation_send(self, request: Request) -> Response:
        try:
            body = _json_body(request)
            send = parse_send(body)
        except InvalidRequest as error:
            return _invalid(str(error))
        if isinstance(body, dict) and body.get("streaming") is False:
            return _invalid("The demo server only streams: send streaming=true.")
        conversation_id = request.path_params["conversation_id"]
        found = self._thread(conversation_id, send.agent_id)
        if isinstance(found, JSONResponse):
            return found
        agent, thread = found
        if thread.busy and thread.active_run is not None:
            run_id = thread.active_run.id
            return JSONResponse({"detail": (
                f"CONFLICT: Cannot send a new message: Another request (run_id={run_id}) is "
                "currently being processed for this conversation. Please wait for it to "
                "complete."), "run_id": run_id}, status=409)
        named = conversation_id if conversation_id in self.store.conversations else None
        return self._start(agent, thread, named, send)

    async def agent_cancel(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        run_ids = request.json_object().get("run_ids")
        if run_ids:
            runs = [self.store.runs[run_id] for run_id in run_ids
                    if run_id in self.store.runs and self.store.runs[run_id].agent_id == agent.id]
        else:  # like Redis on the real server: the active runs, or else the last one
            runs = self.store.active_runs(agent.id) or self.store.agent_runs(agent.id)[-1:]
        if not runs:
            return _conflict(f"No active runs to cancel for agent {agent.id}")
        for run in runs:
            self._cancel(agent, run, explicit=bool(run_ids))
        return JSONResponse({run.id: "cancelled" for run in runs})

    async def conversation_cancel(self, request: Request) -> Response:
        conversation_id = request.path_params["conversation_id"]
        found = self._thread(conversation_id, request.param("agent_id"))
        if isinstance(found, JSONResponse):
            return found
        agent, thread = found
        runs = [run for run in self.store.active_runs(agent.id) if run is thread.active_run]
        if not runs:
            return _conflict(f"No active runs to cancel for conversation {conversation_id}")
        for run in runs:
            self._cancel(agent, run, explicit=False)
        return JSONResponse({run.id: "cancelled" for run in runs})

    async def get_run(self, request: Request) -> Response:
        run = self.store.runs.get(request.path_params["run_id"])
        if run is None:
            return JSONResponse({"detail": f"Run {request.path_params['run_id']} not found"},
                                status=404)
        return JSONResponse(resources.run_json(run))

    async def list_runs(self, request: Request) -> Response:
        """Runs, newest first; ``agent_id``, ``conversation_id`` and ``active`` filter."""
        runs = [run for run in reversed(self.store.runs.values())
                if request.param("agent_id") in (None, run.agent_id)
                and request.param("conversation_id") in (None, run.conversation_id)
                and not (request.param("active") == "true" and run.finished)]
        if request.param("order", "desc") == "asc":
            runs.reverse()
        return JSONResponse([resources.run_json(run)
                             for run in runs[:request.int_param("limit", 100)]])

    async def run_steps(self, request: Request) -> Response:
        run = self.store.runs.get(request.path_params["run_id"])
        if run is None:
            return JSONResponse({"detail": f"Run {request.path_params['run_id']} not found"},
                                status=404)
        return JSONResponse(run.steps)

    async def run_usage(self, request: Request) -> Response:
        run = self.store.runs.get(request.path_params["run_id"])
        if run is None:
            return JSONResponse({"detail": f"Run {request.path_params['run_id']} not found"},
                                status=404)
        prompt = sum(step["prompt_tokens"] for step in run.steps)
        completion = sum(step["completion_tokens"] for step in run.steps)
        return JSONResponse({"completion_tokens": completion, "prompt_tokens": prompt,
                             "total_tokens": prompt + completion,
                             "prompt_tokens_details": None, "completion_tokens_details": None})

    async def context_window(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        return JSONResponse(resources.context_json(agent))

    async def run_messages(self, request: Request) -> Response:
        """What a run stored, oldest first."""
        run_id = request.path_params["run_id"]
        if run_id not in self.store.runs:
            return JSONResponse({"detail": f"Run {run_id} not found"}, status=404)
        threads = [agent.thread for agent in self.store.agents.values()]
        threads += [conversation.thread for conversation in self.store.conversations.values()]
        return JSONResponse([message for thread in threads for row in thread.rows
                             for message in row.messages if message.get("run_id") == run_id])

    async def resume_run(self, request: Request) -> Response:
        run = self.store.runs.get(request.path_params["run_id"])
        if run is None:
            return JSONResponse({"detail": f"Run {request.path_params['run_id']} not found"},
                                status=404)
        if not run.background:
            return JSONResponse({"detail": NOT_BACKGROUND}, status=400)
        try:
            starting_after = int(request.json_object().get("starting_after") or 0)
        except (TypeError, ValueError):
            raise BadParameter("starting_after must be an integer") from None
        return StreamResponse(run.follow(starting_after=starting_after,
                                         keepalive=self.keepalive, date=self.engine.date))

    # --- core memory ------------------------------------------------------------------------

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

    # --- conversations ----------------------------------------------------------------------

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
            return _invalid("agent_id is required")
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
            return _conversation_not_found(request.path_params["conversation_id"])
        return JSONResponse(resources.conversation_json(conversation))

    # --- helpers ----------------------------------------------------------------------------

    def _agent(self, agent_id: str) -> AgentRecord | JSONResponse:
        agent = self.store.agents.get(agent_id)
        if agent is None:
            return JSONResponse({"detail": f"Agent with ID {agent_id} not found"}, status=404)
        return agent

    def _thread(self, conversation_id: str,
                agent_id: str | None) -> tuple[AgentRecord, Thread] | JSONResponse:
        """The thread a conversation id names: ``default`` (with the agent's id), an agent id
        (deprecated form of the same) or a named conversation."""
        if conversation_id == "default" or conversation_id.startswith("agent-"):
            owner = agent_id if conversation_id == "default" else conversation_id
            if owner is None:
                return _conversation_not_found(conversation_id)
            agent = self._agent(owner)
            return agent if isinstance(agent, JSONResponse) else (agent, agent.thread)
        conversation = self.store.conversations.get(conversation_id)
        if conversation is None or agent_id not in (None, conversation.agent_id):
            return _conversation_not_found(conversation_id)
        return self.store.agents[conversation.agent_id], conversation.thread

    def _start(self, agent: AgentRecord, thread: Thread, conversation_id: str | None,
               send: SendRequest) -> StreamResponse:
        run = Run(new_id("run"), agent.id, conversation_id, send.background,
                  self.engine.clock(), include_pings=send.include_pings)
        self.store.runs[run.id] = run
        thread.active_run = run
        task = asyncio.create_task(Turn(self.engine, run, agent, thread, send).execute())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return StreamResponse(run.follow(keepalive=self.keepalive, date=self.engine.date))

    def _cancel(self, agent: AgentRecord, run: Run, *, explicit: bool) -> None:
        """Stop a running run; an explicitly named run that stopped for approval on the
        default thread gets its pending calls denied (Letta's cancel-while-waiting rule)."""
        self.cancelled.append(run.id)
        if not run.finished:
            run.cancel_requested = True
            return
        pending = agent.thread.pending
        if not (explicit and run.stop_reason == "requires_approval" and pending is not None
                and pending.message["run_id"] == run.id):
            return
        denials = [{"type": "approval", "tool_call_id": call_id, "approve": False,
                    "reason": DENIAL_ON_CANCEL} for call_id, _ in pending.calls]
        send = parse_send({"messages": [{"type": "approval", "approvals": denials}]})
        turn = Turn(self.engine, run, agent, agent.thread, send)
        turn.record_decisions(pending, list(send.approvals or ()))
        turn.commit("cancelled")
        run.status = run.stop_reason = "cancelled"


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


def _json_body(request: Request) -> Any:
    try:
        return request.json()
    except ValueError:
        raise InvalidRequest("The request body is not valid JSON") from None


def _invalid(detail: str) -> JSONResponse:
    return JSONResponse({"trace_id": "", "detail": detail}, status=422)


def _conflict(detail: str) -> JSONResponse:
    return JSONResponse({"detail": f"CONFLICT: {detail}"}, status=409)


def _conversation_not_found(conversation_id: str) -> JSONResponse:
    return JSONResponse({"detail": f"Conversation with ID {conversation_id} not found"},
                        status=404)
