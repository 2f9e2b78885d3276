"""What the status bar says of a conversation's turn: its state, and the permission mode
of local calls."""

from __future__ import annotations

from typing import Any

from openletta.chat.local_calls import LocalCalls
from openletta.chat.turn_state import Phase, TurnState
from openletta.tools.permissions import PermissionMode
from openletta.ui.attention import APPROVAL_STATE
from openletta.ui.formatting import home_relative
from openletta.ui.status_bar import REPLY_AWAITED

YOLO_WARNING = ("Every local call runs without asking: commands, writes and edits, anywhere "
                "on this machine, with your rights. Shift+Tab switches to asking.")
#: Added to the mode's description when a request waits: the switch does not answer it.
STILL_ASKS = " The request waiting still asks you: the mode applies to the calls asked next."


def mode_fields(mode: PermissionMode | None, local: LocalCalls | None) -> dict[str, Any]:
    """The status bar's fields for the permission mode (none without local tools)."""
    if mode is None or local is None:
        return {}
    return {"permission_mode": mode.label, "workspace": home_relative(local.workspace.root),
            "unguarded": mode is PermissionMode.YOLO}


def status_state(state: TurnState) -> str:
    """The connection state the status bar shows for ``state``."""
    if state.phase is Phase.AWAITING_APPROVAL:
        return APPROVAL_STATE
    if state.phase is Phase.WAITING:
        return "waiting"
    if state.phase is Phase.RUNNING:
        return "running tools"
    if state.phase.busy:
        return state.connection or ("streaming" if state.replying else REPLY_AWAITED)
    return "offline" if state.offline else "connected"
