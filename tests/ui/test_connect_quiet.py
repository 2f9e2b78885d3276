"""The connect screen draws nothing while connecting is quick: a chat whose answers are there
at once is the first screen drawn; connecting that takes a while says so, and a failure shows
at once."""

from __future__ import annotations

import asyncio

import pytest
from chat_helpers import open_chat

from openletta.ui.screens import connect
from openletta.ui.screens.connect import ConnectScreen

SIZE = (100, 30)


def shown(app) -> str:
    """What the terminal shows, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_connection_that_answers_within_the_quiet_time_draws_nothing(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect, "QUIET_SECONDS", 60.0)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        connecting = app.screen
        assert isinstance(connecting, ConnectScreen)
        drawn: list[bool] = []
        await wait_until(pilot, lambda: drawn.append(bool(connecting.children))
                         or app.screen is not connecting, what="the next screen")
        screen = await open_chat(pilot, wait_until)
        assert not any(drawn) and app.focused is screen.prompt


async def test_connecting_that_takes_a_while_says_so_and_keys_wait_for_the_prompt(
        demo_server, make_app, wait_until, held_health: asyncio.Event,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect, "QUIET_SECONDS", 0.05)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hi")
        await wait_until(pilot, lambda: f"Connecting to {demo_server.base_url}" in shown(app),
                         what="the connect message")
        assert "Retry" not in shown(app)  # (the keys shown once an attempt has failed)
        held_health.set()
        screen = await open_chat(pilot, wait_until)
        assert screen.prompt.text == "hi"


async def test_a_failure_shows_at_once(make_app, wait_until,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect, "QUIET_SECONDS", 60.0)
    app = make_app(base_url="http://127.0.0.1:9")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen)
                         and "Could not connect" in shown(app) and "Retry" in shown(app),
                         what="the failure and its keys shown")
