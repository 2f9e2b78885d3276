"""What a conversation's turn looks like from outside: its phase, the state the UI shows,
and what the UI does for the controller."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol

from openletta.api.resources import Agent
from openletta.tools.permissions import PermissionMode
from openletta.transcript import Change, ToolCallItem

Severity = Literal["information", "warning", "error"]


class Phase(StrEnum):
    """Where a conversation's turn is."""

    IDLE = "idle"
    #: A message is on its way and the server has not accepted it yet.
    SENDING = "sending"
    #: The server holds the conversation busy (another run): the message waits to be sent.
    WAITING = "waiting"
    #: The agent's reply streams.
    STREAMING = "streaming"
    #: The agent waits for answers to tool calls.
    AWAITING_APPROVAL = "awaiting approval"
    #: Approved calls of local tools run on this machine.
    RUNNING = "running tools"
    #: The answers are being sent, or the agent's continuation streams.
    ANSWERING = "answering"

    @property
    def busy(self) -> bool:
        """Whether a request is in flight (Esc interrupts it; new messages are queued)."""
        return self in _BUSY


_BUSY = {Phase.SENDING, Phase.WAITING, Phase.STREAMING, Phase.RUNNING, Phase.ANSWERING}
#: The request's state while Esc waits for the server's answer to it (the server may take it
#: yet: its run is then stopped).
STOPPING = "stopping"


@dataclass(frozen=True)
class TurnState:
    """Everything the UI shows about the turn; a new one is reported on every change."""

    phase: Phase = Phase.IDLE
    #: The message on its way, until the server accepts it.
    sending: str | None = None
    #: Messages typed meanwhile, sent one by one when the turn ends cleanly.
    queued: tuple[str, ...] = ()
    #: The call the user is asked about now (``None``: no prompt open).
    asking: ToolCallItem | None = None
    #: Calls of the open round still without an answer.
    undecided: int = 0
    #: Why the last answers (or a rule change) did not go through; shown in the prompt.
    answer_error: str | None = None
    #: Whether the last request could not reach the server.
    offline: bool = False
    #: Why the last turn stopped (``interrupted`` after Esc).
    stop_reason: str | None = None
    #: How the reply's connection fares when it broke: ``reconnecting``, ``reconnected``;
    #: or :data:`STOPPING`.
    connection: str | None = None
    #: How local calls are approved (``None``: no local tools are declared).
    permission_mode: PermissionMode | None = None
    #: ``time.monotonic()`` when the request in flight began: set while the phase is busy,
    #: ``None`` otherwise (an approval round ends one busy stretch; its answers start the next).
    busy_since: float | None = None
    #: Whether the agent's reply to the request in flight has begun to arrive.
    replying: bool = False


class TurnListener(Protocol):
    """What the UI does for the controller."""

    def transcript_changed(self, change: Change) -> None:
        """Show a change of the transcript."""

    def turn_state_changed(self, state: TurnState) -> None:
        """Show the new turn state."""

    def report(self, message: str, *, title: str, severity: Severity = "error",
               notice: bool = False) -> None:
        """Tell the user (``notice``: also as a line in the chat)."""

    def restore_prompt(self, text: str) -> None:
        """Give ``text`` back to the prompt (a message that was not sent)."""

    def withdraw_prompt(self, text: str) -> None:
        """Take ``text``, given back to the prompt, out of it again (it was sent after all),
        unless it was edited since."""

    def leave_now(self) -> None:
        """Quit, or leave the chat: what the user asked for once the answers were sent."""

    def agent_changed(self, agent: Agent) -> None:
        """Show the agent's model (and its context window) as the server has it now."""
