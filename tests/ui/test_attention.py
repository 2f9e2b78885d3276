"""The bell and the title that tell a user who looks elsewhere that the chat needs them."""

from __future__ import annotations

import pytest
from chat_helpers import open_chat
from test_app import SIZE

from openletta.chat.approvals import Choice
from openletta.chat.turn_state import Phase, TurnState
from openletta.transcript import ToolCallItem
from openletta.ui.attention import APPROVAL_STATE, calls_for_attention

CALL = ToolCallItem(key="call:1", tool_call_id="call-1")
IDLE = TurnState()
STREAMING = TurnState(phase=Phase.STREAMING)
ASKING = TurnState(phase=Phase.AWAITING_APPROVAL, asking=CALL)


@pytest.mark.parametrize(("before", "now", "expected"), [
    (STREAMING, IDLE, True),  # a turn ended
    (STREAMING, ASKING, True),  # the agent asks
    (STREAMING, TurnState(phase=Phase.AWAITING_APPROVAL), False),  # it asks next
    (ASKING, TurnState(phase=Phase.AWAITING_APPROVAL,
                       asking=ToolCallItem(key="call:2", tool_call_id="call-2")), True),
    (ASKING, ASKING, False),  # the same question again
    (IDLE, STREAMING, False),
    (STREAMING, STREAMING, False),
    (IDLE, IDLE, False),
])
def test_what_calls_for_attention(before: TurnState, now: TurnState, expected: bool) -> None:
    assert calls_for_attention(before, now) is expected


@pytest.mark.parametrize("in_front", [True, False])
async def test_the_bell_rings_only_when_the_terminal_is_not_in_front(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch,
        in_front: bool) -> None:
    """Driven by intents: a key pressed would tell Textual the terminal is in front."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    rings: list[str] = []
    monkeypatch.setattr(app, "bell", lambda: rings.append(app.sub_title))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        controller = screen.controller
        app.app_focus = in_front
        for text in ("hello", "approve"):
            controller.submit(text)
            await wait_until(pilot, lambda: not controller.state.phase.busy
                             and controller.session.transcript.stop_reason is not None,
                             what=f"the turn {text!r} ended")
        asked = controller.state.asking
        assert asked is not None and APPROVAL_STATE in app.sub_title
        controller.decide(asked, Choice.APPROVE)
        await wait_until(pilot, lambda: controller.state.phase is Phase.IDLE,
                         what="the approved call answered")
        assert APPROVAL_STATE not in app.sub_title
        name = screen.session.agent.name
    expected = [] if in_front else [name, f"{APPROVAL_STATE} · {name}", name]
    assert rings == expected, rings
