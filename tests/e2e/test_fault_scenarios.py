"""Broken connections on the real Letta 0.16.8, through a fault-injecting proxy.

Each reply is broken on its way (cut, reset or stalled after some events, or the server
unreachable for longer than openletta tries to resume); openletta resumes the background run
(once the server is back, for the last), and the turn it shows equals the turn the server
stored, as if nothing had happened. A send that never reached an answer gives the typed text
back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from chat_fakes import Listener
from e2e_turns import assert_as_stored, until
from fault_proxy import FaultProxy

from openletta.api import http, sse
from openletta.api.client import LettaClient
from openletta.chat import turn_tasks
from openletta.chat.approvals import Choice
from openletta.chat.controller import ChatController
from openletta.chat.replies import RECONNECTED, RECONNECTING
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase

pytestmark = pytest.mark.usefixtures("quick_resumes")


@pytest.fixture
async def chat(proxy: FaultProxy, fresh_agent_id: str
               ) -> AsyncIterator[tuple[ChatController, Listener]]:
    async with LettaClient(proxy.base_url) as client:
        listener = Listener()
        controller = ChatController(ChatSession(client, await client.get_agent(fresh_agent_id)),
                                    listener)
        yield controller, listener
        await controller.close()


async def turn(controller: ChatController, text: str) -> None:
    """Send ``text`` and wait until the turn ended or asks for approval."""
    controller.submit(text)
    await until(lambda: settled(controller))


def settled(controller: ChatController) -> bool:
    state = controller.state
    if state.phase is Phase.AWAITING_APPROVAL:
        return state.asking is not None
    return state.phase is Phase.IDLE


def connections(listener: Listener) -> list[str]:
    seen: list[str] = []
    for state in listener.states:
        if state.connection and (not seen or seen[-1] != state.connection):
            seen.append(state.connection)
    return seen


@pytest.mark.parametrize("how", ["cut", "reset"])
async def test_a_reply_cut_midway_is_resumed_whole(proxy, chat, how) -> None:
    controller, listener = chat
    proxy.arm(how, "/messages", after_events=25)
    await turn(controller, "long please")
    assert proxy.fired and controller.state.stop_reason == "end_turn"
    assert connections(listener)[:2] == [RECONNECTING, RECONNECTED]
    await assert_as_stored(controller.session)


async def test_a_cut_in_the_middle_of_tool_arguments_is_resumed(proxy, chat) -> None:
    controller, _listener = chat
    proxy.arm("cut", "/messages", after_events=6)  # ping, reasoning, then argument fragments
    await turn(controller, "write notes-cut.txt")
    assert proxy.fired and controller.state.phase is Phase.AWAITING_APPROVAL
    call = controller.state.asking
    assert call is not None and call.arguments is not None
    assert call.arguments["path"] == "notes-cut.txt"
    controller.decide(call, Choice.APPROVE)
    await until(lambda: settled(controller))
    await assert_as_stored(controller.session)


async def test_a_continuation_cut_after_approval_is_resumed(proxy, chat) -> None:
    controller, _listener = chat
    await turn(controller, "run ls")
    call = controller.state.asking
    assert call is not None
    proxy.arm("cut", "/messages", after_events=3)
    controller.decide(call, Choice.APPROVE)
    await until(lambda: settled(controller))
    assert proxy.fired and controller.state.stop_reason == "end_turn"
    await assert_as_stored(controller.session)


async def test_a_stalled_reply_is_resumed(proxy, chat, monkeypatch) -> None:
    monkeypatch.setattr(sse, "STALL_TIMEOUT", 2.0)
    controller, listener = chat
    proxy.arm("stall", "/messages", after_events=8)
    await turn(controller, "long please")
    assert proxy.fired and controller.state.stop_reason == "end_turn"
    assert RECONNECTING in connections(listener)
    await assert_as_stored(controller.session)


async def test_a_send_that_gets_no_answer_gives_the_text_back(proxy, chat) -> None:
    controller, listener = chat
    proxy.arm("reset", "/messages", after_events=-1)
    controller.submit("hello there")
    await until(lambda: controller.state.phase is Phase.IDLE)
    assert listener.restored == ["hello there"]
    assert "ot sent" in listener.reports[-1][0]  # "Maybe not sent": it may have arrived


async def test_a_foreground_reply_cut_midway_is_completed_from_its_run(proxy, chat) -> None:
    controller, listener = chat
    controller.session.background = False  # as on a server without Redis: not resumable
    proxy.arm("cut", "/messages", after_events=25)
    await turn(controller, "long please")
    assert proxy.fired and not listener.reports
    assert controller.state.stop_reason == "end_turn"
    await assert_as_stored(controller.session)


async def test_a_reply_cut_while_the_server_is_down_is_taken_up_once_it_is_back(
        proxy, chat, monkeypatch) -> None:
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (0.5,))
    controller, listener = chat
    proxy.down_seconds = 9.0  # longer than the quick resumes try (about 6 s)
    proxy.arm("down", "/messages", after_events=25)
    controller.submit("long please")
    await until(lambda: controller.state.offline and controller.state.phase is Phase.IDLE)
    assert controller.state.stop_reason == "dropped" and controller.session.dropped_unreached
    await until(lambda: settled(controller) and controller.state.stop_reason == "end_turn")
    assert not controller.state.offline
    assert turn_tasks.BACK_ONLINE in [message for message, _, _ in listener.reports]
    await assert_as_stored(controller.session)
