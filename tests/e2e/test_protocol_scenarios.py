"""The protocol core against a real Letta 0.16.8: openletta's client and accumulator, end to end.

Each scenario of the harness issue is one test; agents that hold state are fresh per test.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from e2e_turns import all_history, calls, history_transcript, last_turn, read, send, shapes

from openletta.api.client import LettaClient
from openletta.api.errors import PendingApprovalError
from openletta.api.models import ToolCallMessage
from openletta.transcript import AssistantItem, EventItem, ToolStatus, Transcript, UserItem

HELLO_ANSWER = "Hello! I am a scripted fake model. How can I help?"


@pytest.fixture
async def client(letta_base_url: str) -> AsyncIterator[LettaClient]:
    async with LettaClient(letta_base_url) as client:
        yield client


async def test_health_is_letta_0_16_8(client: LettaClient) -> None:
    health = await client.health()
    assert health.version == "0.16.8"


async def test_agents_list_and_name_search(client: LettaClient, letta_agent_id: str) -> None:
    agent = await client.get_agent(letta_agent_id)
    listed = await client.list_agents()
    assert letta_agent_id in [a.id for a in listed]
    found = await client.list_agents(query=agent.name)
    assert letta_agent_id in [a.id for a in found]
    assert all(agent.name in a.name for a in found)
    assert await client.list_agents(query=f"no-such-agent-{uuid.uuid4().hex}") == []


async def test_history_pages_back_to_the_first_message_and_forward_again(
        client: LettaClient, fresh_agent_id: str) -> None:
    for number in range(4):
        await send(client, fresh_agent_id, f"hello number {number}", Transcript())
    everything = await all_history(client, fresh_agent_id)
    pages, before = [], None
    while True:  # backwards, a few rows at a time
        page = await client.list_messages(fresh_agent_id, before=before, limit=3)
        pages.append(page.messages)
        if not page.has_more:
            break
        before = page.before_cursor
    assert len(pages) > 3
    for messages in pages:  # every page is chronological
        dates = [m.date for m in messages if m.date is not None]
        assert dates == sorted(dates)
    joined = [m for messages in reversed(pages) for m in messages]
    assert [(m.id, m.message_type) for m in joined] == [
        (m.id, m.message_type) for m in everything]
    assert joined[0].message_type == "system_message"  # the first message there is

    paged = Transcript()  # forward again: newest page first, older ones prepended
    paged.load_history(pages[0])
    for messages in pages[1:]:
        paged.prepend_history(messages)
    whole = await history_transcript(client, fresh_agent_id)
    assert shapes(paged.items) == shapes(whole.items)
    assert [i.text for i in paged.items if isinstance(i, UserItem)] == [
        f"hello number {n}" for n in range(4)]


async def test_token_and_step_mode_give_the_same_transcript(
        client: LettaClient, fresh_agent_id: str) -> None:
    tokens, steps = Transcript(), Transcript()
    token_turn = await send(client, fresh_agent_id, "hello", tokens, stream_tokens=True)
    step_turn = await send(client, fresh_agent_id, "hello", steps, stream_tokens=False)
    assert len(token_turn.messages) > len(step_turn.messages)  # deltas vs whole messages
    assert shapes(tokens.items) == shapes(steps.items)
    assert [i.text for i in tokens.items if isinstance(i, AssistantItem)] == [HELLO_ANSWER]


async def test_a_long_markdown_reply_arrives_whole(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    turn = await send(client, fresh_agent_id, "long please", live)
    assert turn.stop_reason == "end_turn"
    (reply,) = [i for i in live.items if isinstance(i, AssistantItem)]
    assert reply.done and reply.text.count("```") >= 4 and "|" in reply.text
    stored = await history_transcript(client, fresh_agent_id)
    (stored_reply,) = [i for i in stored.items if isinstance(i, AssistantItem)]
    assert stored_reply.text == reply.text


async def test_a_failing_server_tool_is_an_error_on_its_card(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    await send(client, fresh_agent_id, "show me an error", live)
    (call,) = calls(live)
    assert call.name == "read_file" and call.status is ToolStatus.ERROR
    assert "missing" in (call.result or "") + "".join(call.stderr)
    assert live.items[-1].kind == "assistant"


async def test_a_message_while_an_approval_is_pending_is_the_typed_error(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    turn = await send(client, fresh_agent_id, "run ls", live)
    assert turn.stop_reason == "requires_approval"
    with pytest.raises(PendingApprovalError) as caught:
        turn = await send(client, fresh_agent_id, "hello", live)
        if turn.error is not None:  # the conflict can also come inside a 200 stream
            raise turn.error
    assert "approv" in caught.value.message.lower()
    assert (await client.get_pending_approval(fresh_agent_id)) is not None


async def test_cancel_during_a_slow_reply_keeps_what_arrived(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    live.add_user("slow please")
    stream = client.send_message(fresh_agent_id, "slow please")
    cancelled: dict[str, str] = {}
    async with stream:
        async for message in stream:
            live.feed(message)
            text = "".join(i.text for i in live.items if isinstance(i, AssistantItem))
            if len(text.split()) >= 3 and not cancelled:
                cancelled = await client.cancel(fresh_agent_id)
    assert stream.stop_reason == "cancelled" or stream.ended == "cancelled"
    assert stream.run_id in cancelled
    partial = "".join(i.text for i in live.items if isinstance(i, AssistantItem))
    assert partial and "and that is all." not in partial
    run = await client.get_run(stream.run_id)
    assert run.status == "cancelled"


async def test_a_background_run_resumes_from_its_last_seq_id(
        client: LettaClient, fresh_agent_id: str) -> None:
    first = Transcript()
    first.add_user("long please")
    stream = client.send_message(fresh_agent_id, "long please", background=True)
    seen: list[int] = []
    async with stream:
        async for message in stream:
            first.feed(message)
            if getattr(message, "seq_id", None) is not None:
                seen.append(message.seq_id)
            if len(seen) == 10:
                break  # the client goes away; the run goes on on the server
    run_id, last = stream.run_id, stream.last_seq_id
    assert run_id and last == seen[-1]

    rest = await read(client.resume_stream(run_id, last), first)
    seen += [m.seq_id for m in rest.messages if getattr(m, "seq_id", None) is not None]
    replay = Transcript()
    replay.add_user("long please")
    full = await read(client.resume_stream(run_id, 0), replay)
    full_seq = [m.seq_id for m in full.messages if getattr(m, "seq_id", None) is not None]
    assert seen == full_seq  # nothing twice, nothing missing
    assert rest.stop_reason == full.stop_reason == "end_turn"
    assert shapes(first.items) == shapes(replay.items)


@pytest.mark.parametrize("text", ["hello", "read notes.txt", "show me an error"])
async def test_the_live_turn_equals_the_turn_rebuilt_from_history(
        client: LettaClient, fresh_agent_id: str, text: str) -> None:
    live = Transcript()
    await send(client, fresh_agent_id, text, live)
    stored = await history_transcript(client, fresh_agent_id)
    assert shapes(last_turn(stored)) == shapes(last_turn(live))
    assert any(isinstance(m, ToolCallMessage) for m in await all_history(
        client, fresh_agent_id)) == (text != "hello")


async def test_an_interrupted_stream_is_marked_and_the_run_can_be_cancelled(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    live.add_user("slow please")
    stream = client.send_message(fresh_agent_id, "slow please")
    async with stream:
        async for message in stream:
            live.feed(message)
            if any(isinstance(i, AssistantItem) and i.text for i in live.items):
                break
    live.end_stream("interrupted", "interrupted by you")
    assert isinstance(live.items[-1], EventItem)
    await client.cancel(fresh_agent_id, run_ids=[stream.run_id])
    for _ in range(50):
        if (await client.get_run(stream.run_id)).status in ("cancelled", "completed"):
            break
        await asyncio.sleep(0.2)
    assert (await client.get_run(stream.run_id)).status == "cancelled"
