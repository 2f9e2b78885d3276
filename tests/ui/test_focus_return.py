"""The terminal's focus coming back: an idle chat shows what another client said meanwhile,
and a chat that opened while the focus was elsewhere gets its prompt focused."""

from __future__ import annotations

import pytest
from chat_helpers import open_chat
from test_app import SIZE
from textual import events

from openletta.api.client import LettaClient
from openletta.chat import turn_tasks
from openletta.transcript import UserItem
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.connect import ConnectScreen


async def test_the_focus_coming_back_shows_the_turn_another_client_made_meanwhile(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        app.post_message(events.AppBlur())  # the user looks elsewhere
        await wait_until(pilot, lambda: not app.app_focus, what="the terminal left")
        other = LettaClient(demo_server.base_url)
        async with other, other.send_message(screen.session.agent.id, "hello") as stream:
            _ = [message async for message in stream]
        await pilot.pause()
        assert not any(isinstance(item, UserItem) for item in screen.session.transcript.items)
        app.post_message(events.AppFocus())  # the terminal says it is in front again
        await wait_until(pilot, lambda: [item.text for item in screen.session.transcript.items
                                         if isinstance(item, UserItem)] == ["hello"],
                         what="the other client's turn shown")
        assert app.focused is screen.prompt and not screen.busy


async def test_a_chat_opened_while_the_terminal_was_elsewhere_takes_keys_once_it_is_back(
        demo_server, make_app, wait_until) -> None:
    """Textual focuses a screen's prompt only while the terminal has the focus."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ConnectScreen)
        app.post_message(events.AppBlur())  # the user looks elsewhere while it connects
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and not app.screen.workers, what="the chat open")
        assert app.focused is None
        app.post_message(events.AppFocus())
        screen = app.screen
        await wait_until(pilot, lambda: app.focused is screen.prompt, what="the prompt focused")
        await pilot.press(*"hi")
        assert screen.prompt.text == "hi"
