"""What tells a user who looks elsewhere that the chat needs them: the terminal's title says
when the agent waits for an approval, and the terminal bell rings when the agent asks about a
call or a turn ends while the terminal is not in front (terminals and tmux mark the tab or
window, or play a sound). A terminal that does not report focus counts as in front: no bell.
"""

from __future__ import annotations

from textual.app import App

from openletta.chat.turn_state import Phase, TurnState

APPROVAL_STATE = "approval needed"


def calls_for_attention(before: TurnState, now: TurnState) -> bool:
    """Whether the user should hear of the change from ``before`` to ``now``: the agent asks
    about a call, or a turn ended (one paused for approvals asks next)."""
    asks = now.asking is not None and now.asking is not before.asking
    return asks or (before.phase.busy and now.phase is Phase.IDLE)


def draw_attention(app: App[object], name: str, before: TurnState, now: TurnState) -> None:
    """Title the terminal for the chat with ``name`` in state ``now``, and ring the bell when
    the change from ``before`` calls for it and the terminal is not in front."""
    title = f"{APPROVAL_STATE} · {name}" if now.phase is Phase.AWAITING_APPROVAL else name
    if app.sub_title != title:
        app.sub_title = title
    if not app.app_focus and calls_for_attention(before, now):
        app.bell()
