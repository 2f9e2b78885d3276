"""The protocol core against a real Letta 0.16.8: openletta's client and accumulator, end to end.

Each scenario is one test (or one parametrized family); agents that hold state are fresh per
test. Expected texts come from the scripted fake model (``scripts/harness/fake_llm.py``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import fake_llm
import pytest
from e2e_turns import all_history, calls, history_transcript, last_turn, read, send, shapes

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError, PendingApprovalError
from openletta.api.messages import Message
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    ToolStatus,
    Transcript,
    UserItem,
)

HELLO_ANSWER = "Hello! I am a scripted fake model. How can I help?"
NOTES_TEXT = "openletta end-to-end scratch notes\nhello from the harness\n"
TERMINAL_RUN_STATES = {"completed", "cancelled", "failed"}


@pytest.fixture
async def client(letta_base_url: str) -> AsyncIterator[LettaClient]:
    async with LettaClient(letta_base_url) as client:
        yield client


def seq_ids(messages: list[Message]) -> list[int]:
    return [seq for message in messages if (seq := getattr(message, "seq_id", None)) is not None]


def assistant_text(transcript: Transcript) -> str:
    return "".join(item.text for item in transcript.items if isinstance(item, AssistantItem))


def user_texts(transcript: Transcript) -> list[str]:
    return [item.text for item in transcript.items if isinstance(item, UserItem)]


async def pages_back(client: LettaClient, agent_id: str, limit: int) -> list[list[Message]]:
    """Every history page from the newest back to the first, ``limit`` rows at a time."""
    pages, before = [], None
    while True:
        page = await client.list_messages(agent_id, before=before, limit=limit)
        pages.append(page.messages)
        if not page.has_more:
            return pages
        before = page.before_cursor


async def settled_run_status(client: LettaClient, run_id: str) -> str:
    """The run's status once it is no longer running (a few seconds at most)."""
    for _ in range(50):
        status = (await client.get_run(run_id)).status
        if status in TERMINAL_RUN_STATES:
            return status
        await asyncio.sleep(0.2)
    return status


# --- server and agents ---------------------------------------------------------------------


async def test_health_is_letta_0_16_8(client: LettaClient) -> None:
    health = await client.health()
    assert health.version == "0.16.8"
    assert client.server_version == (0, 16, 8)


async def test_agents_list_and_name_search(client: LettaClient, letta_agent_id: str) -> None:
    agent = await client.get_agent(letta_agent_id)
    listed = await client.list_agents(limit=1000)
    assert letta_agent_id in [a.id for a in listed]
    found = await client.list_agents(query=agent.name)
    assert letta_agent_id in [a.id for a in found]
    assert all(agent.name in a.name for a in found)
    assert await client.list_agents(query=f"no-such-agent-{uuid.uuid4().hex}") == []


# --- history -------------------------------------------------------------------------------


async def test_history_pages_back_to_the_first_message_and_forward_again(
        client: LettaClient, fresh_agent_id: str) -> None:
    sent = ["hello number 0", "hello number 1", "hello number 2", "read notes.txt"]
    for text in sent:
        await send(client, fresh_agent_id, text, Transcript())
    everything = await all_history(client, fresh_agent_id)
    identities = [(m.id, m.message_type) for m in everything]
    assert len(set(identities)) == len(identities)
    assert everything[0].message_type == "system_message"  # the first message there is

    for limit in (1, 3, 5):  # 1: a row per page, and an empty last page
        pages = await pages_back(client, fresh_agent_id, limit)
        assert len(pages) > 2
        for messages in pages:
            dates = [m.date for m in messages if m.date is not None]
            assert dates == sorted(dates)
        joined = [m for messages in reversed(pages) for m in messages]
        assert [(m.id, m.message_type) for m in joined] == identities  # no gap, nothing twice

    whole = await history_transcript(client, fresh_agent_id)
    backwards = Transcript()  # as the app scrolls up: newest page, then older ones on top
    backwards.load_history(pages[0])
    for messages in pages[1:]:
        backwards.prepend_history(messages)
    forwards = Transcript()  # and forward again: the pages oldest first, appended
    for messages in reversed(pages):
        forwards.load_history(messages)
    assert shapes(backwards.items) == shapes(whole.items) == shapes(forwards.items)
    assert user_texts(whole) == sent


