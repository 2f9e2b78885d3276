"""Ctrl+C after Ctrl+F: the match the find selected is not the user's selection, so Ctrl+C
does what it does anywhere in the chat (stops the running turn, else asks to quit), the find
bar open or closed; text the user selected is still copied."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from chat_helpers import demo_chat, send
from test_find_in_place import marked, selected
from textual.pilot import Pilot

from openletta.demo import DemoServer
from openletta.transcript import AssistantItem
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets import ItemWidget

SIZE = (100, 30)
QUIT_ASKED = "Press Ctrl+C again, or Ctrl+Q, to quit."


@pytest.fixture
async def slow_server() -> AsyncIterator[str]:
    """The demo server at its own pace: "slow" streams for seconds."""
    server = DemoServer(speed=1.0)
    base_url = await server.start()
    try:
        yield base_url
    finally:
        await server.stop()


def record_copies(app: OpenLettaApp) -> list[str]:
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    return copied


def quit_asked(app: OpenLettaApp) -> bool:
    return any(str(note.message) == QUIT_ASKED for note in app._notifications)


async def find(pilot: Pilot[None], screen: ChatScreen, text: str, wait_until) -> None:
    """Ctrl+F ``text``, Enter: wait until its match is selected."""
    await pilot.press("ctrl+f", *text, "enter")
    await wait_until(pilot, lambda: selected(screen) is not None, what="the match selected")


async def test_ctrl_c_on_a_found_match_asks_to_quit_and_copies_what_the_user_selects(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (
            app, pilot, screen):
        copied = record_copies(app)
        await send(pilot, screen, "hello", wait_until)
        await find(pilot, screen, "demo agent", wait_until)
        await pilot.press("ctrl+c")  # the bar open
        await wait_until(pilot, lambda: quit_asked(app), what="asked to quit")
        assert copied == [] and app.is_running
        reply = screen.view.widget_for(next(item for item in screen.session.transcript.items
                                            if isinstance(item, AssistantItem)))
        assert isinstance(reply, ItemWidget)
        await pilot.mouse_down(reply, offset=(2, 0))  # the user selects with the mouse
        await pilot.hover(reply, offset=(12, 0))
        await pilot.mouse_up(reply, offset=(12, 0))
        await wait_until(pilot, lambda: bool(screen.get_selected_text()),
                         what="the user's selection")
        await pilot.press("ctrl+c")
        assert copied == [screen.get_selected_text()]


@pytest.mark.parametrize("field", ["match selected", "query selected"])
async def test_ctrl_c_in_the_find_bar_stops_the_running_turn(
        slow_server, make_app, wait_until, field: str) -> None:
    async with demo_chat(make_app, slow_server, wait_until, SIZE) as (app, pilot, screen):
        copied = record_copies(app)
        await pilot.press(*"slow", "enter")
        await wait_until(pilot, lambda: "word1" in "".join(
            item.text for item in screen.session.transcript.items
            if isinstance(item, AssistantItem)), what="the reply begun", timeout=10)
        await find(pilot, screen, "word1", wait_until)
        if field == "query selected":  # found again: its field opens with the query selected
            await pilot.press("escape", "ctrl+f")
        assert screen.busy
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not screen.busy, what="the turn stopped")
        assert screen.controller.state.stop_reason == "interrupted" and copied == []


async def test_a_step_that_ends_after_the_bar_closed_selects_nothing(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (
            app, pilot, screen):
        await send(pilot, screen, "hello", wait_until)
        show_item, release = screen.view.show_item, asyncio.Event()

        async def slow_show_item(item: object) -> object:
            await release.wait()  # (a page of history loading, say)
            return await show_item(item)  # type: ignore[arg-type]

        monkeypatch.setattr(screen.view, "show_item", slow_show_item)
        await pilot.press("ctrl+f", *"demo agent", "enter", "escape")
        release.set()
        await wait_until(pilot, lambda: all(worker.is_finished for worker in app.workers
                                            if worker.group == "search"), what="the step")
        assert selected(screen) is None and marked(screen) == []
