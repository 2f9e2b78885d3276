"""The terminal's focus coming back to an idle chat: it shows what another client said."""

from __future__ import annotations

import pytest
from chat_helpers import open_chat
from test_app import SIZE
from textual import events

from openletta.api.client import LettaClient
from openletta.chat import turn_tasks
from openletta.transcript import UserItem


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
