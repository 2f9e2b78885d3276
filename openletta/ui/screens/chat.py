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
from textual.widget import AwaitMount
from textual.widgets import Footer

from openletta.api.errors import APIConnectionError, LettaError
from openletta.transcript import Change, ToolCallItem
from openletta.ui.approvals import CANCELLED_REASON, ApprovalRound, Choice, Decision
from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.screens.leave_approval import LeaveApprovalScreen, LeaveChoice
from openletta.ui.search_bar import SearchBar
from openletta.ui.session import ChatSession, TurnOutcome
from openletta.ui.slash_menu import SlashMenu
from openletta.ui.status_bar import StatusBar, StatusInfo
from openletta.ui.widgets.approval import ApprovalPrompt
from openletta.ui.widgets.tool_card import ToolCallCard

#: Stop reasons after which queued messages are sent.
CLEAN_STOPS = frozenset({"end_turn", "max_steps", "no_tool_call"})
APPROVAL_FIRST = "Answer the pending approval request first; your message is still in the prompt."
APPROVAL_STATE = "approval needed"

PLACEHOLDER = "Message the agent · Enter sends · Ctrl+J new line · / commands · F1 help"
DEMO_PLACEHOLDER = 'Type "help" to see what the demo agent can do · Enter sends · F1 help'

SlashHandler = Callable[[str], bool]


