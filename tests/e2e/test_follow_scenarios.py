"""Replies already going, on the real Letta 0.16.8: followed when the chat opens, followed
before a message for a busy conversation is sent, and found again when the connection broke
before the server named the run, or when the server was away for seconds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from chat_fakes import Listener
from e2e_turns import assert_as_stored, history_transcript, last_turn, shapes, until
from fault_proxy import FaultProxy

from openletta.api.client import LettaClient
from openletta.chat.approvals import Choice
from openletta.chat.controller import FOLLOWING_BUSY, FOLLOWING_OPENED, ChatController
from openletta.chat.replies import RECONNECTED, RECONNECTING
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.transcript import EventItem, Item, ToolStatus, Transcript

pytestmark = pytest.mark.usefixtures("quick_resumes")


class Chat:
    """A controller as the chat screen makes it, on a client of its own."""

    def __init__(self, client: LettaClient, session: ChatSession) -> None:
        self.client, self.session, self.listener = client, session, Listener()
        self.controller = ChatController(session, self.listener)

    async def open(self) -> None:
        """Load the newest history and catch up, as the chat screen does."""
        self.listener.transcript_changed(await self.session.load_latest())
        self.controller.opened()

    async def settled(self) -> None:
        await until(lambda: self.controller.state.phase is Phase.IDLE
                    and self.controller.state.stop_reason is not None)


@pytest.fixture
async def open_chat(fresh_agent_id: str, proxy: FaultProxy) -> AsyncIterator[Chat]:
    async with LettaClient(proxy.base_url) as client:
        chat = Chat(client, ChatSession(client, await client.get_agent(fresh_agent_id)))
        yield chat
        await chat.controller.close()


async def started_elsewhere(base_url: str, agent_id: str, text: str) -> str:
    """Another client starts a background reply, reads its first chunks and goes away."""
    async with LettaClient(base_url) as other:
        stream = other.send_message(agent_id, text, background=True)
        async with stream:
            async for message in stream:
                if message.message_type == "assistant_message":
                    break
        assert stream.run_id is not None
        return stream.run_id


def after_divider(transcript: Transcript, note: str) -> list[Item]:
    items = transcript.visible_items()
    start = next(index for index, item in enumerate(items)
                 if isinstance(item, EventItem) and item.text.startswith(note))
    return [item for item in items[start + 1:] if item.kind != "footer"]


async def test_a_reply_going_when_the_chat_opens_is_followed_to_its_end(
        letta_base_url: str, open_chat: Chat) -> None:
    chat = open_chat
    agent_id = chat.session.agent.id
    await started_elsewhere(letta_base_url, agent_id, "slow please")
    await chat.open()
    await chat.settled()
    assert chat.controller.state.stop_reason == "end_turn"
    assert Phase.STREAMING in chat.listener.phases
    stored = await history_transcript(chat.client, agent_id)
    followed = after_divider(chat.session.transcript, FOLLOWING_OPENED)
    assert shapes(followed) == shapes(last_turn(stored)[1:])  # history had no user item yet
    divider = next(item for item in chat.session.transcript.items if isinstance(item, EventItem))
    assert divider.text == f"{FOLLOWING_OPENED} · answering “slow please”"  # stored at the end


async def test_a_message_for_a_busy_conversation_follows_the_reply_then_is_answered(
        letta_base_url: str, open_chat: Chat) -> None:
    chat = open_chat
    agent_id = chat.session.agent.id
    await chat.open()
    await until(lambda: chat.controller.state.phase is Phase.IDLE)
    await started_elsewhere(letta_base_url, agent_id, "slow please")
    chat.controller.submit("hello")
    await until(lambda: chat.controller.state.queued == ("hello",))
    await chat.settled()
    assert chat.controller.state.stop_reason == "end_turn"
    assert not chat.listener.restored
    stored = await history_transcript(chat.client, agent_id)
    mine = [item for item in last_turn(chat.session.transcript) if item.kind != "footer"]
    assert shapes(mine) == shapes(last_turn(stored))
    followed = after_divider(chat.session.transcript, FOLLOWING_BUSY)
    followed = followed[:next(index for index, item in enumerate(followed)
                              if item.kind == "user")]
    stored_items = stored.visible_items()
    users = [index for index, item in enumerate(stored_items) if item.kind == "user"]
    assert shapes(followed) == shapes(stored_items[users[-2] + 1:users[-1]])


async def test_a_reply_cut_before_it_named_its_run_is_found_and_resumed(
        proxy: FaultProxy, open_chat: Chat) -> None:
    chat = open_chat
    proxy.arm("cut", "/messages", after_events=0)
    chat.controller.submit("long please")
    await chat.settled()
    assert proxy.fired and chat.controller.state.stop_reason == "end_turn"
    await assert_as_stored(chat.session)


async def test_a_server_away_for_seconds_mid_reply_is_waited_for(
        proxy: FaultProxy, open_chat: Chat) -> None:
    chat = open_chat
    proxy.down_seconds = 2.5
    proxy.arm("down", "/messages", after_events=25)
    chat.controller.submit("long please")
    await chat.settled()
    assert proxy.fired and chat.controller.state.stop_reason == "end_turn"
    seen = [state.connection for state in chat.listener.states if state.connection]
    assert seen[0] == RECONNECTING and seen[-1] == RECONNECTED
    assert seen.count(RECONNECTING) >= 2  # the first tries found nobody
    await assert_as_stored(chat.session)


async def test_a_call_that_ran_before_esc_shows_its_result(
        proxy: FaultProxy, open_chat: Chat) -> None:
    chat = open_chat
    agent_id = chat.session.agent.id
    chat.controller.submit("run ls")
    await until(lambda: chat.controller.state.asking is not None)
    call = chat.controller.state.asking
    assert call is not None
    proxy.arm("stall", "/messages", after_events=1)  # the tool runs; its return is held back

    async def ran_on_server() -> bool:
        stored = await history_transcript(chat.client, agent_id)
        held = stored.call(call.tool_call_id)
        return held is not None and held.status is ToolStatus.SUCCESS

    chat.controller.decide(call, Choice.APPROVE)
    for _ in range(100):
        if await ran_on_server():
            break
        await asyncio.sleep(0.1)
    assert await ran_on_server()
    chat.controller.interrupt()
    await until(lambda: call.status is ToolStatus.SUCCESS, timeout=15)
    assert call.result
