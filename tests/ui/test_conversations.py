"""``/conversations``: a long list pages in from the server; ``d`` twice deletes one."""

from __future__ import annotations

from datetime import UTC, datetime

from chat_helpers import open_chat, send, side_conversation, start_new_conversation
from rich.console import Console
from textual.widgets import OptionList

from openletta.api.client import LettaClient
from openletta.api.resources import Conversation
from openletta.chat import session as session_module
from openletta.ui.formatting import short_id
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.conversations import (
    PAGE_SIZE,
    ConversationsScreen,
    conversation_row,
    newest_first,
)
from openletta.ui.status_bar import status_text

SIZE = (100, 30)


def status(screen: ConversationsScreen) -> str:
    return str(screen.query_one("#conversations-status").render())


def bar(screen: ChatScreen) -> str:
    return status_text(screen.status.info).plain


async def open_list(pilot, wait_until) -> ConversationsScreen:
    app = pilot.app
    await pilot.press(*"/conversations", "enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ConversationsScreen)
                     and app.screen.conversations, what="conversations listed")
    return app.screen


async def test_the_list_pages_in_as_its_end_is_reached(demo_server, make_app,
                                                       wait_until) -> None:
    async with LettaClient(demo_server.base_url) as client:
        agent = next(a for a in await client.list_agents() if a.name == "demo-agent")
        made = [await client.create_conversation(agent.id, f"topic {n}")
                for n in range(PAGE_SIZE + 2)]
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        screen = await open_list(pilot, wait_until)
        assert len(screen.conversations) == PAGE_SIZE
        assert status(screen) == f"{PAGE_SIZE} other conversations (more below)"
        await pilot.press("end")
        await wait_until(pilot, lambda: len(screen.conversations) == PAGE_SIZE + 2,
                         what="the next page")
        assert {c.id for c in screen.conversations} == {c.id for c in made}
        assert screen.query_one("#conversations-list").option_count == PAGE_SIZE + 3
        assert status(screen) == f"{PAGE_SIZE + 2} other conversations"


async def test_d_twice_deletes_a_conversation_but_not_the_open_one(demo_server, make_app,
                                                                   wait_until) -> None:
    async with LettaClient(demo_server.base_url) as client:
        agent = next(a for a in await client.list_agents() if a.name == "demo-agent")
        kept = await client.create_conversation(agent.id, "kept")
        doomed = await client.create_conversation(agent.id, "doomed")
    store = demo_server.server.store.conversations
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", conversation=kept.id)
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        screen = await open_list(pilot, wait_until)
        rows = {c.id: index + 1 for index, c in enumerate(screen.conversations)}
        options = screen.query_one("#conversations-list")
        assert options.highlighted == rows[kept.id]  # the list opens on the open conversation
        await pilot.press("home", "d")
        assert status(screen) == "The default thread cannot be deleted."
        options.highlighted = rows[kept.id]
        await pilot.press("d")
        assert status(screen).startswith("This is the open conversation")
        options.highlighted = rows[doomed.id]
        await pilot.press("d")
        assert status(screen).startswith("Delete “doomed” and its messages")
        await pilot.press("x")  # anything else keeps it
        assert status(screen) == "2 other conversations"
        # Keys typed faster than the list reports its highlight: d asks all the same.
        options.highlighted = rows[kept.id]
        options.highlighted = rows[doomed.id]
        screen.action_delete()
        await pilot.pause()
        assert status(screen).startswith("Delete “doomed” and its messages")
        await pilot.press("x")
        await pilot.press("d", "d")
        await wait_until(pilot, lambda: doomed.id not in store, what="the deletion")
        await wait_until(pilot, lambda: [c.id for c in screen.conversations] == [kept.id],
                         what="the list without it")
        assert options.option_count == 2 and kept.id in store
        assert status(screen) == "1 other conversation"


def test_a_new_empty_conversation_is_listed_by_when_it_was_made() -> None:
    made_now = Conversation.model_validate({"id": "conv-new", "created_at": "2026-11-27T10:00:00Z"})
    old = Conversation.model_validate({"id": "conv-old", "created_at": "2026-11-01T10:00:00Z",
                                       "last_message_at": "2026-11-26T10:00:00Z"})
    undated = Conversation.model_validate({"id": "conv-undated"})
    assert [c.id for c in newest_first([old, undated, made_now])] == [
        "conv-new", "conv-old", "conv-undated"]


