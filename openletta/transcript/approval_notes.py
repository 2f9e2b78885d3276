"""How a call was approved, in the words its card, the exit printout and ``/export`` use."""

from __future__ import annotations

from openletta.transcript.items import ToolCallItem


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
