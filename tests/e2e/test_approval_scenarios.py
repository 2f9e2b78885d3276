"""Approvals against a real Letta 0.16.8 (client + accumulator, as the app drives them)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from chat_fakes import Listener
from e2e_turns import answer, calls, history_transcript, read, send, until

from openletta.api.answers import ApprovalAnswer
from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.chat.approval_flow import APPROVAL_FIRST
from openletta.chat.approvals import Choice, Decision
from openletta.chat.controller import ChatController
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.transcript import AssistantItem, Change, ToolStatus, Transcript, UserItem
from openletta.ui.renderers import renderer_for
from openletta.ui.renderers.base import has_hidden_characters_in_call
from openletta.ui.widgets.tool_card import denial_reason


@pytest.fixture
async def client(letta_base_url: str) -> AsyncIterator[LettaClient]:
    async with LettaClient(letta_base_url) as client:
        yield client


def ignore(_change: Change) -> None:
    """A UI that shows nothing (the transcript is checked instead)."""


async def pending_ids(client: LettaClient, agent_id: str) -> list[str]:
    """The calls the server holds for approval (its word is the authority)."""
    request = await client.get_pending_approval(agent_id)
    return [] if request is None else [call.tool_call_id for call in request.tool_calls]


async def test_approve_attaches_the_return_to_the_same_call(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    turn = await send(client, fresh_agent_id, "run ls", live)
    assert turn.stop_reason == "requires_approval"
    (call,) = live.pending_approvals
    assert call.name == "bash" and call.arguments == {"command": "ls -la"}
    assert await pending_ids(client, fresh_agent_id) == [call.tool_call_id]

    turn = await answer(client, fresh_agent_id, live, {call.tool_call_id: (True, None)})

    assert turn.stop_reason == "end_turn"
    assert calls(live) == [call] and call.status is ToolStatus.SUCCESS
    assert "notes.txt" in (call.result or "") + "".join(call.stdout)
    assert isinstance(live.items[-1], AssistantItem) and "bash" in live.items[-1].text
    (stored,) = calls(await history_transcript(client, fresh_agent_id))
    assert stored.status is ToolStatus.SUCCESS and stored.approved is True
    assert await pending_ids(client, fresh_agent_id) == []


async def test_deny_with_a_reason_keeps_the_reason_in_history(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    await send(client, fresh_agent_id, "run ls", live)
    (call,) = live.pending_approvals

    turn = await answer(client, fresh_agent_id, live,
                        {call.tool_call_id: (False, "not on this machine")})

    assert turn.stop_reason == "end_turn"
    assert call.status is ToolStatus.DENIED and call.reason == "not on this machine"
    assert isinstance(live.items[-1], AssistantItem)
    (stored,) = calls(await history_transcript(client, fresh_agent_id))
    assert stored.status is ToolStatus.DENIED
    assert denial_reason(stored) == "not on this machine"


async def test_two_calls_in_one_step_the_server_holds_what_it_runs(
        client: LettaClient, fresh_agent_id: str) -> None:
    session = ChatSession(client, await client.get_agent(fresh_agent_id))
    outcome = await session.stream_turn("run two commands twice", ignore)
    assert outcome.stop_reason == "requires_approval"
    streamed = [call.tool_call_id for call in session.transcript.pending_approvals]
    held = await pending_ids(client, fresh_agent_id)
    assert len(streamed) == 2 and held and set(held) <= set(streamed)
    if len(held) > 1:  # a reply must cover every held call: one short is refused
        with pytest.raises(LettaError):
            turn = await read(client.send_approvals(fresh_agent_id, [
                ApprovalAnswer(tool_call_id=held[0], approve=True)]), Transcript())
            if turn.error is not None:
                raise turn.error

    round_ = await session.pending_round(ignore)  # as the app asks: the server's word wins
    assert round_ is not None and [call.tool_call_id for call in round_.calls] == held
    for call_id in set(streamed) - set(held):  # streamed, but the agent will not run it
        assert session.transcript.call(call_id).status is ToolStatus.NOT_RUN
    round_.decide(round_.calls[0], Decision(approve=True))
    round_.decide_rest(Decision(approve=False, reason="one is enough"))
    outcome = await session.answer_round(round_, ignore)

    assert outcome.stop_reason == "end_turn"
    assert await pending_ids(client, fresh_agent_id) == []
    assert session.transcript.call(held[0]).status is ToolStatus.SUCCESS
    assert not session.transcript.awaiting_approval  # the user can write again


async def test_an_approval_left_pending_is_found_by_a_new_client(
        client: LettaClient, letta_base_url: str, fresh_agent_id: str) -> None:
    await send(client, fresh_agent_id, "run ls", Transcript())

    async with LettaClient(letta_base_url) as later:
        agent = await later.get_agent(fresh_agent_id)
        assert agent.pending_approval is not None
        opened = await history_transcript(later, fresh_agent_id)
        (waiting,) = opened.pending_approvals
        assert [c.tool_call_id for c in agent.pending_approval.tool_calls] == [
            waiting.tool_call_id]
        turn = await answer(later, fresh_agent_id, opened, {waiting.tool_call_id: (False, None)})
        assert turn.stop_reason == "end_turn"
        turn = await send(later, fresh_agent_id, "hello", opened)
        assert turn.stop_reason == "end_turn"


async def test_always_allow_round_trip_leaves_the_rules_as_they_were(
        client: LettaClient, fresh_agent_id: str) -> None:
    before = (await client.get_agent(fresh_agent_id)).tool_rules

    await client.set_tool_approval(fresh_agent_id, "bash", False)
    live = Transcript()
    turn = await send(client, fresh_agent_id, "run ls", live)
    assert turn.stop_reason == "end_turn"
    (call,) = calls(live)
    assert not call.needs_approval and call.status is ToolStatus.SUCCESS

    await client.set_tool_approval(fresh_agent_id, "bash", True)
    turn = await send(client, fresh_agent_id, "run ls", live)
    assert turn.stop_reason == "requires_approval"
    (waiting,) = live.pending_approvals
    await answer(client, fresh_agent_id, live, {waiting.tool_call_id: (False, "done testing")})

    after = (await client.get_agent(fresh_agent_id)).tool_rules
    assert sorted(map(repr, after)) == sorted(map(repr, before))


async def test_a_command_hiding_behind_a_carriage_return_is_shown_as_it_will_run(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    await send(client, fresh_agent_id, "spoof", live)
    (call,) = live.pending_approvals
    (stored,) = calls(await history_transcript(client, fresh_agent_id))
    for seen in (call, stored):  # live and read back, the server keeps the CR as it is
        assert seen.arguments == {"command": "echo pwned > spoofed.txt; \recho 'hello world'"}
        renderer = renderer_for(seen.name)
        assert renderer.summary(seen) == "echo pwned > spoofed.txt; ␍echo 'hello world'"
        body = "\n".join(block.plain for block in renderer.body(seen, 100))
        assert "$ echo pwned > spoofed.txt; ␍echo 'hello world'" in body
        assert has_hidden_characters_in_call(seen)
    turn = await answer(client, fresh_agent_id, live, {call.tool_call_id: (False, "spoofed")})
    assert turn.stop_reason == "end_turn" and call.status is ToolStatus.DENIED


async def test_esc_while_the_continuation_streams_then_a_message_is_answered(
        client: LettaClient, fresh_agent_id: str) -> None:
    """Issue 18's sequence: approve, Esc during the continuation, then type a message."""
    agent = await client.get_agent(fresh_agent_id)
    listener = Listener()
    session = ChatSession(client, agent)
    controller = ChatController(session, listener)
    try:
        controller.submit("run ls")
        await until(lambda: controller.state.asking is not None)
        call = controller.state.asking
        assert call is not None
        controller.decide(call, Choice.APPROVE)
        await until(lambda: session.turn_open or controller.state.phase is Phase.IDLE)
        controller.interrupt()
        await until(lambda: controller.state.phase is Phase.IDLE)
        controller.submit("hello")
        await until(lambda: controller.state.phase is Phase.IDLE
                    and controller.state.stop_reason == "end_turn", timeout=60)
    finally:
        await controller.close()
    assert controller.state.asking is None
    assert APPROVAL_FIRST not in [message for message, _, _ in listener.reports]
    reply = session.transcript.items[-2]
    assert isinstance(reply, AssistantItem) and "scripted fake model" in reply.text
    stored = await history_transcript(client, fresh_agent_id)
    users = [item.text for item in stored.items if isinstance(item, UserItem)]
    assert users[-1] == "hello" and not any("keep-alive" in text for text in users)

