"""Inline approvals, driven through the real app against the demo server."""

from __future__ import annotations

import pytest
from chat_helpers import choose, demo_chat, send
from textual.pilot import Pilot
from textual.widgets import OptionList

from openletta.api.client import LettaClient
from openletta.chat.approvals import CANCELLED_REASON
from openletta.chat.controller import APPROVAL_FIRST
from openletta.chat.turn_state import Phase
from openletta.demo import DemoServer
from openletta.transcript import AssistantItem, ToolCallItem, ToolStatus, Transcript
from openletta.ui.attention import APPROVAL_STATE
from openletta.ui.formatting import format_tokens
from openletta.ui.screens.approval_rules import ApprovalRulesScreen
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.leave_approval import LEFT_PENDING, LeaveApprovalScreen
from openletta.ui.widgets.approval import ApprovalPrompt
from openletta.ui.widgets.footer import TurnFooter


@pytest.fixture(autouse=True)
def no_typing_guard(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Answer prompts at once (the guard has its own test)."""
    if "typing_guard" not in request.node.name:
        monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)


def calls(screen: ChatScreen) -> list[ToolCallItem]:
    return [item for item in screen.session.transcript.items if isinstance(item, ToolCallItem)]


def asking(screen: ChatScreen) -> ApprovalPrompt | None:
    prompts = list(screen.query(ApprovalPrompt))
    return prompts[0] if prompts else None


async def ask(pilot, screen: ChatScreen, text: str, wait_until) -> ApprovalPrompt:
    """Send ``text`` and wait for the approval prompt it leads to."""
    await send(pilot, screen, text, wait_until)
    return await prompt_focused(pilot, screen, wait_until)


async def prompt_focused(pilot, screen: ChatScreen, wait_until) -> ApprovalPrompt:
    """Wait until an approval prompt is shown and has the focus."""
    await wait_until(pilot, lambda: asking(screen) is not None
                     and pilot.app.focused is not None
                     and pilot.app.focused.parent is asking(screen), what="prompt focused")
    prompt = asking(screen)
    assert prompt is not None
    return prompt


async def answered(pilot, screen: ChatScreen, wait_until) -> None:
    """Wait until the answer went out and the agent's continuation ended."""
    await wait_until(pilot, lambda: screen.controller.state.phase is Phase.IDLE
                     and screen.session.transcript.stop_reason is not None, what="turn ended")
    await pilot.pause()


async def server_history(base_url: str, agent_id: str) -> Transcript:
    """The conversation as the server stored it."""
    client = LettaClient(base_url)
    try:
        page = await client.list_messages(agent_id, limit=100)
    finally:
        await client.aclose()
    transcript = Transcript()
    transcript.load_history(page.messages)
    return transcript


def stored_call(transcript: Transcript, call: ToolCallItem) -> ToolCallItem:
    stored = transcript.call(call.tool_call_id)
    assert stored is not None
    return stored


async def test_approve_runs_the_tool_on_the_same_card(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        prompt = await ask(pilot, screen, "approve", wait_until)
        (call,) = calls(screen)
        assert prompt.call is call and call.status is ToolStatus.AWAITING_APPROVAL
        assert screen.status.info.state == APPROVAL_STATE
        assert APPROVAL_STATE in app.sub_title
        await choose(pilot, "y", wait_until)
        await answered(pilot, screen, wait_until)
        assert calls(screen) == [call]
        assert call.status is ToolStatus.SUCCESS and call.approved is True
        assert "removed directory" in (call.result or "") + "".join(call.stdout)
        assert isinstance(screen.session.transcript.items[-2], AssistantItem)
        assert asking(screen) is None and app.focused is screen.prompt
        assert screen.status.info.state == "connected"
        stored = await server_history(demo_server.base_url, screen.session.agent.id)
        assert stored_call(stored, call).approved is True


async def test_a_prompt_below_a_long_chat_keeps_the_view_following(demo_server, make_app,
                                                                    wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await send(pilot, screen, "help", wait_until)  # several screens: the view scrolls
        view = screen.view
        assert view.scroll.max_scroll_y > 0 and view.following
        await ask(pilot, screen, "edit", wait_until)
        await pilot.pause()
        assert view.following and not view.query_one("#new-indicator").display
        await choose(pilot, "n", wait_until)  # the reason box grows the card: still newest
        await wait_until(pilot, lambda: screen.focused is not None
                         and screen.focused.has_class("approval-reason"), what="reason focused")
        assert view.following
        await pilot.press("escape")
        await choose(pilot, "y", wait_until)
        await answered(pilot, screen, wait_until)
        assert view.following and not view.query_one("#new-indicator").display


async def test_deny_sends_the_reason(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await ask(pilot, screen, "approve", wait_until)
        assert esc_label(screen) == "Leave"
        await choose(pilot, "n", wait_until)
        assert esc_label(screen) == "Back"  # to the choices, as the field says
        await pilot.press("escape")  # back to the choices, nothing sent
        assert esc_label(screen) == "Leave"
        assert screen.controller.state.phase is Phase.AWAITING_APPROVAL
        assert asking(screen) is not None
        await choose(pilot, "4", wait_until)
        await pilot.press(*"keep the build", "enter")
        await answered(pilot, screen, wait_until)
        (call,) = calls(screen)
        assert call.status is ToolStatus.DENIED and call.reason == "keep the build"
        reply = screen.session.transcript.items[-2]
        assert isinstance(reply, AssistantItem) and "keep the build" in reply.text
        stored = await server_history(demo_server.base_url, screen.session.agent.id)
        assert stored_call(stored, call).reason == "keep the build"


async def test_down_on_the_last_choice_stays_there_and_never_wraps_to_approve(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        prompt = await ask(pilot, screen, "approve", wait_until)
        options = pilot.app.focused
        assert isinstance(options, OptionList) and options.highlighted == 0
        await pilot.press("up")  # (no wrap to the last choice either)
        assert options.highlighted == 0
        await pilot.press(*["down"] * (options.option_count + 1))
        assert options.highlighted == options.option_count - 1
        assert options.get_option_at_index(options.highlighted).id == "deny"
        assert prompt.call.approved is None


async def test_approve_for_session_answers_later_requests(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await ask(pilot, screen, "approve", wait_until)
        await choose(pilot, "s", wait_until)
        await answered(pilot, screen, wait_until)
        await send(pilot, screen, "danger again", wait_until)
        await answered(pilot, screen, wait_until)
        first, second = calls(screen)
        assert not first.auto_approved and second.auto_approved
        assert second.status is ToolStatus.SUCCESS
        assert asking(screen) is None


async def test_always_allow_changes_the_rule_on_the_server(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        agent_id = screen.session.agent.id
        client = LettaClient(demo_server.base_url)
        try:
            assert "write_file" in (await client.get_agent(agent_id)).tools_requiring_approval
            await ask(pilot, screen, "write", wait_until)
            await choose(pilot, "a", wait_until)
            await answered(pilot, screen, wait_until)
            rules = (await client.get_agent(agent_id)).tools_requiring_approval
        finally:
            await client.aclose()
        assert "write_file" not in rules and "edit_file" in rules
        assert screen.controller.auto_approve == set()  # the server's rule, nothing hidden
        assert calls(screen)[0].status is ToolStatus.SUCCESS
        assert any("stored on the server" in str(n.message) for n in app._notifications)
        await send(pilot, screen, "write it again", wait_until)
        assert screen.session.transcript.stop_reason == "end_turn" and asking(screen) is None
        assert calls(screen)[-1].status is ToolStatus.SUCCESS


async def test_parallel_requests_are_answered_in_one_reply(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        prompt = await ask(pilot, screen, "parallel", wait_until)
        first, second = calls(screen)
        assert prompt.call is first and prompt.waiting == 2
        await choose(pilot, "y", wait_until)
        await wait_until(pilot, lambda: asking(screen) is not None
                         and asking(screen).call is second, what="second prompt")
        assert first.status is ToolStatus.AWAITING_APPROVAL  # nothing sent yet
        await choose(pilot, "n", wait_until)
        await pilot.press(*"no", "enter")
        await answered(pilot, screen, wait_until)
        assert first.status is ToolStatus.SUCCESS
        assert second.status is ToolStatus.DENIED and second.reason == "no"


async def test_approve_all(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await ask(pilot, screen, "parallel", wait_until)
        await choose(pilot, "5", wait_until)
        await answered(pilot, screen, wait_until)
        assert [call.status for call in calls(screen)] == [ToolStatus.SUCCESS] * 2


async def test_pending_request_is_asked_on_open(make_app, wait_until):
    server = DemoServer(speed=0, pending_approval=True)
    base_url = await server.start()
    try:
        async with demo_chat(make_app, base_url, wait_until) as (_app, pilot, screen):
            await prompt_focused(pilot, screen, wait_until)
            assert screen.status.info.state == APPROVAL_STATE
            await choose(pilot, "y", wait_until)
            await answered(pilot, screen, wait_until)
            assert calls(screen)[-1].status is ToolStatus.SUCCESS
    finally:
        await server.stop()


async def test_a_message_stays_in_the_prompt_until_the_answer_as_it_was_told(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await ask(pilot, screen, "approve", wait_until)
        count = len(screen.session.transcript.items)
        await pilot.press("escape", "l")  # leave it pending
        await wait_until(pilot, lambda: asking(screen) is None, what="prompt closed")
        assert app.focused is screen.prompt
        (left,) = [n.message for n in app._notifications if n.title == "Approval pending"]
        assert left == LEFT_PENDING
        assert "it stays in the prompt" in left and "waits" not in left  # not queued
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: asking(screen) is not None, what="prompt reopened")
        assert screen.prompt.text == "hi" and not screen.controller.state.queued
        assert not screen.busy
        assert len(screen.session.transcript.items) == count
        prompt = asking(screen)  # it says so itself, where a toast would cover it
        await wait_until(pilot, lambda: APPROVAL_FIRST in str(prompt._error.render()),
                         what="the request says the message waits")
        assert not any(n.message == APPROVAL_FIRST for n in app._notifications)


async def test_escape_then_deny_sends_cancelled_by_user(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await ask(pilot, screen, "approve", wait_until)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveApprovalScreen),
                         what="leave dialog")
        await pilot.press("d")  # alone: it acts once no key followed it
        await wait_until(pilot, lambda: app.screen is screen, what="dialog closed")
        await answered(pilot, screen, wait_until)
        (call,) = calls(screen)
        assert call.status is ToolStatus.DENIED and call.reason == CANCELLED_REASON


async def test_send_failure_keeps_the_prompt_open(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await ask(pilot, screen, "approve", wait_until)
        await demo_server.server.stop()
        await choose(pilot, "y", wait_until)
        await wait_until(pilot, lambda: asking(screen) is not None
                         and asking(screen)._error.display, what="error in the prompt")
        (call,) = calls(screen)
        assert call.status is ToolStatus.AWAITING_APPROVAL and call.approved is None
        assert "Not sent" in str(asking(screen)._error.render())
        assert screen.controller.state.phase is Phase.AWAITING_APPROVAL
        assert call.approved is None and asking(screen) is not None


async def test_typing_guard_hands_a_message_typed_through_the_prompt_to_the_message(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        prompt = await ask(pilot, screen, "approve", wait_until)
        prompt._quiet_since = prompt._clock()  # as if it had just appeared
        # A sentence typed on, full of answer keys, with a typo fixed, then sent.
        await pilot.press(*"yes, a 4", "backspace", *"1n e", "enter")
        await wait_until(pilot, lambda: screen.prompt.text == "yes, a 1n e",
                         what="the message kept")
        await pilot.pause()
        assert screen.controller.state.phase is Phase.AWAITING_APPROVAL
        assert calls(screen)[0].approved is None and asking(screen) is prompt
        assert app_focus_is_on(pilot, prompt)
        prompt._quiet_since -= ApprovalPrompt.GUARD_SECONDS  # the keyboard went quiet
        await choose(pilot, "y", wait_until)
        await answered(pilot, screen, wait_until)
        assert calls(screen)[0].status is ToolStatus.SUCCESS
        assert screen.prompt.text == "yes, a 1n e"


async def test_typing_guard_takes_the_key_after_esc_pressed_while_typing_went_to_the_message(
        demo_server, make_app, wait_until):
    """The request appeared as the user typed: the choices keep the focus and hand the typing
    on to the message. Esc then is from the message back to the request (as the key bar
    says): the ``n`` right after it denies, it does not go to the message."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, (60, 20)) as (
            _app, pilot, screen):
        prompt = await ask(pilot, screen, "approve", wait_until)
        prompt._quiet_since = prompt._clock()  # it appears now
        await pilot.press(*"xxxx")  # typed as it appeared: the message's
        await wait_until(pilot, lambda: screen.prompt.text == "xxxx", what="typing handed on")
        assert not prompt.armed and screen.app.focused is not screen.prompt
        await pilot.press("escape", "n")
        await wait_until(pilot, lambda: prompt._reason.display and prompt._reason.has_focus,
                         what="the reason asked for")
        assert screen.prompt.text == "xxxx" and calls(screen)[0].approved is None


async def test_typing_guard_holds_no_key_after_esc_went_back_to_the_request(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        prompt = await ask(pilot, screen, "approve", wait_until)
        prompt._quiet_since -= ApprovalPrompt.GUARD_SECONDS  # the keyboard went quiet
        await pilot.press("x")  # a message begun: the focus goes to the prompt
        await wait_until(pilot, lambda: screen.app.focused is screen.prompt, what="typing")
        await pilot.press("escape", "n")  # on purpose to the request, and deny at once
        await wait_until(pilot, lambda: prompt._reason.display and prompt._reason.has_focus,
                         what="the reason asked for")
        assert screen.prompt.text == "x" and calls(screen)[0].approved is None


def esc_label(screen: ChatScreen) -> str:
    """What the key bar says Esc does."""
    active = screen.active_bindings["escape"]
    assert active.enabled
    return active.binding.description


def app_focus_is_on(pilot: Pilot[None], prompt: ApprovalPrompt) -> bool:
    focused = pilot.app.focused
    return focused is not None and focused.parent is prompt


async def test_approvals_command_toggles_rules_on_the_server(demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await pilot.press(*"/approvals", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalRulesScreen)
                         and app.screen._required, what="rules listed")
        rules = app.screen
        assert set(rules._tools.selected) == {"write_file", "edit_file"}
        names = [rules._tools.get_option_at_index(index).value
                 for index in range(rules._tools.option_count)]
        rules._tools.highlighted = names.index("bash")
        await pilot.press("space")
        await wait_until(pilot, lambda: rules._required.get("bash") is True, what="stored")
        client = LettaClient(demo_server.base_url)
        try:
            needed = (await client.get_agent(screen.session.agent.id)).tools_requiring_approval
        finally:
            await client.aclose()
        assert needed == {"write_file", "edit_file", "bash"}
        await pilot.press("escape")
        assert app.screen is screen


async def test_enter_or_esc_on_the_message_goes_back_to_the_waiting_prompt(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        prompt = await ask(pilot, screen, "approve", wait_until)
        for key in ("enter", "escape"):
            await pilot.press("x")  # no choice's key: a message starts, with the focus
            await wait_until(pilot, lambda: app.focused is screen.prompt, what="on the message")
            await pilot.press(key)
            await wait_until(pilot, lambda: app_focus_is_on(pilot, prompt),
                             what=f"{key} back on the prompt")
        assert screen.prompt.text == "xx" and screen.controller.state.asking is prompt.call
        await choose(pilot, "y", wait_until)
        await answered(pilot, screen, wait_until)
        assert calls(screen)[0].status is ToolStatus.SUCCESS


async def test_checking_a_tool_allowed_this_session_makes_it_ask_again(
        demo_server, make_app, wait_until):
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        await ask(pilot, screen, "write", wait_until)
        await choose(pilot, "s", wait_until)
        await answered(pilot, screen, wait_until)
        await pilot.press(*"/approvals", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalRulesScreen)
                         and app.screen._required, what="rules listed")
        rules = app.screen
        rows = {rules._tools.get_option_at_index(index).value:
                str(rules._tools.get_option_at_index(index).prompt)
                for index in range(rules._tools.option_count)}
        assert rows["write_file"] == "write_file · allowed this session"
        assert (rows["edit_file"], rows["bash"]) == ("edit_file · asks",
                                                     "bash · runs without asking")
        assert "2 need approval (1 allowed this session)" in str(rules._status.render())
        assert set(rules._tools.selected) == {"edit_file"}  # write_file does not ask now
        rules._tools.highlighted = list(rows).index("write_file")
        await pilot.press("space")
        await wait_until(pilot, lambda: "write_file" in rules._tools.selected, what="checked")
        assert screen.controller.auto_approve == set()
        assert str(rules._tools.get_option_at_index(list(rows).index("write_file")).prompt
                   ) == "write_file · asks"
        await pilot.press("escape")
        await ask(pilot, screen, "write it again", wait_until)  # it asks again


async def test_an_approval_answered_after_reopening_counts_the_whole_turn(
        make_app, wait_until):
    server = DemoServer(speed=0, pending_approval=True)  # the chat opens on the request
    try:
        async with demo_chat(make_app, await server.start(), wait_until) as (_, pilot, screen):
            await prompt_focused(pilot, screen, wait_until)
            await choose(pilot, "y", wait_until)
            await answered(pilot, screen, wait_until)
            (footer,) = screen.query(TurnFooter)
            await wait_until(pilot, lambda: footer.item.tokens is not None, what="its tokens")

            # The run that asked (read from the server) and the one that answered (streamed).
            asked, answering = (server.store.runs[run] for run in footer.item.run_ids)
            tokens = sum(step["prompt_tokens"] + step["completion_tokens"]
                         for run in (asked, answering) for step in run.steps)
            assert (footer.item.tokens, footer.item.steps) == (tokens, 2)
            await wait_until(pilot, lambda: f"{format_tokens(tokens)} tokens · 2 steps"
                             in str(footer.render()), what="the footer showing them")
            usage = screen.status.info.usage  # the status bar: the same turn
            assert usage is not None and (usage.total_tokens, usage.step_count) == (tokens, 2)
    finally:
        await server.stop()
