"""Keys typed while the app connects wait for the screen that follows; keys typed on a
focused message go to the prompt; a message sent while scrolled up is followed."""

from __future__ import annotations

import asyncio
import os
import pty
import termios

import pytest
from chat_helpers import demo_chat, laid_out, open_chat, send
from textual import events
from textual.widgets import Collapsible, Input

from openletta.cli import keys_not_echoed
from openletta.transcript import UserItem
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.connect import ConnectScreen
from openletta.ui.widgets.base import ItemWidget
from openletta.ui.widgets.error import ErrorBlock
from openletta.ui.widgets.footer import TurnFooter

SIZE = (100, 30)


async def test_what_is_typed_while_connecting_lands_in_the_prompt(
        demo_server, make_app, wait_until, held_health: asyncio.Event) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), what="connecting")
        await pilot.press(*"quick", "x", "backspace", "space")
        app.screen.post_message(events.Paste("question?"))
        await pilot.pause()
        assert app.is_running  # "q" is not Quit while connecting
        held_health.set()
        screen = await open_chat(pilot, wait_until)
        assert screen.prompt.text == "quick question?"
        assert screen.session.transcript.first_sent is None  # nothing was sent


async def test_what_is_typed_while_connecting_searches_the_chooser(
        demo_server, make_app, wait_until, held_health: asyncio.Event) -> None:
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), what="connecting")
        await pilot.press(*"demo")
        held_health.set()
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                         what="the chooser")
        assert app.screen.query_one(Input).value == "demo"


async def test_typing_goes_on_waiting_once_connecting_failed_and_ctrl_q_quits(
        make_app, wait_until) -> None:
    app = make_app(base_url="http://127.0.0.1:9")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen)
                         and app.screen.failed, what="failure shown")
        await pilot.press(*"quite right")  # a message, not keys that quit or retry
        assert app.screen.typed_ahead == "quite right" and not app._exit
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: app._exit, what="the app to quit")


async def test_what_is_typed_while_connecting_is_kept_as_a_draft_when_the_app_quits(
        demo_server, make_app, wait_until, held_health: asyncio.Event) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), what="connecting")
        await pilot.press(*"typed during startup", "ctrl+q")
        await wait_until(pilot, lambda: app._exit, what="the app to quit")
    assert app.typed_left == "typed during startup" and app.unkept_drafts is None
    held_health.set()
    again = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.prompt.text == "typed during startup"  # once: taken from the drafts
        again.exit()
    assert again.typed_left == ""


def test_keys_typed_at_start_are_not_echoed_and_the_terminal_is_restored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "r", closefd=False) as terminal:
            monkeypatch.setattr("sys.stdin", terminal)
            before = termios.tcgetattr(follower)
            assert before[3] & termios.ECHO
            with keys_not_echoed():
                assert not termios.tcgetattr(follower)[3] & termios.ECHO
                assert termios.tcgetattr(follower)[3] & termios.ICANON  # still line-edited
            assert termios.tcgetattr(follower) == before
    finally:
        os.close(leader)
        os.close(follower)


