"""Asked when the user leaves (Esc or quit) while the agent waits for an approval answer."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openletta.ui.key_bar import KeyBar


class LeaveChoice(StrEnum):
    """Deny the waiting requests, or leave them pending for later."""

    DENY = "deny"
    LEAVE = "leave"


class LeaveApprovalScreen(ModalScreen[LeaveChoice | None]):
    """Deny (``d``), leave pending (``l``), or go back (Esc, returns ``None``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "pick('deny')", "Deny", show=False),
        Binding("l", "pick('leave')", "Leave pending", show=False),
        Binding("escape", "dismiss(None)", "Back"),
    ]

    def __init__(self, *, quitting: bool) -> None:
        super().__init__()
        self.quitting = quitting

    def compose(self) -> ComposeResult:
        then = " and quit" if self.quitting else ""
        with Vertical(id="leave-box"):
            yield Static("The agent is waiting for your approval.", id="leave-title")
            yield OptionList(
                Option(f"d  Deny it (reason: cancelled by user){then}", id=LeaveChoice.DENY),
                Option(f"l  Leave it pending; answer it later{then}", id=LeaveChoice.LEAVE),
                Option("Esc  Back to the request", id="back"),
                id="leave-options",
            )
        yield KeyBar()

    def action_pick(self, value: str) -> None:
        """Close with the choice ``value``."""
        self.dismiss(LeaveChoice(value))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id in (LeaveChoice.DENY, LeaveChoice.LEAVE):
            self.dismiss(LeaveChoice(event.option_id))
        else:
            self.dismiss(None)
