"""A footer read from history says its token count is being read, in its place, until the
turn's runs tell it (the line keeps its fields as the count comes); a run the server cannot
tell of leaves no such word behind."""

from __future__ import annotations

import asyncio

import pytest
from chat_helpers import open_chat, send
from test_turn_footers import START, footers, of_run, read, turn
from widget_app import shown_text

from openletta.api.client import LettaClient
from openletta.api.resources import RunUsage
from openletta.transcript import Transcript
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets.footer import TOKENS_READ, TurnFooter, footer_text

SIZE = (100, 30)


@pytest.fixture
def release(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Runs' usage is read once the event returned is set."""
    released = asyncio.Event()
    usage = LettaClient.get_run_usage

    async def held(client: LettaClient, run_id: str) -> RunUsage:
        await released.wait()
        return await usage(client, run_id)

    monkeypatch.setattr(LettaClient, "get_run_usage", held)
    return released


async def test_a_footer_says_its_tokens_are_being_read_until_they_are(
        demo_server, make_app, wait_until, release: asyncio.Event) -> None:
    # Before, it read "12:00 · <1s · 1 step", then grew "· 2.4k tokens" in the middle.
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        first = await open_chat(pilot, wait_until)
        await send(pilot, first, "hello", wait_until)
        app.open_conversation(first.session.agent, None)  # again: its turn read from history
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and app.screen is not first, what="the chat opened again")
        screen = await open_chat(pilot, wait_until)
        footer = screen.query(TurnFooter).last()
        assert footer.item.tokens is None and TOKENS_READ in shown_text(footer)
        release.set()
        await wait_until(pilot, lambda: footer.item.tokens is not None, what="tokens read")
        await wait_until(pilot, lambda: TOKENS_READ not in shown_text(footer),
                         what="the footer synced")
        assert f"{footer.item.tokens / 1000:.1f}k tokens" in shown_text(footer)


async def test_a_footer_whose_runs_are_unknown_stops_saying_its_tokens_are_read(
        long_history, make_app, wait_until, release: asyncio.Event) -> None:
    app = make_app(base_url=long_history.base_url, agent="demo-agent")  # (runs it never ran)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        footer = screen.query(TurnFooter).last()
        assert TOKENS_READ in shown_text(footer)
        release.set()
        await wait_until(pilot, lambda: not footer.item.unread_runs, what="runs given up")
        await wait_until(pilot, lambda: TOKENS_READ not in shown_text(footer),
                         what="the footer synced")
        assert footer.item.tokens is None


def test_a_footer_says_its_tokens_are_being_read_until_its_runs_tell_them() -> None:
    # Before, it read "12:00 · <1s · 1 step" and grew a field once the runs were read.
    transcript = Transcript(footers=True)
    transcript.load_history(of_run(turn("one", 0, 1), "run-1"))
    (footer,) = footers(transcript)
    assert footer_text(footer, today=START, reading=True) == "12:00 · 1s · … tokens · 1 step"
    assert footer_text(footer, today=START) == "12:00 · 1s · 1 step"  # (on exit: not read)

    transcript.add_run_usage(footer, {"run-1": read(300)})

    assert footer_text(footer, today=START, reading=True) == "12:00 · 1s · 300 tokens · 1 step"


def test_a_footer_whose_runs_the_server_cannot_tell_of_stops_saying_they_are_read() -> None:
    transcript = Transcript(footers=True)
    transcript.load_history(of_run(turn("one", 0, 1), "run-1"))
    (footer,) = footers(transcript)

    change = transcript.runs_unreadable(footer, ["run-1"])

    assert footer in change.changed and transcript.footers_without_tokens() == []
    assert footer_text(footer, today=START, reading=True) == "12:00 · 1s · 1 step"
    transcript.add_user("two")  # written again as the turn closes: still not waited for
    assert footer_text(footer, today=START, reading=True) == "12:00 · 1s · 1 step"
