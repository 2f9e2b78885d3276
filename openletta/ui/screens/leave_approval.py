"""Asked when the user leaves the chat's work unfinished: leaves (Esc) or quits while the
agent waits for an approval answer, or quits or opens another chat while a local command
runs. Each is a
:class:`~openletta.ui.screens.letter_dialog.LetterDialog`: a message typed over it picks
nothing and lands in the prompt.
"""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType

from openletta.chat.turn_state import Phase
from openletta.ui.prompt import TypedElsewhere
from openletta.ui.screens.letter_dialog import LetterDialog

if TYPE_CHECKING:
    from collections.abc import Callable

    from openletta.ui.screens.chat import ChatScreen

#: Said once a request is left pending: how to come back to it, and that a message is not
#: sent (nor queued) meanwhile: Enter keeps it in the prompt and asks again
#: (:data:`~openletta.chat.approval_flow.APPROVAL_FIRST`).
LEFT_PENDING = ("Left pending: Esc brings it back. Until it is answered, a message is not sent: "
                "it stays in the prompt.")
#: Said once the user chose to stop the local calls and quit.
STOPPING_TO_QUIT = "Stopping the local calls and telling the agent, then quitting…"
#: Said once the user chose to stop the local calls and open another chat.
STOPPING_TO_LEAVE = "Stopping the local calls and telling the agent, then leaving this chat…"
#: The question Ctrl+Q asks while a local call runs (quitting would stop it).
RUNNING_QUESTION = "A command is running: stop it and quit?"
#: The question opening another chat asks while a local call runs (leaving would stop it).
RUNNING_LEAVING_QUESTION = "A command is running here: stop it and leave this chat?"


class LeaveChoice(StrEnum):
    """Deny the waiting requests, or leave them pending for later."""

    DENY = "deny"
    LEAVE = "leave"


class LeaveApprovalScreen(LetterDialog[LeaveChoice]):
    """Deny (``d``), leave pending (``l``), or go back to the request (Esc: ``None``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "pick('deny')", "Deny", show=False),
        Binding("l", "pick('leave')", "Leave pending", show=False),
    ]

    def __init__(self, *, quitting: bool, typed: Callable[[TypedElsewhere], None]) -> None:
        then = " and quit" if quitting else ""
        super().__init__("The agent is waiting for your approval.", [
            (LeaveChoice.DENY, "d", f"Deny it (reason: cancelled by user){then}"),
            (LeaveChoice.LEAVE, "l", f"Leave it pending; answer it later{then}"),
        ], "Back to the request", typed=typed)
        self.quitting = quitting


class QuitChoice(StrEnum):
    """Stop the local calls running, tell the agent, and quit (or leave the chat)."""

    STOP = "stop"


class QuitWhileRunningScreen(LetterDialog[QuitChoice]):
    """Stop the command running and quit, or leave the chat (``s``, or Ctrl+Q again), or go
    back while it runs on (Esc: ``None``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "pick('stop')", "Stop", show=False),
    ]

    def __init__(self, *, typed: Callable[[TypedElsewhere], None], quitting: bool = True) -> None:
        then = "quit" if quitting else "leave"
        super().__init__(RUNNING_QUESTION if quitting else RUNNING_LEAVING_QUESTION, [
            (QuitChoice.STOP, "s", f"Stop it, tell the agent, and {then}"),
        ], "Back: it goes on running", typed=typed)


def ask_to_leave(chat: ChatScreen, *, quitting: bool) -> bool:
    """If the agent waits for answers in ``chat``, ask whether to deny them or leave them
    pending; quitting while local calls run, ask whether to stop them (then quit once the
    agent was told). ``True`` if asked, or if the quit waits for the agent to be told."""
    controller = chat.controller
    if quitting and controller.state.phase is Phase.RUNNING:

        def stop(choice: QuitChoice | None) -> None:
            if choice is not None and not _stop_and_quit(chat):
                chat.app.exit()  # (it ended meanwhile: nothing to stop)

        chat.app.push_screen(QuitWhileRunningScreen(typed=_typed_into(chat)), stop)
        return True
    if quitting and _stop_and_quit(chat):
        return True
    if controller.state.phase is not Phase.AWAITING_APPROVAL:
        return False

    def chosen(choice: LeaveChoice | None) -> None:
        if choice is not None:
            controller.leave(deny=choice is LeaveChoice.DENY, quitting=quitting)
        if choice is LeaveChoice.LEAVE and not quitting:
            chat.notify(LEFT_PENDING, title="Approval pending", severity="information")

    chat.app.push_screen(LeaveApprovalScreen(quitting=quitting, typed=_typed_into(chat)),
                         chosen)
    return True


def _stop_and_quit(chat: ChatScreen) -> bool:
    """Stop the local calls running, or send the answers of those Esc stopped, then quit;
    ``False`` when there are none (the app quits as usual)."""
    if not chat.controller.leave_after_local_calls(quitting=True):
        return False
    chat.notify(STOPPING_TO_QUIT, title="Quitting", severity="information")
    return True


async def stop_before_leaving(chat: ChatScreen) -> bool:
    """Before another chat opens in place of ``chat``: while local calls run there, ask
    whether to stop them (``False``: the user went back to it); stopped, or stopped by Esc
    earlier, the agent is told (their answers are sent) before this returns ``True``. Must
    run in a worker (it waits for the answer)."""
    controller = chat.controller
    if controller.state.phase is Phase.RUNNING and await chat.app.push_screen_wait(
            QuitWhileRunningScreen(typed=_typed_into(chat), quitting=False)) is None:
        return False
    told = asyncio.Event()
    chat.after_told = told.set
    if not controller.leave_after_local_calls(quitting=False):
        chat.after_told = None
        return True
    chat.notify(STOPPING_TO_LEAVE, title="Leaving", severity="information")
    await told.wait()
    return True


def _typed_into(chat: ChatScreen) -> Callable[[TypedElsewhere], None]:
    """Where a dialog over ``chat`` hands what is typed: to the prompt, with the focus."""

    def typed(event: TypedElsewhere) -> None:
        chat.set_focus(chat.prompt)  # now: the keys that follow go straight to the prompt
        chat.prompt.take_typed(event)

    return typed
