"""Ctrl+Q while a local command runs asks first (quitting stops it): Esc goes back while it
runs on; ``s``, or Ctrl+Q again, stops it, tells the agent, then quits."""

from __future__ import annotations

import pytest
from chat_helpers import choose, open_chat
from test_app import SIZE
from test_approvals import prompt_focused

from openletta.chat.local_calls import LocalCalls
from openletta.chat.turn_state import Phase
from openletta.transcript import ToolStatus
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.leave_approval import (
    RUNNING_LEAVING_QUESTION,
    RUNNING_QUESTION,
    QuitWhileRunningScreen,
)
from openletta.ui.widgets.approval import ApprovalPrompt, CommandEditor


@pytest.fixture(autouse=True)
def no_typing_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)


async def run_a_long_command(pilot, wait_until):
    """Have the demo agent ask for Bash, edit the command into a long one and run it."""
    screen = await open_chat(pilot, wait_until)
    await pilot.press(*"how much disk", "enter")
    prompt = await prompt_focused(pilot, screen, wait_until)
    await choose(pilot, "e", wait_until)
    assert pilot.app.focused is prompt.query_one(CommandEditor)
    await pilot.press(*" && sleep 30", "enter")
    await wait_until(pilot, lambda: screen.controller.state.phase is Phase.RUNNING,
                     what="the command running")
    return screen, prompt.call


async def asked(pilot, wait_until) -> QuitWhileRunningScreen:
    await pilot.press("ctrl+q")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, QuitWhileRunningScreen),
                     what="the question")
    assert isinstance(app.screen, QuitWhileRunningScreen)
    return app.screen


@pytest.mark.parametrize("confirm", [("s",), ("ctrl+q",)])
async def test_ctrl_q_while_a_command_runs_asks_before_it_stops_it(
        demo_server, make_app, wait_until, local: LocalCalls, confirm: tuple[str, ...]) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen, call = await run_a_long_command(pilot, wait_until)
        dialog = await asked(pilot, wait_until)
        assert str(dialog.query_one("#leave-title").render()) == RUNNING_QUESTION
        await pilot.press("escape")  # back: it runs on, nothing quits
        await wait_until(pilot, lambda: app.screen is screen, what="back to the chat")
        assert screen.controller.state.phase is Phase.RUNNING and not app._exit
        assert call.status is ToolStatus.RUNNING
        await asked(pilot, wait_until)
        await pilot.press(*confirm)
        await wait_until(pilot, lambda: app._exit, what="the quit", timeout=10)
        assert call.status is ToolStatus.CANCELLED  # stopped, and the agent told so
        assert screen.controller.state.phase is not Phase.RUNNING


async def test_opening_another_chat_while_a_command_runs_asks_then_tells_the_agent(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    # Before, the chat gave way at once: the command was killed, the agent never heard of
    # it, and back in the chat the call was asked about again, to run a second time.
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen, call = await run_a_long_command(pilot, wait_until)
        agent = screen.session.agent
        app.action_new_conversation("elsewhere")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitWhileRunningScreen),
                         what="the question")
        assert str(app.screen.query_one("#leave-title").render()) == RUNNING_LEAVING_QUESTION
        await pilot.press("escape")  # back: it runs on, the chat stays
        await wait_until(pilot, lambda: app.screen is screen, what="back to the chat")
        assert call.status is ToolStatus.RUNNING

        app.action_new_conversation("elsewhere")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitWhileRunningScreen),
                         what="the question again")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and app.screen is not screen, what="the new chat", timeout=10)
        assert call.status is ToolStatus.CANCELLED and not app._exit
        assert screen.session.transcript.pending_approvals == []

        app.open_conversation(agent, None)  # back to the first chat: nothing to answer again
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and app.screen.session.conversation_id is None
                         and app.screen.controller.state.phase is Phase.IDLE,
                         what="the first chat, settled", timeout=10)
        assert app.screen.session.transcript.pending_approvals == []