# --- live turns ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["hello", "read notes.txt"])
async def test_token_and_step_mode_give_the_same_transcript(
        client: LettaClient, fresh_agent_id: str, text: str) -> None:
    tokens, steps = Transcript(), Transcript()
    token_turn = await send(client, fresh_agent_id, text, tokens, stream_tokens=True)
    step_turn = await send(client, fresh_agent_id, text, steps, stream_tokens=False)
    assert token_turn.stop_reason == step_turn.stop_reason == "end_turn"
    assert len(token_turn.messages) > len(step_turn.messages)  # deltas vs whole messages
    assert shapes(tokens.items) == shapes(steps.items)
    assert [item.kind for item in tokens.items][-1] == "assistant"


async def test_a_long_markdown_reply_arrives_whole(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    turn = await send(client, fresh_agent_id, "long please", live)
    assert turn.stop_reason == "end_turn"
    deltas = [m for m in turn.messages if m.message_type == "assistant_message"]
    assert len(deltas) > 50
    (reply,) = [i for i in live.items if isinstance(i, AssistantItem)]
    assert reply.done and reply.text == fake_llm.LONG_MARKDOWN
    stored = await history_transcript(client, fresh_agent_id)
    assert assistant_text(stored) == fake_llm.LONG_MARKDOWN


async def test_a_failing_server_tool_is_an_error_on_its_card(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    turn = await send(client, fresh_agent_id, "show me an error", live)
    (call,) = calls(live)
    assert call.name == "read_file" and call.arguments == {"path": fake_llm.MISSING_FILE}
    assert call.status is ToolStatus.ERROR
    assert "FileNotFoundError" in (call.result or "")
    assert any("Traceback" in line for line in call.stderr)
    assert turn.stop_reason == "end_turn"  # the agent goes on after a failed tool
    assert "(status: Failed)" in assistant_text(live)


async def test_a_message_while_an_approval_is_pending_is_the_typed_error(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    turn = await send(client, fresh_agent_id, "run ls", live)
    assert turn.stop_reason == "requires_approval"
    (waiting,) = live.pending_approvals
    try:  # the server says so inside a 200 stream; a 409 before it would raise here
        error = (await send(client, fresh_agent_id, "hello", live)).error
    except LettaError as raised:
        error = raised
    assert isinstance(error, PendingApprovalError)
    assert "waiting for approval" in (error.server_message or "")
    assert live.pending_approvals == [waiting]  # the request still waits for an answer
    held = await client.get_pending_approval(fresh_agent_id)
    assert held is not None and [c.tool_call_id for c in held.tool_calls] == [
        waiting.tool_call_id]
    assert "hello" not in user_texts(await history_transcript(client, fresh_agent_id))


# --- cancel, interrupt, resume -------------------------------------------------------------


async def test_cancel_during_a_slow_reply_keeps_what_arrived(
        client: LettaClient, fresh_agent_id: str) -> None:
    live = Transcript()
    live.add_user("slow please")
    stream = client.send_message(fresh_agent_id, "slow please")
    cancelled: dict[str, str] = {}
    async with stream:
        async for message in stream:
            live.feed(message)
            if len(assistant_text(live).split()) >= 3 and not cancelled:
                cancelled = await client.cancel(fresh_agent_id)
    assert stream.stop_reason == live.stop_reason == "cancelled"
    assert cancelled == {stream.run_id: "cancelled"}
    partial = assistant_text(live)
    assert partial and fake_llm.SLOW_TEXT.startswith(partial) and partial != fake_llm.SLOW_TEXT
    assert not any(isinstance(item, ErrorItem) for item in live.items)
    assert (await client.get_run(stream.run_id)).status == "cancelled"
    # The server drops a cancelled turn from history: what arrived lives only in the client.
    assert "slow please" not in user_texts(await history_transcript(client, fresh_agent_id))


@pytest.mark.parametrize("named", [
    pytest.param(False, id="default-thread"),  # 0.16.8 keeps this lock for 300 s: sent around
    pytest.param(True, id="named-conversation"),
])
async def test_an_interrupted_turn_is_marked_and_the_next_message_goes_through(
        client: LettaClient, fresh_agent_id: str, named: bool) -> None:
    conversation_id = (await client.create_conversation(fresh_agent_id)).id if named else None
    live = Transcript()
    live.add_user("slow please")
    stream = client.send_message(fresh_agent_id, "slow please", conversation_id=conversation_id)
    async with stream:  # as the app interrupts: close the stream, then cancel the run
        async for message in stream:
            live.feed(message)
            if assistant_text(live):
                break
    live.end_stream("interrupted", "interrupted by you")
    assert isinstance(live.items[-1], EventItem) and live.stop_reason == "cancelled"
    await client.cancel(fresh_agent_id, conversation_id=conversation_id,
                        run_ids=[stream.run_id])
    assert await settled_run_status(client, stream.run_id) == "cancelled"

    turn = await send(client, fresh_agent_id, "hello", live, conversation_id=conversation_id)
    assert turn.stop_reason == "end_turn"
    assert assistant_text(live).endswith(HELLO_ANSWER)


@pytest.mark.parametrize(("text", "running"), [
    pytest.param("long please", False, id="after-the-run-ended"),
    pytest.param("slow please", True, id="while-the-run-goes-on"),
])
async def test_a_background_run_resumes_from_its_last_seq_id(
        client: LettaClient, fresh_agent_id: str, text: str, running: bool) -> None:
    first = Transcript()
    first.add_user(text)
    stream = client.send_message(fresh_agent_id, text, background=True)
    seen: list[int] = []
    async with stream:
        async for message in stream:
            first.feed(message)
            seen += seq_ids([message])
            if len(seen) == 6:
                break  # the client goes away; the run goes on on the server
    run_id, last = stream.run_id, stream.last_seq_id
    assert run_id and last == seen[-1]
    if running:
        assert (await client.get_run(run_id)).status == "running"

    rest = await read(client.resume_stream(run_id, last), first)
    assert seq_ids(rest.messages)[0] == last + 1
    seen += seq_ids(rest.messages)
    replay = Transcript()
    replay.add_user(text)
    full = await read(client.resume_stream(run_id, 0), replay)
    assert seen == seq_ids(full.messages) == list(range(1, len(seen) + 1))  # 1 is the ping
    assert rest.stop_reason == full.stop_reason == "end_turn"
    assert shapes(first.items) == shapes(replay.items)
    stored = await history_transcript(client, fresh_agent_id)
    assert shapes(last_turn(first)) == shapes(last_turn(stored))


# --- live versus history -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "kinds"), [
    ("hello", ["user", "reasoning", "assistant"]),
    ("read notes.txt", ["user", "reasoning", "tool_call", "reasoning", "assistant"]),
    ("show me an error", ["user", "reasoning", "tool_call", "reasoning", "assistant"]),
])
async def test_the_live_turn_equals_the_turn_rebuilt_from_history(
        client: LettaClient, fresh_agent_id: str, text: str, kinds: list[str]) -> None:
    live = Transcript()
    await send(client, fresh_agent_id, text, live)
    stored = await history_transcript(client, fresh_agent_id)
    assert [item.kind for item in last_turn(live)] == kinds
    assert shapes(last_turn(stored)) == shapes(last_turn(live))


async def test_a_parallel_call_the_server_never_ran_is_not_run_live_and_absent_later(
        client: LettaClient, fresh_agent_id: str) -> None:
    """The agent runs one call per step: the second streamed call is neither run nor stored."""
    live = Transcript()
    await send(client, fresh_agent_id, "parallel please", live)
    ran, dropped = calls(live)
    assert ran.arguments == {"path": fake_llm.DEFAULT_FILE} and ran.result == NOTES_TEXT
    assert ran.status is ToolStatus.SUCCESS
    assert dropped.arguments == {"path": fake_llm.SECOND_FILE}
    assert dropped.status is ToolStatus.NOT_RUN and dropped.result is None
    stored = await history_transcript(client, fresh_agent_id)
    assert shapes(last_turn(stored)) == shapes(
        [item for item in last_turn(live) if item is not dropped])
