"""The focus in a chat: Tab from the prompt to the newest item in view, Shift+Tab on to older
ones, Esc back to the prompt, and never on an item out of sight: the part of
:class:`~openletta.ui.screens.chat.ChatScreen` that moves it."""

from __future__ import annotations

from textual import events
from textual.css.query import QueryType
from textual.screen import Screen
from textual.widget import Widget

from openletta.transcript import UserItem
from openletta.ui.chat_scroll import ChatScroll
from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt, TypedElsewhere
from openletta.ui.widgets.approval import ApprovalPrompt
from openletta.ui.widgets.base import ItemWidget


class FocusInChat(Screen[None]):
    """Moves the focus between the prompt and the items of :attr:`view`."""

    view: ChatView
    prompt: Prompt
    #: Where Alt+↑/↓ went last: the message, and where the view was then.
    _jumped: tuple[Widget | None, float] | None = None

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        """Tab from the prompt goes to the newest item in view, the one nearest it (not to
        the oldest one mounted, far above); Shift+Tab goes on to older ones, Tab back."""
        if self.focused is self.prompt and (newest := self.view.scroll.newest_in_view()):
            newest.focus(scroll_visible=False)
            return newest
        return super().focus_next(selector)

    async def action_jump_prompt(self, direction: int) -> None:
        """Scroll to the user message above (``-1``) or below (``+1``) the top of the view;
        from the bottom, up goes first to the newest message in sight (focused: the view
        cannot bring it to the top)."""
        if direction < 0 and (newest := self._newest_prompt_in_sight()) is not None:
            self._jumped = newest, self.view.scroll.scroll_y
            newest.focus(scroll_visible=False)
            return
        target = self.view.prompt_near(direction)
        if target is not None:
            widget = await self.view.scroll_to_item(target)
            self._jumped = widget, self.view.scroll.scroll_y
        elif direction > 0:
            self.view.action_jump_to_bottom()
        else:
            self.view.show_earlier()

    def _newest_prompt_in_sight(self) -> Widget | None:
        """At the bottom, the newest user message, if it starts below the top line (the view
        cannot scroll it up there) and Alt+↑ did not just go to it."""
        scroll = self.view.scroll
        prompts = [item for item in self.view.mounted_items if isinstance(item, UserItem)]
        widget = self.view.widget_for(prompts[-1]) if prompts else None
        if (widget is None or not widget.display or not scroll.at_bottom
                or widget.virtual_region.y <= scroll.scroll_y):
            return None
        return None if self._jumped == (widget, scroll.scroll_y) else widget

    def action_page(self, direction: int) -> None:
        """Scroll the chat a page up (``-1``) or down (``+1``), wherever the focus is."""
        self.view.page(direction)

    def action_newest(self) -> None:
        """Jump to the newest message and follow the stream again."""
        self.view.action_jump_to_bottom()

    def action_previous_item(self) -> None:
        """Shift+Tab in the chat: what Tab came from (above the first mounted: a page up)."""
        chain = [widget for widget in self.focus_chain if self.in_chat(widget)]
        index = chain.index(self.focused) if self.focused in chain else 0
        if index > 0:
            chain[index - 1].focus()
        else:
            self.view.page(-1)

    def on_paste(self, event: events.Paste) -> None:
        """A paste no text field took (the focus on a message, a card, a memory block) is
        the message's, as typing there is."""
        event.stop()
        if event.text:
            self.post_message(TypedElsewhere("paste", event.text, focus=True))

    def action_back_to_prompt(self) -> None:
        """Esc on an item of the chat (while it stops nothing): back to the prompt."""
        self.prompt.focus()

    def in_chat(self, widget: Widget | None) -> bool:
        """In the chat, but for an approval prompt (a prompt too)."""
        nodes = widget.ancestors_with_self if widget is not None else []
        return self.view.scroll in nodes and not any(isinstance(node, ApprovalPrompt)
                                                     for node in nodes)

    def watch_focused(self, focused: Widget | None) -> None:
        """Keys always reach something: with nothing focused (the item that had the focus
        went with the view: Home, Ctrl+End), an item in view takes it, else the prompt."""
        if focused is None:
            self.call_after_refresh(self._refocus)

    def _refocus(self) -> None:
        if self.focused is None and self.is_current and self.prompt.is_mounted:
            self.focus_in_view(newest=self.view.scroll.at_bottom)

    def focus_in_view(self, *, newest: bool) -> None:
        """Focus the newest (or the oldest) item in view; none in view: the prompt."""
        in_view = self._items_in_view()
        if not in_view:
            self.prompt.focus()
        else:
            in_view[-1 if newest else 0].focus(scroll_visible=False)

    def on_chat_scroll_moved(self, event: ChatScroll.Moved) -> None:
        """An item with the focus that the view left (a page key, End, the wheel, a stream)
        passes it on to the item in view nearest it (none: to the prompt), so that ``c``,
        Enter and Shift+Tab act on something shown."""
        item = self._focused_item()
        scroll = self.view.scroll
        if item is None or scroll.shows(item):
            return
        self.focus_in_view(newest=item.virtual_region.bottom > scroll.scroll_y)

    def _items_in_view(self) -> list[ItemWidget]:
        scroll = self.view.scroll
        return [child for child in scroll.children if isinstance(child, ItemWidget)
                and child.can_focus and scroll.shows(child)]

    def _focused_item(self) -> ItemWidget | None:
        """The item of the chat that has the focus, or holds what has it."""
        focused = self.focused
        if focused is None or not self.in_chat(focused):
            return None
        return next((node for node in focused.ancestors_with_self
                     if isinstance(node, ItemWidget)), None)
