"""What every group of demo endpoints shares: the store and the engine, and the lookups and
error answers worded like the real server's (404 for an unknown agent or conversation, 422
for an invalid request).
"""

from __future__ import annotations

import re

from openletta.demo.http import JSONResponse
from openletta.demo.state import AgentRecord, Store, Thread
from openletta.demo.turns import Engine


class Endpoints:
    """Handlers over one :class:`Store`, finding agents and threads the way Letta does."""

    def __init__(self, store: Store, engine: Engine) -> None:
        self.store, self.engine = store, engine

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
                return conversation_not_found(conversation_id)
            agent = self._agent(owner)
            return agent if isinstance(agent, JSONResponse) else (agent, agent.thread)
        conversation = self.store.conversations.get(conversation_id)
        if conversation is None or agent_id not in (None, conversation.agent_id):
            return conversation_not_found(conversation_id)
        return self.store.agents[conversation.agent_id], conversation.thread


#: What Letta accepts as a thread id in a path (besides ``default`` and an agent's id).
_NAMED_THREAD = re.compile(
    r"conv-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
    r"|default|agent-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def invalid(detail: str) -> JSONResponse:
    return JSONResponse({"trace_id": "", "detail": detail}, status=422)


def conversation_not_found(conversation_id: str) -> JSONResponse:
    """The answer for an id that names no conversation: 422 when it does not even have the
    form Letta accepts in a path (``conv-`` and a UUID), 404 otherwise."""
    if not _NAMED_THREAD.fullmatch(conversation_id):
        return invalid(f"[{{'type': 'string_pattern_mismatch', 'loc': ('path', "
                       f"'conversation_id'), 'msg': \"String should match pattern "
                       f"'{_NAMED_THREAD.pattern}'\", 'input': {conversation_id!r}}}]")
    return JSONResponse({"detail": f"Conversation with ID {conversation_id} not found"},
                        status=404)
