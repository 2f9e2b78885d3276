"""The dialog Esc opens on an approval prompt: a letter alone picks its choice; a message
typed over it (a burst of keys, a paste) denies nothing and lands in the prompt, in order.
A request left pending says how to come back to it, and Esc does."""

from __future__ import annotations

import pytest
from chat_helpers import demo_chat
from test_approvals import ask, asking, calls, esc_label, prompt_focused
from textual import events
from textual.widgets import OptionList

from openletta.chat.turn_state import Phase
from openletta.transcript import ToolStatus
from openletta.ui import stray_keys
from openletta.ui.screens.leave_approval import LeaveApprovalScreen
from openletta.ui.widgets.approval import ApprovalPrompt


@pytest.fixture(autouse=True)
def no_typing_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Esc leaves an approval prompt at once (its guard has its own tests)."""
    monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)


@pytest.fixture
def slow_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A letter waits long for the key that makes it typing: each key pressed after it is
    one, however slow the machine."""
    monkeypatch.setattr(stray_keys, "BURST_SECONDS", 60.0)


async def leave_dialog(pilot, screen, wait_until) -> LeaveApprovalScreen:
    """Ask for approval, press Esc on the prompt and wait for the dialog to take keys."""
    await ask(pilot, screen, "approve", wait_until)
    await pilot.press("escape")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, LeaveApprovalScreen)
                     and isinstance(app.focused, OptionList), what="leave dialog")
    assert isinstance(app.screen, LeaveApprovalScreen)
    return app.screen


async def still_asked(pilot, screen, wait_until, typed: str) -> None:
    """The dialog closed back to the request, undecided, and ``typed`` is in the prompt."""
    await wait_until(pilot, lambda: screen.prompt.text == typed
                     and pilot.app.screen is screen, what=f"{typed!r} in the prompt")
    await pilot.pause()
    assert pilot.app.focused is screen.prompt
    assert screen.controller.state.phase is Phase.AWAITING_APPROVAL
    assert asking(screen) is not None and screen.controller.state.asking is not None
    (call,) = calls(screen)
    assert call.status is ToolStatus.AWAITING_APPROVAL and call.approved is None


@pytest.mark.parametrize("typed", ["hello world", "do it", "d"])
async def test_a_message_typed_on_the_dialog_denies_nothing_and_lands_in_the_prompt(
        demo_server, make_app, wait_until, slow_clock, typed: str):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await leave_dialog(pilot, screen, wait_until)
        await pilot.press(*typed, *("backspace", typed[-1]))  # a typo fixed, even at the start
        await still_asked(pilot, screen, wait_until, typed)


async def test_esc_right_after_a_letter_goes_back_to_the_request_with_the_letter(
        demo_server, make_app, wait_until, slow_clock):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await leave_dialog(pilot, screen, wait_until)
        await pilot.press("d", "escape")  # the letter was typing: it is the message's
        prompt = await prompt_focused(pilot, screen, wait_until)  # Esc: back to the request
        assert pilot.app.screen is screen and screen.prompt.text == "d"
        assert prompt.call.approved is None and prompt.call.status is ToolStatus.AWAITING_APPROVAL


@pytest.mark.parametrize("typed", ["hello world", "lid", "d\r"])
async def test_keys_read_at_once_all_land_in_the_prompt_in_order(
        demo_server, make_app, wait_until, slow_clock, typed: str):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        dialog = await leave_dialog(pilot, screen, wait_until)
        options = dialog.query_one(OptionList)
        for character in typed:  # as from a terminal: queued together
            key = "enter" if character == "\r" else character
            options.post_message(events.Key(key, character))
        if typed.endswith("\r"):  # sent: given back, as a message is while a request waits
            await wait_until(pilot, lambda: asking(screen) is not None
                             and pilot.app.focused is not None
                             and pilot.app.focused.parent is asking(screen), what="re-asked")
            assert screen.prompt.text == typed[:-1]
            assert calls(screen)[0].status is ToolStatus.AWAITING_APPROVAL
            return
        await still_asked(pilot, screen, wait_until, typed)


async def test_a_paste_on_the_dialog_lands_in_the_prompt(
        demo_server, make_app, wait_until, slow_clock):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        dialog = await leave_dialog(pilot, screen, wait_until)
        await pilot.press("d")  # waits for what follows: the paste
        dialog.query_one(OptionList).post_message(events.Paste("elete it later"))
        await still_asked(pilot, screen, wait_until, "delete it later")


async def test_enter_alone_goes_back_to_the_request(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await leave_dialog(pilot, screen, wait_until)
        await pilot.press("enter")
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert app.screen is screen and prompt.call.approved is None
        assert screen.controller.state.phase is Phase.AWAITING_APPROVAL


async def test_left_pending_it_says_esc_brings_it_back_and_esc_does(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await leave_dialog(pilot, screen, wait_until)
        await pilot.press("l")  # alone: it acts once no key followed it
        await wait_until(pilot, lambda: asking(screen) is None and app.screen is screen,
                         what="left pending")
        assert app.focused is screen.prompt
        assert any("Left pending: Esc brings it back" in n.message for n in app._notifications)
        assert esc_label(screen) == "Answer"  # the key bar shows the way back
        await pilot.press("escape")
        prompt = await prompt_focused(pilot, screen, wait_until)
        (call,) = calls(screen)
        assert prompt.call is call and call.status is ToolStatus.AWAITING_APPROVAL
