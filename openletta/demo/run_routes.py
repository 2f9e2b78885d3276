"""The demo endpoints that start, stop and read runs: sending a message or approval answers
(the reply streams), cancelling, resuming a background run's stream, and a run's messages,
steps and usage.
"""

from __future__ import annotations

import asyncio
from typing import Any

from openletta.demo import resources
from openletta.demo.endpoints import Endpoints, invalid
from openletta.demo.http import BadParameter, JSONResponse, Request, Response, StreamResponse
from openletta.demo.ids import new_id
from openletta.demo.runs import Run
from openletta.demo.send import InvalidRequest, SendRequest, parse_send
from openletta.demo.state import AgentRecord, Store, Thread
from openletta.demo.turns import DENIAL_ON_CANCEL, Engine, Turn

NOT_BACKGROUND = ("INVALID_ARGUMENT: Run was not created in background mode, so it cannot be "
                  "retrieved.")


class RunRoutes(Endpoints):
    """Handlers of runs; each run is produced by a :class:`Turn` task."""

    def __init__(self, store: Store, engine: Engine, *, keepalive: float) -> None:
        super().__init__(store, engine)
        self.keepalive = keepalive
        self.tasks: set[asyncio.Task[None]] = set()
        #: Ids of runs cancelled through the API, oldest first.
        self.cancelled: list[str] = []

    # --- sending, cancelling, resuming ----------------------------------------------------

    async def agent_send(self, request: Request) -> Response:
        agent = self._agent(request.path_params["agent_id"])
        if isinstance(agent, JSONResponse):
            return agent
        try:
            send = parse_send(_json_body(request))
        except InvalidRequest as error:
            return invalid(str(error))
        return self._start(agent, agent.thread, None, send)

    async def conversation_send(self, request: Request) -> Response:
        try:
            body = _json_body(request)
            send = parse_send(body)
        except InvalidRequest as error:
            return invalid(str(error))
        if isinstance(body, dict) and body.get("streaming") is False:
            return invalid("The demo server only streams: send streaming=true.")
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

    # --- runs -----------------------------------------------------------------------------

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

    async def run_messages(self, request: Request) -> Response:
        """What a run stored, oldest first."""
        run_id = request.path_params["run_id"]
        if run_id not in self.store.runs:
            return JSONResponse({"detail": f"Run {run_id} not found"}, status=404)
        threads = [agent.thread for agent in self.store.agents.values()]
        threads += [conversation.thread for conversation in self.store.conversations.values()]
        return JSONResponse([message for thread in threads for row in thread.rows
                             for message in row.messages if message.get("run_id") == run_id])

    # --- helpers --------------------------------------------------------------------------

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


def _json_body(request: Request) -> Any:
    try:
        return request.json()
    except ValueError:
        raise InvalidRequest("The request body is not valid JSON") from None


def _conflict(detail: str) -> JSONResponse:
    return JSONResponse({"detail": f"CONFLICT: {detail}"}, status=409)
