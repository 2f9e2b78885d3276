"""How a call was approved or denied, in the words its card, the exit printout and
``/export`` use."""

from __future__ import annotations

import re

from openletta.transcript.items import ToolCallItem

#: The reason sent for a denial the user gave none for (the agent reads it).
NO_REASON = "none given"
_DENIAL_REASON = re.compile(r"User reason: (.*)", re.DOTALL)
#: What a denial without a reason says in its place.
_NO_REASONS = ("", "None", NO_REASON)


def approval_note(item: ToolCallItem) -> str:
    """How the call was approved: edited by the user, by a rule of this client's, or (a
    server call) approved. History keeps only that a server call was approved, not by whom
    (a rule's answer is the same ``approve: true``), and nothing of a call run on a client."""
    if item.edited:
        return "edited by you"
    if item.auto_approved:
        return "auto-approved"
    if item.approved and item.needs_approval and not (item.runs_here or item.client_result):
        return "approved"
    return ""


def denial_reason(item: ToolCallItem) -> str | None:
    """Why the call was denied: the user's reason, or the one quoted in the result (where
    the server writes ``None``, and this client :data:`NO_REASON`, for a denial without one)."""
    if (item.reason or "").strip() not in _NO_REASONS:
        return item.reason
    match = _DENIAL_REASON.search(item.result or "")
    quoted = match[1].strip() if match else ""
    return quoted if quoted not in _NO_REASONS else None