async def test_typing_on_a_focused_message_starts_a_message_and_esc_goes_back(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await send(pilot, screen, "hello", wait_until)
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await tab_to_a_message(pilot)
        await pilot.press("c")  # the message's own key, alone: it copies the message
        await wait_until(pilot, lambda: copied, what="copied")
        assert app.focused is not screen.prompt
        await pilot.press(*"abc")
        assert app.focused is screen.prompt and screen.prompt.text == "abc"
        await tab_to_a_message(pilot)
        await pilot.press("escape")
        assert app.focused is screen.prompt and screen.prompt.text == "abc"
        screen.prompt.clear()
        await tab_to_a_message(pilot)
        await pilot.press(*"cool")  # the key starts a word: all of it is typing
        await wait_until(pilot, lambda: screen.prompt.text == "cool", what="the word typed")
        assert app.focused is screen.prompt and len(copied) == 1


async def test_a_footer_has_nothing_to_copy_so_c_starts_a_message(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await send(pilot, screen, "hello", wait_until)
        footer = screen.query(TurnFooter).last()
        footer.focus()
        await pilot.pause()
        assert "c" not in screen.active_bindings and "enter" in screen.active_bindings
        await pilot.press(*"cat")
        await wait_until(pilot, lambda: screen.prompt.text == "cat", what="typed")
        assert app.focused is screen.prompt


async def test_tab_from_the_prompt_goes_to_the_newest_item_in_view(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        for text in ("hello", "help", "hello again", "help", "llmerror"):  # over a screenful
            await send(pilot, screen, text, wait_until)
        scroll = screen.view.scroll
        assert scroll.scroll_y > 0  # items are mounted above the view
        before = scroll.scroll_y
        await pilot.press("tab")
        focused = app.focused
        assert isinstance(focused, ItemWidget)  # not the chat column, nor the oldest item
        assert focused.item is screen.session.transcript.items[-1]  # the error's footer
        assert scroll.scroll_y == before  # the view did not jump to the top
        await pilot.press("shift+tab", "enter")  # the error itself: its details open
        error = next(node for node in app.focused.ancestors_with_self
                     if isinstance(node, ErrorBlock))
        assert not error.query_one(Collapsible).collapsed


async def test_shift_tab_on_an_item_goes_to_the_item_above_and_on_to_earlier_ones(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        for text in ("hello", "help", "hello again", "help"):  # more than a screenful
            await send(pilot, screen, text, wait_until)
        await pilot.press("tab")
        first_in_view = app.focused
        assert isinstance(first_in_view, ItemWidget)
        await pilot.press("shift+tab")  # above the view: focused and scrolled into it
        above = app.focused
        chain = screen.focus_chain
        assert above in chain and chain.index(above) < chain.index(first_in_view)
        scroll = screen.view.scroll
        await wait_until(pilot, lambda: scroll.region.overlaps(above.region),
                         what="what is above in view")
        await pilot.press("tab")
        assert app.focused is first_in_view
        mode = screen.controller.state.permission_mode
        for _ in range(40):  # up to the oldest item: the mode never changes on the way
            await pilot.press("shift+tab")
        assert screen.controller.state.permission_mode == mode
        shown = [widget for widget in screen.focus_chain if scroll in widget.ancestors]
        assert app.focused is shown[0] and isinstance(shown[0], ItemWidget)
        assert screen.session.transcript.items.index(shown[0].item) <= 1  # the oldest shown


async def tab_to_a_message(pilot) -> None:
    """Tab into the chat (its newest item: the last turn's footer), then up to the reply."""
    await pilot.press("tab")
    assert isinstance(pilot.app.focused, TurnFooter)
    await pilot.press("shift+tab")
    assert isinstance(pilot.app.focused, ItemWidget), pilot.app.focused


async def test_sending_while_scrolled_up_follows_the_message(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await send(pilot, screen, "help", wait_until)
        await pilot.press("pageup")
        await wait_until(pilot, lambda: not screen.view.following, what="scrolled up")
        await send(pilot, screen, "hello", wait_until)
        assert screen.view.following


async def test_esc_on_an_item_of_an_idle_chat_says_it_goes_back_to_the_prompt(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        assert screen.active_bindings["escape"].binding.action == "interrupt"  # (dimmed)
        await send(pilot, screen, "hello", wait_until)
        await tab_to_a_message(pilot)
        escape = screen.active_bindings["escape"]
        assert (escape.binding.description, escape.enabled) == ("Back to the prompt", True)
        await pilot.press("escape")
        assert app.focused is screen.prompt


async def test_ctrl_t_says_whether_internal_messages_are_shown_and_how_many_are_loaded(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        for shown, said in ((True, "Shown: the system prompt and system notes, 1 message so "
                                   "far in this chat. Ctrl+T hides them."),
                            (False, "Hidden: the system prompt and system notes, 1 message so "
                                    "far in this chat. Ctrl+T shows them.")):
            await pilot.press("ctrl+t")
            await wait_until(pilot, lambda shown=shown: screen.view.show_internal is shown,
                             what=said)
            await wait_until(pilot, lambda said=said: [
                note.message for note in app._notifications
                if note.title == "Internal messages"] == [said], what="one toast, saying so")


async def test_a_message_sent_stays_in_view_when_another_is_queued_before_its_reply(
        demo_server, make_app, wait_until) -> None:
    # A chat longer than the view; no token yet when a second message is queued: the row
    # that says so takes a line from the view, which still ends with the message just sent.
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(80, 20)) as (
            _app, pilot, screen):
        await send(pilot, screen, "long", wait_until)
        demo_server.server.engine.pacer.speed = 200  # the first token comes in 30 s
        transcript, view = screen.session.transcript, screen.view
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: isinstance(transcript.items[-1], UserItem)
                         and view.widget_for(transcript.items[-1]) is not None, what="sent")
        await laid_out(pilot, view)
        await pilot.press(*"more", "enter")
        await wait_until(pilot, lambda: view.query_one("#pending").size.height > 0,
                         what="the queued row shown")
        await laid_out(pilot, view)
        sent = view.widget_for(transcript.items[-1])
        assert view.scroll.scroll_y == view.scroll.max_scroll_y
        assert sent is not None and sent.region.bottom <= view.scroll.region.bottom
