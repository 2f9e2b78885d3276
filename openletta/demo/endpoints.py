"""What every group of demo endpoints shares: the store and the engine, and the lookups and
error answers worded like the real server's (404 for an unknown agent or conversation, 422
for an invalid request).
"""

from __future__ import annotations

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


def invalid(detail: str) -> JSONResponse:
    return JSONResponse({"trace_id": "", "detail": detail}, status=422)


def conversation_not_found(conversation_id: str) -> JSONResponse:
    return JSONResponse({"detail": f"Conversation with ID {conversation_id} not found"},
                        status=404)
