"""The focus in a chat: Tab from the prompt to the newest item in view, Shift+Tab on to older
ones, Esc back to the prompt, and never on an item out of sight: the part of
:class:`~openletta.ui.screens.chat.ChatScreen` that moves it."""

from __future__ import annotations

from textual.css.query import QueryType
from textual.screen import Screen
from textual.widget import Widget

from openletta.ui.chat_scroll import ChatScroll
from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt
from openletta.ui.widgets.approval import ApprovalPrompt
from openletta.ui.widgets.base import ItemWidget


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

    def on_chat_scroll_moved(self, event: ChatScroll.Moved) -> None:
        """An item with the focus that the view left (a page key, End, the wheel, a stream)
        passes it on to the item in view nearest it (none: to the prompt), so that ``c``,
        Enter and Shift+Tab act on something shown."""
        item = self._focused_item()
        scroll = self.view.scroll
        if item is None or scroll.shows(item):
            return
        in_view = [child for child in scroll.children if isinstance(child, ItemWidget)
                   and child.can_focus and scroll.shows(child)]
        if not in_view:
            self.prompt.focus()
        elif item.virtual_region.bottom <= scroll.scroll_y:  # the view went down
            in_view[0].focus(scroll_visible=False)
        else:
            in_view[-1].focus(scroll_visible=False)

    def _focused_item(self) -> ItemWidget | None:
        """The item of the chat that has the focus, or holds what has it."""
        focused = self.focused
        if focused is None or not self.in_chat(focused):
            return None
        return next((node for node in focused.ancestors_with_self
                     if isinstance(node, ItemWidget)), None)
