"""The context size shown once a compaction is newer than any turn: the server's estimate,
marked as one, the same right after ``/compact`` and when the thread is opened again (the
newest run's count predates the compaction); the next turn's count replaces it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from chat_fakes import FakeClient, Listener

from openletta.api.messages import Message, UsageStatistics, parse_message
from openletta.api.resources import Agent, Step
from openletta.chat import turn_tasks
from openletta.chat.controller import ChatController
from openletta.chat.session import ChatSession
from openletta.transcript import Transcript

FIXTURES = Path(__file__).parent / "fixtures"
#: What the model counted in the newest run's last call (before the compaction), and the
#: server's estimate of the compacted context.
COUNTED = 3_400
ESTIMATE = 1_500


def compacted_history() -> list[Message]:
    """Four turns, then the note a ``/compact`` stored (no turn since)."""
    return [parse_message(entry)
            for entry in json.loads((FIXTURES / "compacted_history.json").read_text())]


def history_before_compacting() -> list[Message]:
    return compacted_history()[:-1]


def server(history: list[Message], estimate: int | None = ESTIMATE) -> FakeClient:
    """A server holding ``history``, whose newest run counted :data:`COUNTED`."""
    client = FakeClient()
    client.history, client.context_estimate = history, estimate

    async def list_run_steps(run_id: str) -> list[Step]:
        return [Step(id="step-1", prompt_tokens=COUNTED - 40, completion_tokens=40)]

    client.list_run_steps = list_run_steps  # type: ignore[method-assign]
    return client


async def opened(client: FakeClient) -> ChatSession:
    """A session of the thread, opened as the app opens one: history, then the size."""
    session = ChatSession(client, Agent(id="agent-1"))  # type: ignore[arg-type]
    await session.load_latest()
    await session.read_context_size(lambda change: None)
    return session


def shown(session: ChatSession) -> tuple[int | None, bool]:
    return session.transcript.context_tokens, session.transcript.context_estimated


def test_a_compaction_newer_than_any_turn_is_told_from_one_with_a_turn_since() -> None:
    transcript = Transcript(footers=True)
    transcript.load_history(history_before_compacting())
    assert not transcript.compacted_since_last_turn()
    transcript.load_history(compacted_history())
    assert transcript.compacted_since_last_turn()
    transcript.add_user("hello")
    assert not transcript.compacted_since_last_turn()


async def test_reopened_after_a_compaction_the_size_is_the_servers_estimate() -> None:
    assert shown(await opened(server(compacted_history()))) == (ESTIMATE, True)


async def test_reopened_with_no_compaction_since_the_last_turn_the_size_is_its_count() -> None:
    assert shown(await opened(server(history_before_compacting()))) == (COUNTED, False)


async def test_an_estimate_the_server_cannot_give_shows_no_size_not_the_old_one() -> None:
    assert shown(await opened(server(compacted_history(), estimate=None))) == (None, False)


async def test_compact_and_reopening_show_the_same_size() -> None:
    client = server(history_before_compacting())
    session = await opened(client)
    assert shown(session) == (COUNTED, False)
    client.compacted = compacted_history()
    await session.compact(lambda change: None)
    assert shown(session) == (ESTIMATE, True)
    assert shown(await opened(client)) == (ESTIMATE, True)


async def test_compact_leaves_the_size_when_the_server_cannot_estimate_it() -> None:
    client = server(history_before_compacting(), estimate=None)
    session = await opened(client)
    client.compacted = compacted_history()
    await session.compact(lambda change: None)
    assert shown(session) == (COUNTED, False)


async def test_the_next_turns_count_replaces_the_estimate() -> None:
    session = await opened(server(compacted_history()))
    session.transcript.add_user("hello")
    session.transcript.feed(UsageStatistics(prompt_tokens=1_700, completion_tokens=20,
                                            total_tokens=1_720, step_count=1,
                                            context_tokens=1_720))
    assert shown(session) == (1_720, False)


async def test_a_compaction_made_elsewhere_shows_the_estimate_once_the_chat_looks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    client = server(history_before_compacting())
    session = await opened(client)
    controller = ChatController(session, Listener())
    try:
        client.history = compacted_history()  # another client compacted the thread
        controller.typing()
        for _ in range(500):
            if shown(session) != (COUNTED, False):
                break
            await asyncio.sleep(0.002)
        assert shown(session) == (ESTIMATE, True)
    finally:
        await controller.close()
