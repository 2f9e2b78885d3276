"""The chat screen: the transcript, the prompt and the status bar of one conversation. The
screens it opens (a run's steps, the questions on leaving) are imported as they open, its memory
panel and find bar made as first shown (:mod:`~openletta.ui.chat_panels`): a launch shows none."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import var

from openletta.api.errors import LettaError
from openletta.chat.controller import APPROVAL_FIRST, ChatController
from openletta.chat.local_calls import LocalCalls
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase, Severity, TurnState
from openletta.display import counted
from openletta.recall import SentMessages
from openletta.tools.permissions import PermissionMode
from openletta.transcript import Change, UserItem
from openletta.ui.attention import draw_attention
from openletta.ui.chat_approvals import ChatApprovals
from openletta.ui.chat_focus import FocusInChat
from openletta.ui.chat_view import ChatView
from openletta.ui.completion_menu import CompletionMenu
from openletta.ui.first_messages import FirstMessages
from openletta.ui.key_bar import KeyBar
from openletta.ui.model_watch import WatchesModel
from openletta.ui.prompt import DEMO_PLACEHOLDER, PLACEHOLDER, Prompt
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.sending_title import SENDING, SendingTitle
from openletta.ui.status_bar import StatusBar, StatusInfo
from openletta.ui.textual_internals import FrugalScreen
from openletta.ui.turn_status import STILL_ASKS, YOLO_WARNING, mode_fields, status_state
from openletta.ui.widgets.approval import ApprovalPrompt
from openletta.ui.widgets.footer import TurnFooter

SlashHandler = Callable[[str], bool]


class ChatScreen(FrugalScreen[None], ReportsWorkerErrors, WatchesModel, FocusInChat,
                 ChatApprovals):
    """One conversation on screen: the chat view, the prompt and the status bar. The turn
    state lives in :attr:`controller`; the screen sends it the user's intents and renders what
    it reports (it is the controller's :class:`~openletta.chat.controller.TurnListener`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Stop", id="chat.interrupt"),
        Binding("escape", "back_to_approval", "Answer", id="chat.approval"),
        Binding("escape", "back_to_prompt", "Back to the prompt", id="chat.prompt"),
        Binding("ctrl+t", "toggle_internal", "Internal", id="chat.internal"),
        # (priority: the find bar opens, focused, before the keys read with it are handed on)
        Binding("ctrl+f", "find", "Find", priority=True, id="chat.find"),
        Binding("ctrl+a", "app.switch_agent", "Agents", priority=True, id="chat.agents"),
        Binding("alt+up", "jump_prompt(-1)", "Previous prompt", show=False, id="chat.prev"),
        Binding("alt+down", "jump_prompt(1)", "Next prompt", show=False, id="chat.next"),
        Binding("pageup", "page(-1)", "Page up", show=False, priority=True, id="chat.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, priority=True,
                id="chat.page_down"),
        Binding("ctrl+end", "newest", "Newest", show=False, priority=True, id="chat.newest"),
        Binding("shift+tab", "previous_item", "Previous", id="chat.previous_item"),
        Binding("shift+tab", "switch_mode", "Mode", id="chat.mode"),
        Binding("f2", "toggle_memory", "Memory", id="chat.memory"),
    ]

    AUTO_FOCUS = "#prompt"

    busy = var(False, bindings=True)
    """True while a request is in flight (mirrors the controller's phase, for the bindings;
    a ``var``: a change repaints nothing, where a reactive would repaint the whole screen)."""

    def __init__(self, session: ChatSession, *, demo: bool = False,
                 slash: SlashHandler | None = None, local: LocalCalls | None = None,
                 typed: str = "", recall: SentMessages | None = None,
                 choices: Callable[[str], Sequence[str]] | None = None,
                 first_messages: FirstMessages | None = None) -> None:
        """``local``: tools run here (``None``: none); ``typed``: typed before it opened;
        ``recall``: the messages sent before, for ↑; ``choices``: what the argument of a
        command completes to (:class:`Prompt`); ``first_messages``: those of the run, where
        one not loaded is read."""
        super().__init__()
        self.session, self._typed = session, typed
        self._first_messages = first_messages or FirstMessages()
        self._demo, self._slash = demo, slash
        self.controller = ChatController(session, self, local)
        #: What :meth:`leave_now` does once the answers the user's leaving waited for are sent
        #: (``None``: quit; see :func:`~openletta.ui.screens.leave_approval.stop_before_leaving`).
        self.after_told: Callable[[], None] | None = None
        #: The prompt shown for the call the controller asks about.
        self._asking: ApprovalPrompt | None = None
        #: Whether a request opened now takes keys at once (Esc went to it on purpose).
        self._summon_at_once = False
        self._state_shown = self.controller.state
        #: The last history load error shown, until a load succeeds (not shown twice).
        self._history_error: str | None = None
        #: Held while the runs of turns are read (one read at a time, none cut short).
        self._reading_runs = asyncio.Lock()
        self.view = ChatView(id="chat")
        self.menu = CompletionMenu(id="completion-menu")
        self.prompt = Prompt(id="prompt", placeholder=DEMO_PLACEHOLDER if demo else PLACEHOLDER,
                             menu=self.menu, mentions=local.workspace if local else None,
                             recall=recall, choices=choices)
        self.status = StatusBar(id="status")
        self.sending_title = SendingTitle(self.prompt, self.view)
        self.add_panels(load_earlier=self._load_earlier_page, busy=lambda: self.busy)

    def compose(self) -> ComposeResult:
        yield self.view
        yield self.menu
        yield self.prompt
        yield self.status
        yield KeyBar()

    def on_mount(self) -> None:
        agent = self.session.agent
        self.status.info = StatusInfo(agent_name=agent.name or agent.id,
                                      conversation=self.session.conversation_id or "",
                                      conversation_name=self.session.conversation_name or "",
                                      model=agent.model_name,
                                      state="connected", demo=self._demo,
                                      context_window=agent.context_window,
                                      **mode_fields(self.controller.state.permission_mode,
                                                     self.controller.local))
        if self.controller.state.permission_mode is PermissionMode.YOLO:
            self.notify(YOLO_WARNING, title="YOLO", severity="warning", timeout=15)
        self.app.sub_title = agent.name or agent.id
        self.prompt.insert(self._typed)
        self.load_history()

    # --- history ----------------------------------------------------------------------------

    @work(group="history", exit_on_error=False)
    async def load_history(self) -> None:
        """Load and show the newest page of history, then catch up with the conversation."""
        if await self._load(self.session.load_latest):
            self.controller.opened()
            self.fill_from_runs()
            self.read_first_message()

    @work(group="first-message", exclusive=True, exit_on_error=False)
    async def read_first_message(self) -> None:
        """Read the user's first message from the server (once a run) when it is not among
        the items loaded: what stands for a conversation without a name."""
        session = self.session
        if session.conversation_id is None or not session.has_more_history:
            return
        session.opening_read = await self._first_messages.read(session.client,
                                                               session.conversation_id)
        self.status.show_first_message(session.first_message)

    @work(group="footers", exit_on_error=False)
    async def fill_from_runs(self) -> None:
        """Show what only the runs of turns read from history tell: the context's size, each
        turn's tokens, and whether the newest run ran on another model than the one shown.
        A read asked for while one goes on waits for it, and asks only for what is still
        unknown (the first is not cut short to be made again)."""
        async with self._reading_runs:
            self.model_seen(await self.session.read_context_size(self.transcript_changed))
            await self.session.fill_footer_tokens(
                lambda change: self.transcript_changed(change, arrived=False))

    @work(group="history", exclusive=True, exit_on_error=False)
    async def load_earlier(self) -> None:
        """Load and show the next older page of history."""
        if not await self._load(self.session.load_earlier):
            self.view.earlier_failed()
        else:
            self.fill_from_runs()

    @on(ChatView.EarlierRequested)
    def _earlier_requested(self) -> None:
        self.load_earlier()

    async def _load_earlier_page(self) -> bool:
        """Load the next older page now (for search); ``False`` at the start or on error."""
        if not (self.session.has_more_history and await self._load(self.session.load_earlier)):
            return False
        self.fill_from_runs()
        return True

    async def _load(self, load: Callable[[], Awaitable[Change]]) -> bool:
        """Load a page of history and show it; ``False`` (and the error shown) if it failed."""
        try:
            change = await load()
        except LettaError as error:
            message = f"Could not load history: {error.message}"
            if message != self._history_error:
                self.report(message, title="Error", notice=True)
            self._history_error = message
            return False
        self._history_error = None
        if (local := self.controller.local) is not None:  # (a request pending when left)
            local.place_asked(self.session.transcript, change)
        self.transcript_changed(change, arrived=False)
        self.view.flush()
        self.view.more_on_server = self.session.has_more_history
        return True

    # --- the turn: intents to the controller, its reports rendered ---------------------------

    @on(Prompt.Submitted)
    def _submitted(self, event: Prompt.Submitted) -> None:
        if self._slash is None or not self._slash(event.text):
            self.view.action_jump_to_bottom()  # to follow the message and its answer
            self.controller.submit(event.text)
            self._back_to_approval(at_once=False)  # (the user may type on)

    @on(Prompt.Changed, "#prompt")
    def _typing(self) -> None:
        self.controller.typing()

    def transcript_changed(self, change: Change, *, arrived: bool = True) -> None:
        """Show ``change`` (``arrived``: from the request in flight) and the turn's usage."""
        self.view.apply(change)
        if any(isinstance(item, UserItem) for item in change.added):
            self.view.flush()  # the user's message is whole: shown in the next frame
        if change and arrived:  # (a ping changes nothing: the wait goes on being counted)
            self.status.note_arrival()
        transcript = self.session.transcript
        self.status.show_usage(transcript.usage, transcript.context_tokens,
                               estimated=transcript.context_estimated)
        if change.added or change.prepended or change.removed:  # (not for each word)
            self.status.show_first_message(self.session.first_message)

    def turn_state_changed(self, state: TurnState) -> None:
        before, self._state_shown = self._state_shown, state
        if self.busy and not state.phase.busy:
            self.view.with_next_flush(self._show_state)  # painted with the turn's footer
            self.view.flush()
            if self.memory is not None:
                self.memory.turn_ended()
            self.fill_from_runs()
        self.busy = state.phase.busy
        agent = self.session.agent
        draw_attention(self.app, agent.name or agent.id, before, state)
        if before.offline and not state.offline and self._history_error is not None:
            self.load_earlier()  # the page that could not be read while offline
        self.sending_title.show(None if state.sending is None else (
            "waiting" if state.phase is Phase.WAITING else SENDING, state.sending))
        self.view.set_pending([("queued", text) for text in state.queued])
        self._show_approval(state)
        if state.replying and not before.replying:  # "streaming" shown with the reply
            self.view.with_next_flush(self._show_state)
        else:
            self._show_state()

    def _show_state(self) -> None:
        """Show the turn's newest state in the status bar."""
        state = self._state_shown
        self.status.info = dataclasses.replace(
            self.status.info, state=status_state(state), busy_since=state.busy_since,
            stop_reason=state.stop_reason,
            **mode_fields(state.permission_mode, self.controller.local))

    def report(self, message: str, *, title: str, severity: Severity = "error",
               notice: bool = False) -> None:
        if message == APPROVAL_FIRST:  # on the request it asks (a toast would cover it)
            self.call_later(self._say_on_request, message, title)
            return
        if notice:  # (said in the chat too: the toast need not stay long)
            self.view.add_notice(message, error=severity == "error")
        self.notify(message, title=title, severity=severity,
                    timeout=self.app.NOTIFICATION_TIMEOUT if notice else None)

    def restore_prompt(self, text: str) -> None:
        self.prompt.restore(text)

    def withdraw_prompt(self, text: str) -> None:
        self.prompt.withdraw(text)

    def leave_now(self) -> None:
        (self.after_told or self.app.exit)()

    async def on_unmount(self) -> None:
        await self.controller.close()

    @on(ApprovalPrompt.Dismissed)
    def _approval_dismissed(self, event: ApprovalPrompt.Dismissed) -> None:
        event.stop()
        self.ask_to_leave(quitting=False)

    def ask_to_leave(self, *, quitting: bool) -> bool:
        """Ask what to do with the requests that wait, if any (see
        :func:`~openletta.ui.screens.leave_approval.ask_to_leave`)."""
        from openletta.ui.screens.leave_approval import ask_to_leave

        return ask_to_leave(self, quitting=quitting)

    @property
    def _answer_waits(self) -> bool:
        """Whether a request waits for the user's answer (asked, or left pending)."""
        return not self.busy and (self._asking is not None
                                  or self.controller.state.phase is Phase.AWAITING_APPROVAL)

    # --- interrupting -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":  # shown while idle (what Esc does then), but on an item
            return self.busy or (False if self._answer_waits or self.in_chat(self.focused)
                                 else None)
        if action == "back_to_approval":
            return self._answer_waits
        if action == "back_to_prompt":
            return not self.busy and not self._answer_waits and self.in_chat(self.focused)
        if action == "switch_mode":
            return self.controller.local is not None and not self.in_chat(self.focused)
        if action == "previous_item":
            return self.in_chat(self.focused)
        if action == "copy_text":  # Ctrl+C: the find's match is not the user's selection
            return not (self.search is not None and self.search.highlighting)
        # In a memory block being edited, the page and end keys move in the block.
        return not (action in ("page", "newest") and self.memory is not None
                    and self.memory.editor_focused)

    @on(TurnFooter.Inspect)
    def _inspect_turn(self, event: TurnFooter.Inspect) -> None:
        from openletta.ui.screens.inspect import RunScreen

        event.stop()
        self.app.push_screen(RunScreen(self.session.client, event.run_ids, self.model_seen))

    def on_resize(self) -> None:
        if self.memory is not None:
            self.memory.fit(self.size.width)
        if self._asking is not None and self._asking.has_focus_within:  # what it shows moved
            self.call_after_refresh(self._asking.keep_in_view)

    def action_switch_mode(self) -> None:
        """Go to the next permission mode for local calls (a request waiting keeps asking)."""
        if self.controller.switch_mode() is not None and self.controller.local is not None:
            local, waiting = self.controller.local, self.controller.state.phase
            note = STILL_ASKS if waiting is Phase.AWAITING_APPROVAL else ""
            self.notify(local.permissions.described(local.tools) + note, title="Local tools")

    def action_interrupt(self) -> None:
        """Stop the running turn: keep what arrived, mark it interrupted, cancel the run."""
        self.controller.interrupt()
        self.view.flush()

    # --- other actions ----------------------------------------------------------------------

    @work(exclusive=True, group="oldest", exit_on_error=False)
    async def action_oldest(self) -> None:
        """Home in the chat: the start of the conversation, every older page loaded first."""
        in_chat = self.focused is None or self.in_chat(self.focused)
        while await self._load_earlier_page():
            pass
        for item in self.session.transcript.items:
            if (widget := await self.view.scroll_to_item(item)) is not None and widget.display:
                self.call_after_refresh(self.view.scroll.scroll_home, animate=False)  # its mark
                if in_chat:
                    self.call_after_refresh(self.focus_in_view, newest=False)
                return

    def action_toggle_internal(self) -> None:
        """Show or hide internal items (system prompt, system notes), and say which."""
        self.view.show_internal = shown = not self.view.show_internal
        loaded = sum(item.internal for item in self.session.transcript.items)
        self.notify(f"{'Shown' if shown else 'Hidden'}: the system prompt and system notes, "
                    f"{counted(loaded, 'message') if loaded else 'none'} so far in this chat. "
                    f"Ctrl+T {'hides' if shown else 'shows'} them.", title="Internal messages")