class ChatScreen(Screen[None], ReportsWorkerErrors):
    """Sends prompts, streams replies into the chat view and keeps the status bar current."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Stop", id="chat.interrupt"),
        Binding("ctrl+t", "toggle_internal", "Internal", id="chat.internal"),
        Binding("ctrl+f", "find", "Find", id="chat.find"),
        Binding("ctrl+a", "app.switch_agent", "Agents", priority=True, id="chat.agents"),
        Binding("alt+up", "jump_prompt(-1)", "Previous prompt", show=False, id="chat.prev"),
        Binding("alt+down", "jump_prompt(1)", "Next prompt", show=False, id="chat.next"),
        Binding("pageup", "page(-1)", "Page up", show=False, priority=True, id="chat.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, priority=True,
                id="chat.page_down"),
        Binding("ctrl+end", "newest", "Newest", show=False, priority=True, id="chat.newest"),
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
        #: The approval requests being answered, if the agent waits on any.
        self._round: ApprovalRound | None = None
        self._asking: ApprovalPrompt | None = None
        self._quit_when_answered = False
        #: The last history load error shown, until a load succeeds (the same one is not
        #: shown again each time the user asks).
        self._history_error: str | None = None
        self.view = ChatView(id="chat")
        self.menu = SlashMenu(id="slash-menu")
        self.prompt = Prompt(id="prompt", placeholder=DEMO_PLACEHOLDER if demo else PLACEHOLDER,
                             menu=self.menu)
        self.status = StatusBar(id="status")
        self.search = SearchBar(self.view, lambda: self.session.transcript.items,
                                self._load_earlier_page, id="search-bar")

    def compose(self) -> ComposeResult:
        yield self.view
        yield self.menu
        yield self.search
        yield self.prompt
        yield self.status
        yield Footer()

    def on_mount(self) -> None:
        agent = self.session.agent
        self.status.info = StatusInfo(agent_name=agent.name or agent.id,
                                      conversation=self.session.conversation_id or "",
                                      model=agent.model_name,
                                      state="connected", demo=self._demo,
                                      context_window=agent.context_window)
        self.app.sub_title = agent.name or agent.id
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
        if not await self._load(self.session.load_earlier):
            self.view.earlier_failed()

    @on(ChatView.EarlierRequested)
    def _earlier_requested(self) -> None:
        self.load_earlier()

    async def _load_earlier_page(self) -> bool:
        """Load the next older page now (for search); ``False`` at the beginning or if the
        page could not be loaded."""
        return self.session.has_more_history and await self._load(self.session.load_earlier)

    async def _load(self, load: Callable[[], Awaitable[Change]]) -> bool:
        """Load a page of history and show it; ``False`` (and the error shown) if it failed."""
        try:
            change = await load()
        except LettaError as error:
            message = f"Could not load history: {error.message}"
            if message != self._history_error:
                self._report(message)
            self._history_error = message
            return False
        self._history_error = None
        self.view.apply(change)
        self.view.flush()
        self.view.more_on_server = self.session.has_more_history
        if self.session.transcript.awaiting_approval and self._round is None:
            self.start_approvals()
        return True

    # --- sending ----------------------------------------------------------------------------

    @on(Prompt.Submitted)
    def _submitted(self, event: Prompt.Submitted) -> None:
        text = event.text
        if self._slash is not None and self._slash(text):
            return
        if self.busy:
            self.session.queue.append(text)
            self._show_pending()
        elif self._round is not None or self.session.transcript.awaiting_approval:
            self.prompt.restore(text)
            self.notify(APPROVAL_FIRST, title="Approval pending", severity="warning")
            if self._round is not None and self._asking is None:
                self._ask_next()
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
                        severity="error")
        if outcome.stop_reason == "requires_approval":
            self.start_approvals()
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

    # --- approvals ------------------------------------------------------------------------

    @work(exclusive=True, group="approval", exit_on_error=False)
    async def start_approvals(self) -> None:
        """Ask the server which calls wait for approval, then ask the user about each."""
        try:
            round_ = await self.session.pending_round(self._on_change)
        except LettaError as error:
            self._report(f"Could not read the pending approval request: {error.message}")
            return
        self._round = round_
        if round_ is not None:
            self._ask_next()

    def _ask_next(self, error: str | None = None) -> None:
        """Open the prompt on the first unanswered call, or send the answers when complete."""
        round_ = self._round
        assert round_ is not None
        undecided = round_.undecided
        if not undecided:
            self.answer_round()
            return
        card = self.view.reveal(undecided[0])
        if not isinstance(card, ToolCallCard):
            return
        prompt = ApprovalPrompt(undecided[0], waiting=len(undecided))
        self._asking = prompt
        mounted = card.open_prompt(prompt)
        if error:
            prompt.show_error(error)
        self.call_later(self._focus_prompt, mounted, card, prompt)
        self._show_approval_needed(True)

    async def _focus_prompt(self, mounted: AwaitMount, card: ToolCallCard,
                            prompt: ApprovalPrompt) -> None:
        """Once the prompt is mounted (its card may still be mounting), bring it into view
        and give it the focus."""
        await mounted
        if prompt.is_attached:
            card.scroll_visible(animate=False)
            prompt.focus_choices()

    def _close_prompt(self) -> None:
        if self._asking is not None:
            self._asking.remove()
            self._asking = None
        self.prompt.focus()

    @on(ApprovalPrompt.Answered)
    def _approval_answered(self, event: ApprovalPrompt.Answered) -> None:
        event.stop()
        if event.choice is Choice.ALWAYS_ALLOW:
            self.allow_always(event.prompt)
            return
        self._decide(event.call, event.choice, event.reason)

    def _decide(self, call: ToolCallItem, choice: Choice, reason: str | None = None) -> None:
        round_ = self._round
        if round_ is None:
            return
        approve = Decision(approve=True)
        if choice is Choice.DENY:
            round_.decide(call, Decision(approve=False, reason=reason or None))
        else:
            round_.decide(call, approve)
        if choice is Choice.APPROVE_ALL:
            round_.decide_rest(approve)
        elif choice in (Choice.APPROVE_FOR_SESSION, Choice.ALWAYS_ALLOW):
            self.session.auto_approve.add(call.name)
            round_.decide_rest(Decision(approve=True, auto=True), tool=call.name)
        self._close_prompt()
        self._ask_next()

    @work(group="approval-rule", exit_on_error=False)
    async def allow_always(self, prompt: ApprovalPrompt) -> None:
        """Store "no approval needed" for the tool on the server, then approve the call."""
        call, agent = prompt.call, self.session.agent
        try:
            await self.session.client.set_tool_approval(agent.id, call.name, False)
        except LettaError as error:
            prompt.show_error(f"The server kept the rule: {error.message}")
            return
        self.notify(f"{call.name} no longer needs approval for {agent.name or agent.id}. "
                    "The rule is stored on the server, so it holds in every client.",
                    title="Always allowed")
        self._decide(call, Choice.ALWAYS_ALLOW)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def answer_round(self) -> None:
        """Send the answers of the round and stream what the agent does next."""
        round_ = self._round
        assert round_ is not None
        self.busy = True
        self.set_state("streaming")
        try:
            outcome = await self.session.answer_round(round_, self._on_change)
        except LettaError as error:
            round_.reset()
            self.busy = False
            self._quit_when_answered = False
            self._ask_next(error=f"Not sent: {error.message}")
            return
        finally:
            self.view.flush()
        if self._quit_when_answered:
            self.app.exit()
        self.busy = False
        self._round = None
        self._show_approval_needed(False)
        self._turn_ended(outcome)

    @on(ApprovalPrompt.Dismissed)
    def _approval_dismissed(self, event: ApprovalPrompt.Dismissed) -> None:
        event.stop()
        self.ask_to_leave(quitting=False)

    def ask_to_leave(self, *, quitting: bool) -> bool:
        """If a prompt is open, ask whether to deny it or leave it pending; ``True`` if asked."""
        if self._round is None:
            return False

        def chosen(choice: LeaveChoice | None) -> None:
            if choice is LeaveChoice.DENY and self._round is not None:
                self._quit_when_answered = quitting
                self._round.decide_rest(Decision(approve=False, reason=CANCELLED_REASON))
                self._close_prompt()
                self._ask_next()
            elif choice is LeaveChoice.LEAVE:
                self._close_prompt()
                if quitting:
                    self.app.exit()

        self.app.push_screen(LeaveApprovalScreen(quitting=quitting), chosen)
        return True

    def _show_approval_needed(self, needed: bool) -> None:
        self.set_state(APPROVAL_STATE if needed else "connected")
        name = self.session.agent.name or self.session.agent.id
        self.app.sub_title = f"{APPROVAL_STATE} · {name}" if needed else name

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
                        title="Interrupt", severity="warning")

    # --- other actions ----------------------------------------------------------------------

    def action_find(self) -> None:
        """Open the find bar."""
        self.search.open()

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.prompt.focus()

    async def action_jump_prompt(self, direction: int) -> None:
        """Scroll to the user message above (``-1``) or below (``+1``) the top of the view."""
        target = self.view.prompt_near(direction)
        if target is not None:
            await self.view.scroll_to(target)
        elif direction > 0:
            self.view.action_jump_to_bottom()
        else:
            self.view.show_earlier()

    def action_page(self, direction: int) -> None:
        """Scroll the chat a page up (``-1``) or down (``+1``), wherever the focus is."""
        self.view.page(direction)

    def action_newest(self) -> None:
        """Jump to the newest message and follow the stream again."""
        self.view.action_jump_to_bottom()

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

    def _report(self, message: str, *, title: str = "Error") -> None:
        self.view.add_notice(message, error=True)
        self.notify(message, title=title, severity="error")

