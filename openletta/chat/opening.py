"""Opening the agent named on the command line in as few round trips as possible.

The agent (by id or name) is looked up while the app checks the server's health, and when it
is named by its id, the newest page of its history is asked for at the same time: a chat
opened with ``--agent agent-…`` waits for one round trip, not four. (An agent opened any other
way has its page asked for while it is read: :func:`start_request`.) Launched with an agent,
the first attempt's requests leave even earlier, while the app imports:
:mod:`openletta.chat.early`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError, NotFoundError, ValidationError
from openletta.api.history import HistoryPage
from openletta.api.resources import Agent, Conversation, Health
from openletta.chat.early import AGENT_ID_PREFIX, EarlyOpening
from openletta.chat.session import newest_page

T = TypeVar("T")


@dataclass(frozen=True)
class FoundAgent:
    """An agent :func:`find_agent` found; ``complete`` when it was read by its id (as the
    chat reads it), not from a list of agents."""

    agent: Agent
    complete: bool


@dataclass(frozen=True)
class Namesakes:
    """The several agents a name given to :func:`find_agent` matches: none is chosen."""

    name: str
    agents: list[Agent]


async def find_agent(client: LettaClient, ref: str) -> FoundAgent | Namesakes | None:
    """The agent whose id or name is ``ref`` (names match exactly, then ignoring case); the
    agents that share the name when several do."""
    if ref.startswith(AGENT_ID_PREFIX):
        try:
            return FoundAgent(await client.get_agent(ref), complete=True)
        except LettaError:
            pass
    candidates = await client.list_agents(query=ref)
    for same in (lambda a: a.name == ref, lambda a: a.name.lower() == ref.lower()):
        matches = [agent for agent in candidates if same(agent)]
        if len(matches) > 1:
            return Namesakes(ref, matches)
        if matches:
            return FoundAgent(matches[0], complete=False)
    return None


async def read_conversation(client: LettaClient, agent_id: str,
                            conversation_id: str) -> Conversation | str | None:
    """The conversation ``conversation_id`` names, to open as a thread of agent ``agent_id``;
    or why it cannot be: it does not exist (the server lists its messages as empty all the
    same) or is another agent's. ``None`` when the server could not say."""
    try:
        conversation = await client.get_conversation(conversation_id)
    except NotFoundError:
        return f"There is no conversation {conversation_id} on this server."
    except ValidationError:
        return f"{conversation_id} is not a conversation id this server knows."
    except LettaError:
        return None
    if conversation.agent_id and conversation.agent_id != agent_id:
        return f"Conversation {conversation_id} is another agent's ({conversation.agent_id})."
    return conversation


class Opening:
    """The requests for the agent ``ref`` names, under way (see the module docstring)."""

    def __init__(self, ref: str, agent: asyncio.Future[FoundAgent | Namesakes | None],
                 page: asyncio.Future[HistoryPage] | None) -> None:
        """``page``: the newest page of history of the agent whose id is ``ref``, if asked."""
        self.ref = ref
        self.agent = agent
        self._page = page

    @classmethod
    def start(cls, client: LettaClient, ref: str, conversation: str | None) -> Opening:
        """Ask ``client`` for the agent, and for an id its page, now."""
        page = (start_request(newest_page(client, ref, conversation))
                if ref.startswith(AGENT_ID_PREFIX) else None)
        return cls(ref, start_request(find_agent(client, ref)), page)

    async def found(self) -> FoundAgent | str:
        """The one agent ``ref`` names; else why none is opened (the chooser is shown
        instead): it names none, or several (by name), or the server could not be asked."""
        try:
            found = await self.agent
        except LettaError as error:
            return error.message
        if isinstance(found, Namesakes):
            return f"{len(found.agents)} agents are named {self.ref!r}: pick one."
        if found is None:
            return f"No agent {self.ref!r} on this server: choose one" + (
                "." if self.ref.startswith(AGENT_ID_PREFIX) else ", or Ctrl+N makes it.")
        return found

    def newest_page_of(self, agent: Agent) -> asyncio.Future[HistoryPage] | None:
        """The history page asked for, if it is ``agent``'s (else it is dropped)."""
        page, self._page = self._page, None
        if page is not None and agent.id != self.ref:
            page.cancel()
            return None
        return page

    async def cancel(self) -> None:
        """Drop the requests (the server could not be reached, or the app is closing)."""
        tasks = [task for task in (self.agent, self._page) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def first_requests(client: LettaClient, ref: str | None, conversation: str | None,
                   early: EarlyOpening | None) -> tuple[Awaitable[Health], Opening | None]:
    """The health check and the opening of ``ref`` (if any): ``early``'s, or asked of
    ``client`` now."""
    if early is not None:
        return early.health(), early.opening()
    return client.health(), (Opening.start(client, ref, conversation) if ref else None)


def start_request(request: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """``request`` running in a task of its own, to be awaited later; its failure is not
    reported as "never retrieved" when nobody waits for it any more (whoever does gets it)."""
    task = asyncio.ensure_future(request)
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    return task
