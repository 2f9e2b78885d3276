"""History navigation against a real Letta 0.16.8: named conversations and their pages."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from e2e_turns import all_history, history_transcript, send, shapes

from openletta.api.client import LettaClient
from openletta.api.resources import Conversation
from openletta.chat import session as session_module
from openletta.chat.opening import read_conversation
from openletta.chat.session import ChatSession
from openletta.transcript import Transcript, UserItem
from openletta.ui.first_messages import FirstMessages


@pytest.fixture
async def client(letta_base_url: str) -> AsyncIterator[LettaClient]:
    async with LettaClient(letta_base_url) as client:
        yield client


def user_texts(transcript: Transcript) -> list[str]:
    return [item.text for item in transcript.items if isinstance(item, UserItem)]


async def test_a_new_conversation_is_listed_and_kept_apart_from_the_default_thread(
        client: LettaClient, fresh_agent_id: str) -> None:
    await send(client, fresh_agent_id, "hello from the default thread", Transcript())
    conversation = await client.create_conversation(fresh_agent_id)
    await send(client, fresh_agent_id, "hello in a conversation", Transcript(),
               conversation_id=conversation.id)

    listed = await client.list_conversations(fresh_agent_id)
    assert conversation.id in [c.id for c in listed]
    inside = await history_transcript(client, fresh_agent_id, conversation.id)
    default = await history_transcript(client, fresh_agent_id)
    assert user_texts(inside) == ["hello in a conversation"]
    assert user_texts(default) == ["hello from the default thread"]


async def test_a_conversation_pages_back_to_its_first_message(
        client: LettaClient, fresh_agent_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_module, "PAGE_SIZE", 4)
    conversation = await client.create_conversation(fresh_agent_id)
    for number in range(3):
        await send(client, fresh_agent_id, f"hello {number}", Transcript(),
                   conversation_id=conversation.id)
    agent = await client.get_agent(fresh_agent_id)
    session = ChatSession(client, agent, conversation.id)

    await session.load_latest()
    pages = 1
    while session.has_more_history:
        await session.load_earlier()
        pages += 1

    whole = await all_history(client, fresh_agent_id, conversation.id)
    rebuilt = Transcript(footers=True)
    rebuilt.load_history(whole)
    assert pages >= len(whole) // 4
    assert user_texts(session.transcript) == ["hello 0", "hello 1", "hello 2"]
    assert shapes(session.transcript.items) == shapes(rebuilt.items)
    assert [m.id for m in await session.all_messages()] == [m.id for m in whole]


async def test_a_conversation_is_named_at_its_start_renamed_and_checked_against_its_agent(
        client: LettaClient, fresh_agent_id: str, letta_agent_id: str) -> None:
    conversation = await client.create_conversation(fresh_agent_id, "first name")
    assert conversation.summary == "first name"
    renamed = await client.rename_conversation(conversation.id, "second name")
    assert renamed.id == conversation.id and renamed.summary == "second name"
    found = await read_conversation(client, fresh_agent_id, conversation.id)
    assert isinstance(found, Conversation) and found.summary == "second name"
    assert await read_conversation(client, letta_agent_id, conversation.id) == (
        f"Conversation {conversation.id} is another agent's ({fresh_agent_id}).")
    missing = "conv-00000000-0000-4000-8000-000000000000"
    assert await read_conversation(client, fresh_agent_id, missing) == (
        f"There is no conversation {missing} on this server.")
    page = await client.list_messages(fresh_agent_id, conversation_id=missing)
    assert page.messages == []  # why the client asks: the server lists nothing, no error


async def test_a_conversation_without_a_name_is_labelled_by_its_first_message_in_a_new_run(
        client: LettaClient, fresh_agent_id: str) -> None:
    conversation = await client.create_conversation(fresh_agent_id)
    untouched = await client.create_conversation(fresh_agent_id)
    for text in ("the first \x1b words", "then more"):
        await send(client, fresh_agent_id, text, Transcript(), conversation_id=conversation.id)
    known = FirstMessages()  # a new run: nothing known
    assert await known.read(client, conversation.id) == "the first \x1b words"
    assert await known.read(client, untouched.id) is None
    assert known.asked(untouched.id)
