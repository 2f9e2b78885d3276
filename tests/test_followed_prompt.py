"""The message a followed reply answers, when this client sent it before the chat was left
(the app quit mid-reply): Letta 0.16.8 stores a message only once the run answering it
ends, so the chat opened again shows it from what this client kept. If the server then drops
the turn (Esc), the message goes back to the prompt."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from chat_fakes import FakeStream
from test_controller import (
    APPROVED,
    HELLO,
    REPLAY,
    REPLAY_RUN,
    Chat,
    followed_divider,
    footer,
    quick_rechecks,  # noqa: F401  (a fixture)
    recorded,
    running,
)

from openletta.api.errors import NotFoundError, StreamDroppedError
from openletta.api.messages import parse_message
from openletta.api.resources import Agent, Run
from openletta.chat.approvals import Choice
from openletta.chat.controller import FOLLOWING_OPENED, ChatController
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.transcript import UserItem

SENT = "slow follow test"


def bubbles(chat: Chat) -> list[str]:
    return [item.text for item in chat.session.transcript.items if isinstance(item, UserItem)]


@pytest.fixture
async def chat() -> AsyncIterator[Chat]:
    """A chat whose client remembers the message the followed run answers."""
    chat = Chat()
    remembered = {REPLAY_RUN: SENT}
    chat.session = ChatSession(chat.client, Agent(id="agent-1", name="tester"),  # type: ignore[arg-type]
                               prompt_of_run=lambda run_id: remembered.pop(run_id, ""))
    chat.controller = ChatController(chat.session, chat.listener)
    yield chat
    await chat.controller.close()


async def follow_held(chat: Chat) -> asyncio.Event:
    """Open the chat on the reply going, and hold its stream after a few chunks."""
    hold = asyncio.Event()
    chat.client.active = [running()]
    chat.client.resumes.append(FakeStream(recorded(REPLAY), hold=hold, hold_at=5))
    chat.controller.opened()
    await chat.until(lambda: chat.session.turn_open, "following")
    return hold


async def test_a_followed_reply_shows_the_message_this_client_sent_as_its_bubble(
        chat: Chat) -> None:
    hold = await follow_held(chat)
    assert followed_divider(chat).text == FOLLOWING_OPENED
    assert bubbles(chat) == [SENT]  # at once: the server has not stored it
    assert chat.session.reply_in_flight() == (REPLAY_RUN, SENT)  # kept if left again
    chat.client.run_messages[REPLAY_RUN] = [parse_message(
        {"message_type": "user_message", "id": "message-q", "content": SENT})]
    hold.set()
    await chat.settled()
    assert bubbles(chat) == [SENT]  # shown once
    assert chat.session.reply_in_flight() is None


async def test_a_followed_reply_completed_from_its_run_shows_the_message_once(
        chat: Chat) -> None:
    # Before, the followed stream breaking and the turn completed from what its run stored,
    # the user's message stored with it came as a second bubble, under the reply's start.
    from test_follow_run import stored_form

    chunks = recorded(REPLAY)
    chat.client.active = [running()]
    chat.client.resumes.append(FakeStream(chunks[:8], drop=StreamDroppedError(REPLAY_RUN, 8)))
    chat.client.resumes.append(FakeStream([], refuse=NotFoundError("the stream expired")))
    chat.client.run_messages[REPLAY_RUN] = [parse_message(
        {"message_type": "user_message", "id": "message-q", "run_id": REPLAY_RUN,
         "content": SENT}), *stored_form(chunks)]
    chat.controller.opened()
    await chat.until(lambda: chat.session.turn_open, "following")
    chat.client.runs[REPLAY_RUN] = Run(id=REPLAY_RUN, status="completed",
                                       stop_reason="end_turn")  # (it ends meanwhile)
    await chat.settled()
    assert chat.client.resumed  # the stream broke and could not be taken up again
    assert bubbles(chat) == [SENT]
    kinds = [item.kind for item in chat.session.transcript.items]
    assert kinds[:2] == ["event", "user"] and kinds.count("footer") == 1


async def test_esc_on_a_followed_reply_the_server_drops_gives_its_message_back(
        chat: Chat, quick_rechecks: None) -> None:  # noqa: F811
    await follow_held(chat)
    chat.controller.interrupt()
    await chat.until(lambda: footer(chat).unkept, "the turn said not kept")
    await chat.until(lambda: chat.listener.restored == [SENT], "the message given back")
    assert chat.state.phase is Phase.IDLE


async def test_a_followed_reply_whose_message_is_not_known_gives_nothing_back(
        chat: Chat, quick_rechecks: None) -> None:  # noqa: F811
    chat.session = ChatSession(chat.client, Agent(id="agent-1", name="tester"))  # type: ignore[arg-type]
    chat.controller = ChatController(chat.session, chat.listener)
    await follow_held(chat)
    assert followed_divider(chat).text == FOLLOWING_OPENED
    assert chat.session.reply_in_flight() is None
    chat.controller.interrupt()
    await chat.until(lambda: footer(chat).unkept, "the turn said not kept")
    await chat.until(lambda: not chat.controller._tasks._side_tasks, "the checks done")
    assert not chat.listener.restored


async def test_the_message_of_a_reply_streaming_here_is_kept_when_the_chat_is_left(
        chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=4))
    chat.controller.submit("hello there")
    await chat.until(lambda: chat.session.run_id is not None, "the run named")
    assert chat.session.reply_in_flight() == (chat.session.run_id, "hello there")
    hold.set()
    await chat.settled()
    assert chat.session.reply_in_flight() is None


async def test_a_reply_going_on_after_approvals_keeps_no_message_its_turn_stored_already(
        chat: Chat) -> None:
    await chat.ask()
    hold = asyncio.Event()
    chat.client.answers.append(FakeStream(recorded(APPROVED), hold=hold, hold_at=4))
    asking = chat.state.asking
    assert asking is not None
    chat.controller.decide(asking, Choice.APPROVE)
    await chat.until(lambda: chat.session.turn_open and chat.session.run_id, "continuing")
    assert chat.session.reply_in_flight() is None  # ("run ls" is in history: not given back)
    hold.set()
    await chat.settled()
