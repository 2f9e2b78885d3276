"""Paging the chat: PageUp and PageDown, with a screenful more mounted first when less than a
page of items is mounted that way (the part of :class:`~openletta.ui.chat_view.ChatView` that
pages)."""

from __future__ import annotations

import asyncio

from textual.containers import Vertical

from openletta.transcript import Item
from openletta.ui.chat_scroll import ChatScroll
from openletta.ui.chat_window import ChatWindow


class ChatPaging(Vertical):
    """Pages the items of :attr:`_scroll`, mounting more of :attr:`_window` as it goes."""

    _scroll: ChatScroll
    _window: ChatWindow[Item]

    def _show_later(self, count: int | None = None) -> asyncio.Event:
        raise NotImplementedError

    def _show_earlier(self, count: int | None = None) -> asyncio.Event:
        raise NotImplementedError

    def show_earlier(self) -> None:
        raise NotImplementedError

    def page(self, direction: int) -> None:
        """Scroll a page up (``-1``) or down (``+1``), as PageUp and PageDown do."""
        self.call_later(self._page_down if direction > 0 else self._page_up)

    async def _page_down(self) -> None:
        """A page down once what mounts below is laid out, a screenful more mounted first if
        less than a page is below the view (the items pruned above do not move it)."""
        if self._window.hidden_below and self._scroll.rows_below < self._scroll.page_height:
            self._show_later(self._window.filling_below)
        await self._scroll.wait_for_mounts()
        self.call_after_refresh(self._scroll.page_down)

    async def _page_up(self) -> None:
        """A page up, a screenful more mounted above first if less than a page is above the
        view; at the very top, the older page of history is asked for."""
        top_line = None
        if self._window.hidden_above and self._scroll.scroll_y < self._scroll.page_height:
            top_line = self._scroll.top_line()
            self._show_earlier(self._window.filling_above)
            await self._scroll.wait_for_mounts()
        elif self._scroll.scroll_y < 1:
            self.show_earlier()
            return
        self.call_after_refresh(self._scroll.page_up, top_line)
