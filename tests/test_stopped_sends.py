"""Esc while the server has not answered a request yet: the server may take it all the
same, so what the chat says waits for its answer, and a run it starts is stopped."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from chat_fakes import FakeStream
from test_controller import APPROVED, CALL_ID, HELLO, Chat, recorded

from openletta.api.errors import ServerError
from openletta.chat import session as session_module
from openletta.chat import stopped_sends
from openletta.chat.approvals import Choice
from openletta.chat.replies import INTERRUPTED
from openletta.chat.turn_state import STOPPING, Phase
from openletta.transcript import EventItem, TurnFooterItem, UserItem

HELLO_RUN = "run-6a61b273-2373-436a-ba4f-78c62f635479"  # the recording's
APPROVED_RUN = "run-fb03645d-d4d9-4fa7-ab1c-240c7b798857"


@pytest.fixture
async def chat(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Chat]:
    monkeypatch.setattr(session_module, "UNKEPT_RECHECK_SECONDS", 0.001)
    chat = Chat()
    yield chat
    await chat.controller.close()


def footer(chat: Chat) -> TurnFooterItem:
    return next(item for item in reversed(chat.transcript.items)
                if isinstance(item, TurnFooterItem))


async def esc_while_sending(chat: Chat, stream: FakeStream, text: str = "stall") -> None:
    """Send ``text`` and press Esc once its request went, before the server answered."""
    chat.client.turns.append(stream)
    chat.controller.submit(text)
    await chat.until(lambda: chat.client.sent, "the request sent")
    chat.controller.interrupt()


async def test_a_message_the_server_takes_after_esc_is_shown_stopped_not_given_back(
        chat: Chat) -> None:
    accept, hold = asyncio.Event(), asyncio.Event()
    await esc_while_sending(chat, FakeStream(recorded(HELLO), accept=accept, hold=hold,
                                             hold_at=1))
    await chat.until(lambda: chat.state.connection == STOPPING, "stopping shown")
    assert chat.state.phase is Phase.SENDING and not chat.listener.restored
    chat.controller.submit("typed meanwhile")
    chat.controller.interrupt()  # (again: it is already being stopped)
    accept.set()  # the server takes it all the same
    await chat.settled()
    assert chat.client.cancelled == [[HELLO_RUN]]  # its run stopped
    assert chat.listener.restored[:1] == ["typed meanwhile"]  # not "stall" as unsent
    users = [item.text for item in chat.transcript.items if isinstance(item, UserItem)]
    assert users == ["stall"]
    assert any(isinstance(item, EventItem) and item.text == INTERRUPTED
               for item in chat.transcript.items)
    assert chat.state.stop_reason == "interrupted" and chat.state.connection is None
    assert footer(chat).run_ids == (HELLO_RUN,)
    await chat.until(lambda: footer(chat).unkept, "the turn said not kept")
    assert stopped_sends.TAKEN in [message for message, _, _ in chat.listener.reports]
    await chat.until(lambda: chat.listener.restored == ["typed meanwhile", "stall"],
                     "given back once the server dropped it")


async def test_a_message_the_server_refuses_after_esc_goes_back_as_not_sent(
        chat: Chat) -> None:
    accept = asyncio.Event()
    await esc_while_sending(chat, FakeStream(recorded(HELLO), accept=accept,
                                             refuse=ServerError("the server failed")))
    accept.set()
    await chat.settled()
    assert chat.listener.restored == ["stall"] and not chat.client.cancelled
    assert chat.listener.reports[-1][0] == "Not sent: the server failed"
    assert not any(isinstance(item, UserItem) for item in chat.transcript.items)


async def test_a_message_the_server_takes_only_after_the_wait_has_its_run_stopped_then(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stopped_sends, "STOP_WAIT_SECONDS", 0.01)
    accept, hold = asyncio.Event(), asyncio.Event()
    await esc_while_sending(chat, FakeStream(recorded(HELLO), accept=accept, hold=hold,
                                             hold_at=1))
    await chat.settled()
    assert chat.listener.restored == ["stall"] and not chat.client.cancelled
    assert chat.listener.reports[-1][0] == stopped_sends.UNANSWERED
    assert chat.controller._tasks.unconfirmed is not None  # looked for when sent again
    accept.set()  # the server takes it late
    await chat.until(lambda: chat.client.cancelled == [[HELLO_RUN]], "its run stopped")
    await chat.until(lambda: chat.listener.reports[-1][0] == stopped_sends.TAKEN_LATE,
                     "said so")
    assert not any(isinstance(item, UserItem) for item in chat.transcript.items)


async def test_answers_the_server_takes_after_esc_have_their_continuation_stopped(
        chat: Chat) -> None:
    await chat.ask()
    accept, hold = asyncio.Event(), asyncio.Event()
    chat.client.answers.append(FakeStream(recorded(APPROVED), accept=accept, hold=hold,
                                          hold_at=1))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.client.answered)
    chat.controller.interrupt()
    accept.set()  # the server takes the answers all the same: it holds the call no more
    await chat.settled()
    assert chat.client.cancelled == [[APPROVED_RUN]]
    assert chat.state.asking is None
    assert footer(chat).run_ids[-1:] == (APPROVED_RUN,)


async def test_answers_the_server_refuses_after_esc_are_asked_for_again(chat: Chat) -> None:
    await chat.ask()
    accept = asyncio.Event()
    chat.client.answers.append(FakeStream(recorded(APPROVED), accept=accept,
                                          refuse=ServerError("the server failed")))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.client.answered)
    chat.controller.interrupt()
    accept.set()  # refused: the server still holds the call
    await chat.settled(Phase.AWAITING_APPROVAL)
    assert chat.state.asking is chat.transcript.call(CALL_ID) and not chat.client.cancelled
