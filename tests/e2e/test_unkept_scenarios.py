"""Turns the real Letta 0.16.8 drops whole (a failed or a cancelled run: the user's message
goes too) are said so under them, and only those."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from chat_fakes import Listener
from e2e_turns import until
from fault_proxy import FaultProxy

from openletta.api.client import LettaClient
from openletta.chat.controller import ChatController
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.transcript import AssistantItem, TurnFooterItem, UserItem


@pytest.fixture
async def controller(letta_base_url: str, fresh_agent_id: str
                     ) -> AsyncIterator[ChatController]:
    async with LettaClient(letta_base_url) as client:
        chat = ChatController(ChatSession(client, await client.get_agent(fresh_agent_id)),
                              Listener())
        yield chat
        await chat.close()


def last_footer(controller: ChatController) -> TurnFooterItem | None:
    return next((item for item in reversed(controller.session.transcript.items)
                 if isinstance(item, TurnFooterItem)), None)


async def ended(controller: ChatController) -> TurnFooterItem:
    """The footer of the turn just ended, once every check after it is done."""
    await until(lambda: controller.state.phase is Phase.IDLE and not controller.turn_running)
    await until(lambda: not controller._tasks._side_tasks)
    footer = last_footer(controller)
    assert footer is not None
    return footer


async def test_a_failed_turn_is_said_not_kept_and_a_good_one_is_not(
        controller: ChatController) -> None:
    controller.submit("llmerror please")
    assert (await ended(controller)).unkept
    controller.submit("hello")
    assert not (await ended(controller)).unkept


async def test_an_interrupted_turn_is_said_not_kept(controller: ChatController) -> None:
    controller.submit("slow please")
    await until(lambda: any(isinstance(item, AssistantItem)
                            for item in controller.session.transcript.items))
    controller.interrupt()
    await until(lambda: (footer := last_footer(controller)) is not None and footer.unkept)


async def test_a_turn_interrupted_before_any_token_is_said_not_kept(
        controller: ChatController) -> None:
    controller.submit("stall please")  # the model stays silent for a while
    await until(lambda: controller.session.run_id is not None)  # the first ping named it
    run_id = controller.session.run_id
    controller.interrupt()
    footer = last_footer(controller)
    assert footer is not None and footer.run_ids == (run_id,)
    await until(lambda: footer.unkept)
    assert not any(isinstance(item, AssistantItem)
                   for item in controller.session.transcript.items)


async def test_a_message_esc_stopped_while_it_was_sent_leaves_no_run_going(
        proxy: FaultProxy, fresh_agent_id: str) -> None:
    """Esc once the message reached the server, before it answered: the server takes it
    all the same, so it is not given back as not sent; its run is stopped. The server then
    drops the turn whole: the message goes back to the prompt as the agent will not see it."""
    reached = asyncio.Event()
    proxy.on_forward = lambda data: b"stall please" in data and reached.set()
    async with LettaClient(proxy.base_url) as client:
        listener = Listener()
        controller = ChatController(
            ChatSession(client, await client.get_agent(fresh_agent_id)), listener)
        try:
            controller.submit("stall please")  # the model stays silent for a while
            await asyncio.wait_for(reached.wait(), 10)
            controller.interrupt()
            await until(lambda: controller.state.phase is Phase.IDLE
                        and not controller.turn_running and not controller._tasks._side_tasks)
            items = controller.session.transcript.items
            assert [item.text for item in items if isinstance(item, UserItem)] == ["stall please"]
            footer = last_footer(controller)
            assert footer is not None
            assert footer.run_ids and controller.state.stop_reason == "interrupted"
            await until(lambda: footer.unkept)
            assert listener.restored == ["stall please"]  # once, when it was dropped
            assert await client.active_runs(fresh_agent_id) == []
        finally:
            await controller.close()
