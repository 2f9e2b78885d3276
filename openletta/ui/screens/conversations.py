"""``/conversations``: the agent's default thread and its named conversations."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Conversation
from openletta.display import counted, plain_text
from openletta.ui.dates import Clock, time_ago, utc_now
from openletta.ui.key_bar import KeyBar

DEFAULT_THREAD = "default"
#: Conversations listed at a time (more load as the list's end is reached).
PAGE_SIZE = 50
#: The conversation chosen: an id, ``None`` for the default thread. What it returns (the
#: app's worker that opens it) is not used.
OnChoose = Callable[[str | None], object]
#: Sorts before any date.
NEVER = datetime.min.replace(tzinfo=UTC)


def newest_first(page: list[Conversation]) -> list[Conversation]:
    """``page`` by its last message, newest first; a conversation without one yet by when it
    was made (the server lists those last)."""
    return sorted(page, key=lambda conversation: conversation.last_message_at
                  or conversation.created_at or NEVER, reverse=True)


def conversation_row(conversation: Conversation, current: str | None, clock: Clock) -> Text:
    """Summary (or id), last message time, and a mark on the open one."""
    text = Text("● " if conversation.id == current else "  ", style="bold")
    text.append_text(plain_text(conversation.summary or conversation.id, style="bold"))
    when = conversation.last_message_at or conversation.created_at
    text.append(f"  · {time_ago(when, clock())}" if when else "  · no messages yet",
                style="dim")
    return text


class ConversationsScreen(ModalScreen[None]):
    """Pick a conversation of the agent (Enter), start a new one (``n``), or delete one
    (``d``, twice)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new", "New conversation"),
        Binding("d", "delete", "Delete"),
        Binding("escape", "dismiss", "Close"),
    ]

    def __init__(self, client: LettaClient, agent_id: str, current: str | None,
                 on_choose: OnChoose, on_new: Callable[[], object], *,
                 clock: Clock = utc_now) -> None:
        super().__init__()
        self.client = client
        self.agent_id = agent_id
        self.current = current
        self.conversations: list[Conversation] = []
        self._on_choose = on_choose
        self._on_new = on_new
        self._clock = clock
        #: The last page was full: the server may have more.
        self._more = False
        #: Where the server's listing goes on (its last conversation listed).
        self._cursor: str | None = None
        #: The conversation ``d`` was pressed on once: a second ``d`` deletes it.
        self._deleting: Conversation | None = None
        self._list = OptionList(id="conversations-list")
        self._status = Static("Loading conversations…", id="conversations-status")

    def compose(self) -> ComposeResult:
        with Vertical(id="conversations-box"):
            yield Static("Conversations", id="conversations-title")
            yield Static("Enter opens · n starts a new one · d deletes · Esc closes",
                         id="conversations-hint")
            yield self._list
            yield self._status
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="conversations", exit_on_error=False)
    async def load(self) -> None:
        """List the default thread and the agent's conversations, newest first."""
        try:
            page = await self.client.list_conversations(self.agent_id, limit=PAGE_SIZE)
        except LettaError as error:
            self._status.update(plain_text(f"Could not list conversations: {error.message}"))
            return
        self._more, self._cursor = len(page) == PAGE_SIZE, page[-1].id if page else None
        self.conversations = newest_first(page)
        default = Text("● " if self.current is None else "  ", style="bold")
        default.append("Default thread", style="bold")
        default.append("  · the agent's main conversation", style="dim")
        self._list.set_options([
            Option(default, id=DEFAULT_THREAD),
            *(Option(conversation_row(conversation, self.current, self._clock),
                     id=conversation.id) for conversation in self.conversations),
        ])
        open_row = next((row for row, conversation in enumerate(self.conversations, start=1)
                         if conversation.id == self.current), 0)
        self._list.highlighted = open_row  # the conversation open, if on the first page
        self._list.focus()
        self._count()

    @work(exclusive=True, group="conversations", exit_on_error=False)
    async def load_more(self) -> None:
        """List the next page (the user reached the end of the list)."""
        self._more = False
        try:
            page = await self.client.list_conversations(
                self.agent_id, limit=PAGE_SIZE, after=self._cursor)
        except LettaError as error:
            self._status.update(plain_text(f"Could not list more: {error.message}"))
            return
        self._more, self._cursor = len(page) == PAGE_SIZE, page[-1].id if page else None
        page = newest_first(page)
        self.conversations.extend(page)
        self._list.add_options(Option(conversation_row(conversation, self.current, self._clock),
                                      id=conversation.id) for conversation in page)
        self._count()

    def _count(self) -> None:
        count = len(self.conversations)
        more = " (more below)" if self._more else ""
        self._status.update(f"{counted(count, 'other conversation')}{more}"
                            if count else "No other conversation yet: n starts one")

    @on(OptionList.OptionHighlighted, "#conversations-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        # The highlight now, not the event's: events of keys pressed before "d" come after.
        if self._deleting is not None and self._highlighted_conversation() is not self._deleting:
            self._deleting = None
            self._count()
        if self._more and event.option_index >= len(self.conversations):  # the last row
            self.load_more()

    @on(OptionList.OptionSelected, "#conversations-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss()
        self._on_choose(None if event.option_id == DEFAULT_THREAD else event.option_id)

    def action_delete(self) -> None:
        """Ask to delete the highlighted conversation; asked again, delete it."""
        chosen = self._highlighted_conversation()
        if chosen is None:
            self._status.update("The default thread cannot be deleted.")
        elif chosen.id == self.current:
            self._status.update("This is the open conversation: open another one to delete "
                                "it.")
        elif self._deleting is not chosen:
            self._deleting = chosen
            self._status.update(plain_text(
                f"Delete “{chosen.summary or chosen.id}” and its messages from the server? "
                "d again deletes it; anything else keeps it."))
        else:
            self.delete(chosen)

    def _highlighted_conversation(self) -> Conversation | None:
        index = self._list.highlighted
        if index is None or index == 0:  # the default thread
            return None
        return self.conversations[index - 1]

    @work(exclusive=True, group="delete", exit_on_error=False)
    async def delete(self, conversation: Conversation) -> None:
        """Delete ``conversation`` on the server, then from the list."""
        self._deleting = None
        name = conversation.summary or conversation.id
        try:
            await self.client.delete_conversation(conversation.id)
        except LettaError as error:
            self._status.update(plain_text(f"Could not delete “{name}”: {error.message}"))
            return
        index = self.conversations.index(conversation)
        self.conversations.remove(conversation)
        self._list.remove_option_at_index(index + 1)
        self._count()
        self.notify(f"Deleted “{name}”.", title="Conversations")

    def on_key(self, event: events.Key) -> None:
        if self._deleting is not None and event.key != "d":
            self._deleting = None
            self._count()

    def action_new(self) -> None:
        """Start a new conversation with the agent."""
        self.dismiss()
        self._on_new()
