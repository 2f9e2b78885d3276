"""The agent's model changed by another client: read again after a turn fails (or when a
run's steps name another model), shown, and said once."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from chat_fakes import FakeClient, FakeStream, Listener
from test_controller import FIXTURES, HELLO, Chat, recorded

from openletta.api.messages import parse_message
from openletta.api.resources import Agent, LLMConfig, Step
from openletta.chat.agent_model import runs_on
from openletta.chat.session import ChatSession

OLD, NEW = "openai-proxy/fake-model", "letta/letta-free"


def on_model(handle: str, window: int) -> Agent:
    return Agent(id="agent-1", name="tester", model=handle,
                 llm_config=LLMConfig(handle=handle, model=handle.rpartition("/")[2],
                                      context_window=window))


@pytest.fixture
async def chat() -> AsyncIterator[Chat]:
    chat = Chat()
    chat.session.agent = on_model(OLD, 32_000)
    chat.client.agent = on_model(OLD, 32_000)
    yield chat
    await chat.controller.close()


async def failed_turn(chat: Chat) -> None:
    chat.client.turns.append(FakeStream(recorded("llm_error_tokens.sse")))
    chat.controller.submit("hello")
    await chat.settled()
    await chat.until(lambda: not chat.controller._tasks._side_tasks, "the side tasks")


async def test_a_failed_turn_reads_the_agent_again_and_says_its_new_model_once(
        chat: Chat) -> None:
    chat.client.agent = on_model(NEW, 128_000)  # another client ran /model
    await failed_turn(chat)
    assert chat.state.stop_reason == "llm_api_error"
    assert chat.session.agent.model_name == NEW and chat.session.agent.context_window == 128_000
    assert chat.session.agent.name == "tester"
    assert [agent.model_name for agent in chat.listener.agents] == [NEW]
    said = [(message, notice) for message, _, notice in chat.listener.reports
            if "changed elsewhere" in message]
    assert said == [(f"tester now runs on {NEW} (changed elsewhere).", True)]
    await failed_turn(chat)  # read again, but nothing new to say
    assert chat.client.agent_reads == 2 and len(chat.listener.agents) == 1
    assert sum("changed elsewhere" in message for message, _, _ in chat.listener.reports) == 1


async def test_a_failed_turn_on_an_unchanged_model_says_nothing_of_it(chat: Chat) -> None:
    await failed_turn(chat)
    assert chat.client.agent_reads == 1
    assert not chat.listener.agents
    assert not any("changed elsewhere" in message for message, _, _ in chat.listener.reports)


async def test_a_clean_turn_does_not_read_the_agent(chat: Chat) -> None:
    chat.client.agent = on_model(NEW, 128_000)
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.client.agent_reads == 0 and chat.session.agent.model_name == OLD


async def test_an_agent_that_cannot_be_read_leaves_the_model_shown(chat: Chat) -> None:
    chat.client.agent = None
    await failed_turn(chat)
    assert chat.client.agent_reads == 1 and not chat.listener.agents
    assert chat.session.agent.model_name == OLD


def test_a_step_runs_on_the_agents_model_by_handle_or_name() -> None:
    agent = on_model(OLD, 32_000)
    assert runs_on(agent, OLD) and runs_on(agent, "fake-model")
    assert not runs_on(agent, NEW)


async def test_the_context_size_read_names_the_model_of_the_newest_step() -> None:
    client = FakeClient()
    session = ChatSession(client, on_model(OLD, 32_000))  # type: ignore[arg-type]
    session.transcript.load_history([parse_message(entry) for entry in json.loads(
        (FIXTURES / "run_messages.json").read_text())])
    run_id = session.transcript.newest_runs()[-1]

    async def list_run_steps(asked: str) -> list[Step]:
        assert asked == run_id
        return [Step(id="step-1", model="letta-free", model_handle=NEW, total_tokens=900)]

    client.list_run_steps = list_run_steps  # type: ignore[attr-defined]
    assert await session.read_context_size(Listener().transcript_changed) == NEW
    assert session.transcript.context_tokens == 900
