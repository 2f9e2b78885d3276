"""The memory panel and the find bar of the chat: the part of
:class:`~openletta.ui.screens.chat.ChatScreen` that shows them. Each is made, and mounted, the
first time it is asked for (:class:`~openletta.ui.when_shown.MountedWhenShown`): a launch
shows neither, and most runs never open them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.screen import Screen

from openletta.chat.session import ChatSession
from openletta.ui.chat_view import ChatView
from openletta.ui.prompt import Prompt
from openletta.ui.when_shown import MountedWhenShown

if TYPE_CHECKING:
    from openletta.ui.memory_block import BlockView
    from openletta.ui.memory_panel import MemoryPanel
    from openletta.ui.search_bar import SearchBar


class ChatPanels(Screen[None]):
    """Shows the memory panel beside (or above) :attr:`view` and the find bar above
    :attr:`prompt`."""

    session: ChatSession
    view: ChatView
    prompt: Prompt

    def add_panels(self, *, load_earlier: Callable[[], Awaitable[bool]],
                   busy: Callable[[], bool]) -> None:
        """Get the panels ready to be made, once the view and the prompt exist. The find bar
        searches the transcript; ``load_earlier`` loads an older page (``False``: none),
        ``busy`` says whether a turn runs."""
        self._load_earlier, self._busy = load_earlier, busy
        self._memory = MountedWhenShown(self, self._memory_panel, before=self.view)
        self._find_bar = MountedWhenShown(self, self._search_bar, before=self.prompt)

    @property
    def memory(self) -> MemoryPanel | None:
        """The memory panel, once it has been shown."""
        return self._memory.widget

    @property
    def search(self) -> SearchBar | None:
        """The find bar, once it has been opened."""
        return self._find_bar.widget

    async def action_toggle_memory(self) -> None:
        """Show or hide the agent's memory blocks beside (or above) the chat."""
        memory = await self._memory.shown()
        memory.toggle()
        if not memory.display:
            self.prompt.focus()

    async def action_find(self) -> None:
        """Open the find bar."""
        (await self._find_bar.shown()).open()

    # Handlers found by name: the classes of these messages are imported with the widgets.
    def on_block_view_left(self, event: BlockView.Left) -> None:
        self._back_to_prompt(event)

    def on_search_bar_closed(self, event: SearchBar.Closed) -> None:
        self._back_to_prompt(event)

    def _back_to_prompt(self, event: BlockView.Left | SearchBar.Closed) -> None:
        event.stop()
        self.prompt.focus()

    def _memory_panel(self) -> MemoryPanel:
        from openletta.ui.memory_panel import MemoryPanel

        agent = self.session.agent
        return MemoryPanel(self.session.client, agent.id, agent.name or agent.id)

    def _search_bar(self) -> SearchBar:
        from openletta.ui.search_bar import SearchBar

        return SearchBar(self.view, lambda: self.session.transcript.items,
                         self._load_earlier, self._busy, id="search-bar")