async def test_a_conversation_without_a_name_is_shown_by_its_first_message_not_its_id(
        demo_server, make_app, wait_until) -> None:
    async with LettaClient(demo_server.base_url) as client:
        agent = next(a for a in await client.list_agents() if a.name == "demo-agent")
        untouched = await client.create_conversation(agent.id)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_new_conversation(pilot, await open_chat(pilot, wait_until),
                                              wait_until)
        conversation = screen.session.conversation_id
        assert conversation is not None
        assert "demo-agent / New conversation" in bar(screen)
        await send(pilot, screen, "hello throwaway", wait_until)
        assert "demo-agent / “hello throwaway”" in bar(screen)
        assert "conv-" not in bar(screen)
        listed = await open_list(pilot, wait_until)
        options = listed.query_one("#conversations-list", OptionList)
        listing = [options.get_option_at_index(index) for index in range(options.option_count)]
        rows = {option.id: str(option.prompt) for option in listing}
        assert rows[conversation].startswith("● “hello throwaway”  · ")
        assert rows[conversation].endswith(f"  · {short_id(conversation)}")
        assert rows[untouched.id].startswith("  New conversation  · made ")
        assert rows[untouched.id].endswith(f", no messages yet  · {short_id(untouched.id)}")
        assert not any(conversation in row or untouched.id in row for row in rows.values())
        options.highlighted = next(index for index, option in enumerate(listing)
                                   if option.id == untouched.id)
        await pilot.press("d")
        assert status(listed).startswith(
            f"Delete the conversation made {rows[untouched.id].split('made ')[1].split(',')[0]}"
            f" ({short_id(untouched.id)}) and its messages")


async def test_after_a_relaunch_a_conversation_without_a_name_reads_its_first_message(
        demo_server, make_app, wait_until) -> None:
    async with LettaClient(demo_server.base_url) as client:
        agent = next(a for a in await client.list_agents() if a.name == "demo-agent")
        untouched = await client.create_conversation(agent.id)
    first_run = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with first_run.run_test(size=SIZE) as pilot:
        screen, conversation = await side_conversation(pilot, wait_until)
        await send(pilot, screen, "hello throwaway", wait_until)
        await send(pilot, screen, "hello again", wait_until)
    relaunched = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with relaunched.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        listed = await open_list(pilot, wait_until)
        options = listed.query_one("#conversations-list", OptionList)

        def row(conversation_id: str | None) -> str:
            return str(options.get_option(conversation_id or "").prompt)

        await wait_until(pilot, lambda: row(conversation).startswith("  “hello throwaway”"),
                         what="the first message read")
        assert row(untouched.id).startswith("  New conversation  · made ")


def test_a_long_row_wraps_under_the_name_not_under_the_mark() -> None:
    conversation = Conversation.model_validate({
        "id": "conv-1a2b3c4d", "summary": "a name long enough to wrap " * 2,
        "last_message_at": "2026-11-27T10:00:00Z"})
    console = Console(width=40, record=True)
    console.print(conversation_row(conversation, "conv-1a2b3c4d",
                                   lambda: datetime(2026, 11, 27, 11, tzinfo=UTC)))
    first, second, *_ = console.export_text().splitlines()
    assert first.startswith("● a name long")
    assert second.startswith("  ") and not second.startswith("   ")


async def test_a_conversation_longer_than_a_page_is_labelled_by_its_first_message(
        demo_server, make_app, wait_until, monkeypatch) -> None:
    """Its first message is read from the server: the status bar and the exit printout's
    title show it, not "New conversation"."""
    first_run = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with first_run.run_test(size=SIZE) as pilot:
        screen, conversation = await side_conversation(pilot, wait_until)
        await send(pilot, screen, "hello throwaway", wait_until)
        await send(pilot, screen, "hello again", wait_until)
    monkeypatch.setattr(session_module, "PAGE_SIZE", 2)  # (the first message on no page)
    relaunched = make_app(base_url=demo_server.base_url, agent="demo-agent",
                          conversation=conversation)
    async with relaunched.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await wait_until(pilot, lambda: screen.session.has_more_history
                         and "“hello throwaway”" in bar(screen), what="the first message read")
        await send(pilot, screen, "hello once more", wait_until)
        (title, _, _), = relaunched.chats.said()
        assert title == f"demo-agent · “hello throwaway” · {short_id(conversation)}"
