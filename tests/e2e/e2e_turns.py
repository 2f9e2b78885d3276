"""Turns against the real server through openletta's own client and accumulator."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openletta.api.answers import ApprovalAnswer
from openletta.api.client import LettaClient
from openletta.api.messages import Message
from openletta.api.sse import MessageStream
from openletta.chat.session import ChatSession
from openletta.transcript import Item, ToolCallItem, Transcript, UserItem


@dataclass
class Turn:
    """What one streamed request gave: the chunks, how the stream ended, the run."""

    messages: list[Message] = field(default_factory=list)
    stop_reason: str | None = None
    run_id: str | None = None
    error: Exception | None = None


async def read(stream: MessageStream, transcript: Transcript) -> Turn:
    """Feed every chunk of ``stream`` into ``transcript``."""
    turn = Turn()
    async with stream:
        async for message in stream:
            turn.messages.append(message)
            transcript.feed(message)
    turn.stop_reason, turn.run_id, turn.error = stream.stop_reason, stream.run_id, stream.error
    return turn


async def send(client: LettaClient, agent_id: str, text: str, transcript: Transcript,
               **options: Any) -> Turn:
    """Send ``text`` as a live turn (the user item first, as the app does)."""
    transcript.add_user(text)
    return await read(client.send_message(agent_id, text, **options), transcript)


async def answer(client: LettaClient, agent_id: str, transcript: Transcript,
                 decisions: dict[str, tuple[bool, str | None]], **options: Any) -> Turn:
    """Answer pending approval requests ``{tool_call_id: (approve, reason)}`` and read on."""
    transcript.record_decisions(decisions)
    answers = [ApprovalAnswer(tool_call_id=call_id, approve=approve, reason=reason)
               for call_id, (approve, reason) in decisions.items()]
    return await read(client.send_approvals(agent_id, answers, **options), transcript)


async def all_history(client: LettaClient, agent_id: str, conversation_id: str | None = None
                      ) -> list[Message]:
    """Every stored message of a thread in one read, oldest first."""
    page = await client.list_messages(agent_id, conversation_id=conversation_id, limit=1000)
    assert not page.has_more
    return page.messages


async def history_transcript(client: LettaClient, agent_id: str,
                             conversation_id: str | None = None) -> Transcript:
    transcript = Transcript()
    transcript.load_history(await all_history(client, agent_id, conversation_id))
    return transcript


def shapes(items: list[Item]) -> list[dict[str, Any]]:
    """Items as JSON without what differs between a live turn and its stored copy."""
    out = []
    for item in items:
        data = item.to_json()
        data.pop("tool_call_id", None)
        out.append(data)
    return out


def last_turn(transcript: Transcript) -> list[Item]:
    """The visible items from the last user message on."""
    items = transcript.visible_items()
    starts = [index for index, item in enumerate(items) if isinstance(item, UserItem)]
    return items[starts[-1]:] if starts else items


def calls(transcript: Transcript) -> list[ToolCallItem]:
    return [item for item in transcript.items if isinstance(item, ToolCallItem)]


async def until(condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Wait until ``condition()`` holds; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def waited(pilot: Any, condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Run the app of ``pilot`` until ``condition()`` holds; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause()  # until the app's queues are drained, then check again


async def assert_as_stored(session: ChatSession) -> None:
    """The last turn shown live equals the same turn read back from the server."""
    stored = await history_transcript(session.client, session.agent.id)
    live = [item for item in last_turn(session.transcript) if item.kind != "footer"]
    assert shapes(live) == shapes(last_turn(stored))
