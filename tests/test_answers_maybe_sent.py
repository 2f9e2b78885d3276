"""Answers to calls whose request broke after it may have reached the server: before they are
sent again (by themselves once the server is back, or on the user's "send again"), the
conversation's history is looked at; answers the server has are not sent twice (Letta would
answer a second copy with a "keep-alive ping" and a step of its own), and its reply shows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from chat_fakes import FakeStream
from test_local_calls import LocalChat, asks_for

from openletta.api.errors import APIConnectionError
from openletta.api.messages import Message, parse_message
from openletta.chat import approval_flow
from openletta.chat.approvals import Choice
from openletta.chat.turn_state import Phase
from openletta.tools.permissions import PermissionMode
from openletta.transcript import AssistantItem

BROKE = APIConnectionError("The connection to the Letta server failed (RemoteProtocolError)")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[LocalChat]:
    chat = LocalChat(tmp_path, PermissionMode.ASK)
    yield chat
    await chat.controller.close()


def stored_answer(call_id: str) -> list[Message]:
    """The history of a round answered with a local call's result, and the agent's reply."""
    envelope = {"date": "2026-11-27T10:00:00+00:00", "run_id": "run-2", "step_id": "step-2"}
    return [parse_message({**envelope, "message_type": "approval_request_message",
                           "id": "message-asks", "tool_calls": [
                               {"tool_call_id": call_id, "name": "Run", "arguments": "{}"}]}),
            parse_message({**envelope, "message_type": "approval_response_message",
                           "id": "message-r", "approvals": [
                               {"type": "tool", "tool_call_id": call_id,
                                "tool_return": "Run ran", "status": "success"}]}),
            parse_message({**envelope, "message_type": "tool_return_message", "id": "message-t",
                           "tool_call_id": call_id, "status": "success",
                           "tool_return": "Run ran"}),
            parse_message({**envelope, "message_type": "assistant_message", "id": "message-a",
                           "content": "Run finished: all good."})]


async def ran_then_broke(chat: LocalChat, *, back: bool) -> None:
    """A call approved and run here, whose answers' request broke after it was made;
    ``back``: the server can be reached meanwhile (else it stays down until told)."""
    chat.client.turns.append(FakeStream(asks_for(("call-1", "Run", {}))))
    chat.client.answers.extend([FakeStream([], refuse=BROKE), FakeStream([])])
    if not back:
        chat.client.down = BROKE
    chat.controller.submit("do it")
    await chat.until(lambda: chat.controller.state.asking is not None)
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.answer_error is not None, "refused")


def replies(chat: LocalChat) -> list[str]:
    return [item.text for item in chat.transcript.items if isinstance(item, AssistantItem)]


async def test_answers_the_server_has_are_not_sent_again_once_it_is_back(
        chat: LocalChat) -> None:
    chat.client.history = stored_answer("call-1")
    await ran_then_broke(chat, back=True)
    await chat.until(lambda: approval_flow.ANSWERS_ARRIVED in
                     [message for message, _severity, _notice in chat.listener.reports]
                     and chat.controller.state.phase is Phase.IDLE, "found on the server")
    assert len(chat.client.answered) == 1 and len(chat.run_tool.runs) == 1
    assert replies(chat) == ["Run finished: all good."]
    assert chat.controller.state.answer_error is None


async def test_send_again_looks_first_and_sends_only_what_the_server_lacks(
        chat: LocalChat) -> None:
    await ran_then_broke(chat, back=False)
    assert chat.controller.state.answer_error.startswith("Maybe not sent")  # type: ignore[union-attr]
    chat.client.down = None
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: len(chat.client.answered) == 2
                     and chat.controller.state.phase is Phase.IDLE, "sent again")
    assert chat.client.history_reads >= 1 and len(chat.run_tool.runs) == 1


async def test_send_again_of_answers_the_server_has_shows_its_reply(chat: LocalChat) -> None:
    await ran_then_broke(chat, back=False)
    chat.client.history = stored_answer("call-1")
    chat.client.down = None
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "found")
    assert len(chat.client.answered) == 1
    assert replies(chat) == ["Run finished: all good."]
