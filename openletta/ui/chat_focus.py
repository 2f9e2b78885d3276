"""The focus in a chat: Tab from the prompt to the newest item in view, Shift+Tab on to older
ones, Esc back to the prompt: the part of :class:`~openletta.ui.screens.chat.ChatScreen`
that moves it."""

from __future__ import annotations

from textual.css.query import QueryType
from textual.screen import Screen
from textual.widget import Widget

from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt
from openletta.ui.widgets.approval import ApprovalPrompt


class FocusInChat(Screen[None]):
    """Moves the focus between the prompt and the items of :attr:`view`."""

    view: ChatView
    prompt: Prompt

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        """Tab from the prompt goes to the newest item in view, the one nearest it (not to
        the oldest one mounted, far above); Shift+Tab goes on to older ones, Tab back."""
        if self.focused is self.prompt and (newest := self.view.scroll.newest_in_view()):
            newest.focus(scroll_visible=False)
            return newest
        return super().focus_next(selector)

    def action_previous_item(self) -> None:
        """Shift+Tab in the chat: what Tab came from (above the first mounted: a page up)."""
        chain = [widget for widget in self.focus_chain if self.in_chat(widget)]
        index = chain.index(self.focused) if self.focused in chain else 0
        if index > 0:
            chain[index - 1].focus()
        else:
            self.view.page(-1)

    def action_back_to_prompt(self) -> None:
        """Esc on an item of the chat (while it stops nothing): back to the prompt."""
        self.prompt.focus()

    def in_chat(self, widget: Widget | None) -> bool:
        """In the chat, but for an approval prompt (a prompt too)."""
        nodes = widget.ancestors_with_self if widget is not None else []
        return self.view.scroll in nodes and not any(isinstance(node, ApprovalPrompt)
                                                     for node in nodes)
