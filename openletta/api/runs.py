"""The run reads of :class:`~openletta.api.client.LettaClient`: a run, its steps, usage and
stored messages, the runs still going in a thread, and the agent's context window."""

from __future__ import annotations

from openletta.api.http import LettaHTTP, as_list, validate, validate_list, without_none
from openletta.api.messages import Message, parse_message
from openletta.api.resources import ContextWindow, Run, RunUsage, Step, StepMetrics

#: The conversations API's name for an agent's default thread.
DEFAULT_THREAD = "default"
FINISHED_RUN_STATES = frozenset({"completed", "failed", "cancelled"})
RUN_MESSAGES_LIMIT = 1000
#: Runs read when looking for the one to follow (a thread runs one at a time).
ACTIVE_RUNS_LIMIT = 20


class RunReads:
    """Endpoints about runs, for a client that sends its requests through ``_http``."""

    _http: LettaHTTP

    async def get_run(self, run_id: str) -> Run:
        return validate(Run, await self._http.request("GET", f"/v1/runs/{run_id}"))

    async def active_runs(self, agent_id: str, conversation_id: str | None = None) -> list[Run]:
        """The agent's runs still going (created or running) in one thread, newest first;
        ``conversation_id`` ``None`` is the default thread."""
        return [run for run in await self._runs(agent_id, conversation_id, active=True)
                if run.status not in FINISHED_RUN_STATES]

    async def recent_runs(self, agent_id: str, conversation_id: str | None = None) -> list[Run]:
        """The agent's newest runs in one thread, going or not, newest first."""
        return await self._runs(agent_id, conversation_id, active=False)

    async def _runs(self, agent_id: str, conversation_id: str | None, *,
                    active: bool) -> list[Run]:
        data = await self._http.request("GET", "/v1/runs/", params=without_none(
            agent_id=agent_id, active="true" if active else None, order="desc",
            limit=ACTIVE_RUNS_LIMIT))
        return [run for run in validate_list(Run, as_list(data))
                if _in_thread(run, agent_id, conversation_id)]

    async def list_run_steps(self, run_id: str) -> list[Step]:
        """The LLM calls of a run, in order."""
        data = await self._http.request("GET", f"/v1/runs/{run_id}/steps",
                                        params={"order": "asc", "limit": RUN_MESSAGES_LIMIT})
        return validate_list(Step, as_list(data))

    async def get_step_metrics(self, step_id: str) -> StepMetrics:
        """How long a step took: in all, waiting for the model, running its tool."""
        return validate(StepMetrics, await self._http.request(
            "GET", f"/v1/steps/{step_id}/metrics"))

    async def get_run_usage(self, run_id: str) -> RunUsage:
        """The tokens a run used."""
        return validate(RunUsage, await self._http.request("GET", f"/v1/runs/{run_id}/usage"))

    async def get_context(self, agent_id: str,
                          conversation_id: str | None = None) -> ContextWindow:
        """How the agent's context window is spent now, in a conversation (``None``: its
        default thread)."""
        return validate(ContextWindow, await self._http.request(
            "GET", f"/v1/agents/{agent_id}/context",
            params=without_none(conversation_id=conversation_id)))

    async def list_run_messages(self, run_id: str) -> list[Message]:
        """What a run stored, oldest first (a cancelled run stores nothing)."""
        data = await self._http.request("GET", f"/v1/runs/{run_id}/messages",
                                        params={"limit": RUN_MESSAGES_LIMIT, "order": "asc"})
        return [parse_message(entry) for entry in as_list(data)]


def _in_thread(run: Run, agent_id: str, conversation_id: str | None) -> bool:
    """Whether ``run`` belongs to the thread (``None``: the agent's default thread)."""
    if conversation_id is not None:
        return run.conversation_id == conversation_id
    return run.conversation_id in (None, DEFAULT_THREAD, agent_id)
