"""The chat screen: the transcript, the prompt and the status bar of one conversation."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer

from openletta.api.errors import APIConnectionError, LettaError
from openletta.transcript import Change
from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.session import ChatSession, TurnOutcome
from openletta.ui.slash_menu import SlashMenu
from openletta.ui.status_bar import StatusBar, StatusInfo

#: Stop reasons after which queued messages are sent.
CLEAN_STOPS = frozenset({"end_turn", "max_steps", "no_tool_call"})
APPROVAL_FIRST = "Answer the pending approval request first; your message is still in the prompt."

PLACEHOLDER = "Message the agent · Enter sends · Ctrl+J new line · / commands · F1 help"
DEMO_PLACEHOLDER = 'Type "help" to see what the demo agent can do · Enter sends · F1 help'

SlashHandler = Callable[[str], bool]


class ChatScreen(Screen[None], ReportsWorkerErrors):
    """Sends prompts, streams replies into the chat view and keeps the status bar current."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Stop", id="chat.interrupt"),
        Binding("ctrl+t", "toggle_internal", "Internal", id="chat.internal"),
    ]

    AUTO_FOCUS = "#prompt"

    busy = reactive(False, bindings=True)
    """True while a turn is being sent or streamed."""

    def __init__(self, session: ChatSession, *, demo: bool = False,
                 slash: SlashHandler | None = None) -> None:
        super().__init__()
        self.session = session
        self._demo = demo
        self._slash = slash
        self._sending: str | None = None
        self._shown_usage = session.transcript.usage
        self.view = ChatView(id="chat")
        self.menu = SlashMenu(id="slash-menu")
        self.prompt = Prompt(id="prompt", placeholder=DEMO_PLACEHOLDER if demo else PLACEHOLDER,
                             menu=self.menu)
        self.status = StatusBar(id="status")

    def compose(self) -> ComposeResult:
        yield self.view
        yield self.menu
        yield self.prompt
        yield self.status
        yield Footer()

    def on_mount(self) -> None:
        agent = self.session.agent
        self.status.info = StatusInfo(agent_name=agent.name or agent.id, model=agent.model_name,
                                      state="connected", demo=self._demo,
                                      context_window=agent.context_window)
        self.load_history()

    def set_state(self, state: str) -> None:
        """Show the connection state in the status bar."""
        self.status.info = dataclasses.replace(self.status.info, state=state)

    # --- history ----------------------------------------------------------------------------

    @work(group="history", exit_on_error=False)
    async def load_history(self) -> None:
        """Load and show the newest page of history."""
        await self._load(self.session.load_latest)

    @work(group="history", exclusive=True, exit_on_error=False)
    async def load_earlier(self) -> None:
        """Load and show the next older page of history."""
        await self._load(self.session.load_earlier)

    @on(ChatView.EarlierRequested)
    def _earlier_requested(self) -> None:
        self.load_earlier()

    async def _load(self, load: Callable[[], Awaitable[Change]]) -> None:
        try:
            change = await load()
        except LettaError as error:
            self._report(f"Could not load history: {error.message}")
            return
        self.view.apply(change)
        self.view.flush()
        self.view.more_on_server = self.session.has_more_history
        if self.session.transcript.awaiting_approval:
            self._notify_approval()

    # --- sending ----------------------------------------------------------------------------

    @on(Prompt.Submitted)
    def _submitted(self, event: Prompt.Submitted) -> None:
        text = event.text
        if self._slash is not None and self._slash(text):
            return
        if self.busy:
            self.session.queue.append(text)
            self._show_pending()
        elif self.session.transcript.awaiting_approval:
            self.prompt.restore(text)
            self.notify(APPROVAL_FIRST, title="Approval pending", severity="warning")
        else:
            self.run_turn(text)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, text: str) -> None:
        """Send ``text`` and stream the reply (Esc cancels this worker)."""
        self.busy, self._sending = True, text
        self._show_pending()
        self.set_state("streaming")
        try:
            outcome = await self.session.stream_turn(text, self._on_change)
        except LettaError as error:
            self._send_failed(text, error)
            return
        finally:
            self.busy, self._sending = False, None
            self.view.flush()
            self._show_pending()
        self._turn_ended(outcome)

    def _on_change(self, change: Change) -> None:
        if self._sending is not None and self.session.turn_open:
            self._sending = None
            self._show_pending()
        self.view.apply(change)
        usage = self.session.transcript.usage
        if usage is not self._shown_usage:
            self._shown_usage = usage
            self.status.info = dataclasses.replace(self.status.info, usage=usage)

    def _turn_ended(self, outcome: TurnOutcome) -> None:
        self.status.info = dataclasses.replace(self.status.info, state="connected",
                                               stop_reason=outcome.stop_reason)
        if outcome.error is not None:
            self.notify(f"The reply stopped early: {outcome.error.message}", title="Stream",
                        severity="error", markup=False)
        if outcome.stop_reason == "requires_approval":
            self._notify_approval()
        if outcome.stop_reason in CLEAN_STOPS and self.session.queue:
            self.call_later(self._send_next)
        else:
            self._return_queue_to_prompt()

    def _send_next(self) -> None:
        if self.session.queue and not self.busy:
            self.run_turn(self.session.queue.popleft())
            self._show_pending()

    def _send_failed(self, text: str, error: LettaError) -> None:
        self.set_state("offline" if isinstance(error, APIConnectionError) else "connected")
        self.prompt.restore(text)
        self._report(f"Not sent: {error.message}", title="Send failed")

    # --- interrupting -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":
            return True if self.busy else None
        return True

    def action_interrupt(self) -> None:
        """Stop the running turn: keep what arrived, mark it interrupted, cancel the run."""
        if not self.busy:
            return
        run_id, opened, unsent = self.session.run_id, self.session.turn_open, self._sending
        self.workers.cancel_group(self, "turn")
        self.view.apply(self.session.interrupt())
        self.view.flush()
        if not opened and unsent is not None:
            self.prompt.restore(unsent)
        self._return_queue_to_prompt()
        self.busy, self._sending = False, None
        self._show_pending()
        self.status.info = dataclasses.replace(self.status.info, state="connected",
                                               stop_reason="interrupted")
        self.cancel_on_server(run_id)

    @work(group="cancel", exit_on_error=False)
    async def cancel_on_server(self, run_id: str | None) -> None:
        """Tell the server to stop the run (the stream is already closed)."""
        try:
            await self.session.cancel_run(run_id)
        except LettaError as error:
            self.notify(f"The server did not confirm the cancel: {error.message}",
                        title="Interrupt", severity="warning", markup=False)

    # --- other actions ----------------------------------------------------------------------

    def action_toggle_internal(self) -> None:
        """Show or hide internal items (system prompt, system notes)."""
        self.view.show_internal = not self.view.show_internal

    # --- helpers ----------------------------------------------------------------------------

    def _show_pending(self) -> None:
        rows = [("sending", self._sending)] if self._sending is not None else []
        rows += [("queued", text) for text in self.session.queue]
        self.view.set_pending(rows)

    def _return_queue_to_prompt(self) -> None:
        """Held messages go back to the prompt instead of being sent after a failed turn."""
        if self.session.queue:
            self.prompt.restore("\n\n".join(self.session.queue))
            self.session.queue.clear()
            self._show_pending()

    def _notify_approval(self) -> None:
        pending = self.session.transcript.pending_approvals
        names = ", ".join(item.name or "a tool" for item in pending)
        self.notify(f"Approval needed: the agent wants to run {names}.",
                    title="Approval needed", severity="warning", markup=False)

    def _report(self, message: str, *, title: str = "Error") -> None:
        self.view.add_notice(message, error=True)
        self.notify(message, title=title, severity="error", markup=False)

