"""The requests waiting for the user's answer, on the chat: the part of
:class:`~openletta.ui.screens.chat.ChatScreen` that shows the approval prompt on the card the
controller asks about, brings the user back to it and hands the answer to the controller."""

from __future__ import annotations

from textual import on
from textual.widget import AwaitMount

from openletta.chat.controller import ChatController
from openletta.chat.turn_state import TurnState
from openletta.ui.chat_panels import ChatPanels
from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt, TypedElsewhere
from openletta.ui.widgets.approval import ApprovalPrompt, approval_prompt
from openletta.ui.widgets.tool_card import ToolCallCard


class ChatApprovals(ChatPanels):
    """Shows the request the controller asks about as a prompt on its card."""

    controller: ChatController
    view: ChatView
    prompt: Prompt
    #: The request shown, if any.
    _asking: ApprovalPrompt | None
    #: Whether the request asked next takes keys at once (the user went back to it).
    _summon_at_once: bool

    def _say_on_request(self, message: str, title: str) -> None:
        if self._asking is None:
            self.notify(message, title=title, severity="warning")
        else:
            self._asking.show_note(message)

    def _show_approval(self, state: TurnState) -> None:
        """Show the approval prompt on the card the controller asks about (or none), with
        the number of calls waiting (a rule given for the session may answer some)."""
        asking, prompt = state.asking, self._asking
        if prompt is not None and (prompt.call is not asking or prompt.waiting != state.undecided):
            prompt.remove()
            self._asking = prompt = None
            if asking is None:
                self.prompt.focus()
        if asking is not None and prompt is None:
            card = self.view.reveal(asking)
            if not isinstance(card, ToolCallCard):
                return
            prompt = self._asking = approval_prompt(asking, state.undecided,
                                                    self.controller.local)
            self.call_later(self._focus_prompt, card.open_prompt(prompt), prompt,
                            self._summon_at_once)
        if prompt is not None and state.answer_error and prompt.error != state.answer_error:
            prompt.show_error(state.answer_error)

    async def _focus_prompt(self, mounted: AwaitMount, prompt: ApprovalPrompt,
                            at_once: bool) -> None:
        await mounted  # (its card may still be mounting)
        if prompt.is_attached:
            self._summon(prompt, at_once=at_once)

    def action_back_to_approval(self) -> None:
        """Esc on the message while a call waits for an answer: back to it, which takes
        keys at once (the user went there on purpose)."""
        self._back_to_approval(at_once=True)

    def _back_to_approval(self, *, at_once: bool) -> None:
        """Focus the request waiting for an answer (asked again if it was left pending)."""
        if self._asking is not None:
            self._summon(self._asking, at_once=at_once)
            return
        self._summon_at_once = at_once
        try:
            self.controller.ask_again()
        finally:
            self._summon_at_once = False

    def _summon(self, prompt: ApprovalPrompt, *, at_once: bool) -> None:
        """Focus the request, the memory panel above the chat closed for it to show
        (``at_once``: it takes keys at once)."""
        if self.memory is not None:
            self.memory.make_room()
        prompt.summon(at_once=at_once)

    @on(ApprovalPrompt.Answered)
    def _approval_answered(self, event: ApprovalPrompt.Answered) -> None:
        event.stop()
        self.controller.decide(event.call, event.choice, event.reason, event.edited)

    @on(TypedElsewhere)
    def _typed_elsewhere(self, event: TypedElsewhere) -> None:
        event.stop()
        self.prompt.take_typed(event)
