"""Asked when the user leaves (Esc or quit) while the agent waits for an approval answer.

A letter picks its choice only when it is not part of typing (:class:`StrayKeys`): a message
typed here (a letter another key follows at once, a letter of no choice, a paste) closes the
dialog back to the request, never denies it, and goes on to the chat's prompt, in order
(:class:`~openletta.ui.prompt.TypedElsewhere`). Enter alone goes back to the request, or
picks the choice moved to with the arrows.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openletta.chat.turn_state import Phase
from openletta.ui.key_bar import KeyBar
from openletta.ui.prompt import TypedElsewhere
from openletta.ui.stray_keys import StrayKeys
from openletta.ui.widgets.approval import TYPED_THROUGH_KEYS
from openletta.ui.widgets.pick_list import PickList

if TYPE_CHECKING:
    from openletta.ui.screens.chat import ChatScreen

#: Said once a request is left pending: how to come back to it, and that a message is not
#: sent (nor queued) meanwhile: Enter keeps it in the prompt and asks again
#: (:data:`~openletta.chat.approval_flow.APPROVAL_FIRST`).
LEFT_PENDING = ("Left pending: Esc brings it back. Until it is answered, a message is not sent: "
                "it stays in the prompt.")


class LeaveChoice(StrEnum):
    """Deny the waiting requests, or leave them pending for later."""

    DENY = "deny"
    LEAVE = "leave"


class LeaveApprovalScreen(ModalScreen[LeaveChoice | None]):
    """Deny (``d``), leave pending (``l``), or go back (Esc, returns ``None``); what is
    typed goes to ``typed`` (see the module)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "pick('deny')", "Deny", show=False),
        Binding("l", "pick('leave')", "Leave pending", show=False),
        Binding("escape", "pick(None)", "Back"),
    ]

    def __init__(self, *, quitting: bool, typed: Callable[[TypedElsewhere], None]) -> None:
        super().__init__()
        self.quitting = quitting
        self._typed = typed
        self._stray_keys = StrayKeys(self)
        #: Whether the dialog closes (once): keys that still reach it are a message's.
        self._finished = False

    def compose(self) -> ComposeResult:
        then = " and quit" if self.quitting else ""
        with Vertical(id="leave-box"):
            yield Static("The agent is waiting for your approval.", id="leave-title")
            yield PickList(
                Option(f"d  Deny it (reason: cancelled by user){then}", id=LeaveChoice.DENY),
                Option(f"l  Leave it pending; answer it later{then}", id=LeaveChoice.LEAVE),
                Option("Esc  Back to the request", id="back"),
                id="leave-options",
            )
        yield KeyBar()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = options.get_option_index("back")

    def on_key(self, event: events.Key) -> None:
        """A choice's letter waits to see that no key follows it; typing goes on."""
        if self._finished:
            self._hand_on(event)
            return
        through = self._stray_keys.pending and event.key in TYPED_THROUGH_KEYS
        self._stray_keys.on_key(event)  # (a letter waiting goes on, and a letter after it)
        if through:  # Enter or Backspace after the letter: the message's too
            self._hand_on(event)

    def _hand_on(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.is_printable or event.key in TYPED_THROUGH_KEYS:
            character = event.character if event.is_printable else None
            self.post_message(TypedElsewhere(event.key, character, focus=True))

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text is a message's."""
        event.stop()
        self._stray_keys.type_pending()
        self.post_message(TypedElsewhere("paste", event.text, focus=True))

    @on(TypedElsewhere)
    def _typed_here(self, event: TypedElsewhere) -> None:
        event.stop()
        self._stray_keys.type_pending()  # (before what follows it)
        self.action_pick(None)  # back to the request; the message has the focus
        self._typed(event)

    def action_pick(self, value: str | None) -> None:
        """Close with the choice ``value`` (``None``: back to the request), unless closed."""
        if not self._finished:
            self._finished = True
            self.dismiss(None if value is None else LeaveChoice(value))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = event.option_id in (LeaveChoice.DENY, LeaveChoice.LEAVE)
        self.action_pick(event.option_id if chosen else None)


def ask_to_leave(chat: ChatScreen, *, quitting: bool) -> bool:
    """If the agent waits for answers in ``chat``, ask whether to deny them or leave them
    pending; ``True`` if asked. Quitting while local calls run stops them and quits once the
    agent was told (also ``True``)."""
    controller = chat.controller
    if quitting and controller.quit_after_local_calls():
        chat.notify("Stopping the local calls and telling the agent, then quitting…",
                    title="Quitting", severity="information")
        return True
    if controller.state.phase is not Phase.AWAITING_APPROVAL:
        return False

    def chosen(choice: LeaveChoice | None) -> None:
        if choice is not None:
            controller.leave(deny=choice is LeaveChoice.DENY, quitting=quitting)
        if choice is LeaveChoice.LEAVE and not quitting:
            chat.notify(LEFT_PENDING, title="Approval pending", severity="information")

    def typed(event: TypedElsewhere) -> None:
        chat.set_focus(chat.prompt)  # now: the keys that follow go straight to the prompt
        chat.prompt.take_typed(event)

    chat.app.push_screen(LeaveApprovalScreen(quitting=quitting, typed=typed), chosen)
    return True
