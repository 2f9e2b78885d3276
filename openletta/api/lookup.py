"""Finding an agent the user named: by its id, else by its name."""

from __future__ import annotations

import dataclasses

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Agent


@dataclasses.dataclass(frozen=True)
class FoundAgent:
    """An agent :func:`find_agent` found; ``complete`` when it was read by its id (as the
    chat reads it), not from a list of agents."""

    agent: Agent
    complete: bool


async def find_agent(client: LettaClient, ref: str) -> FoundAgent | None:
    """The agent whose id or name is ``ref`` (names match exactly, then ignoring case)."""
    if ref.startswith("agent-"):
        try:
            return FoundAgent(await client.get_agent(ref), complete=True)
        except LettaError:
            pass
    candidates = await client.list_agents(query=ref)
    for same in (lambda a: a.name == ref, lambda a: a.name.lower() == ref.lower()):
        matches = [agent for agent in candidates if same(agent)]
        if matches:
            return FoundAgent(matches[0], complete=False)
    return None
