"""``/conversations``: the agent's default thread and its named conversations."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
from openletta.ui.conversation_names import (
    DEFAULT_THREAD_NAME,
    conversation_label,
    quoted_start,
)
from openletta.ui.dates import Clock, time_ago, utc_now
from openletta.ui.first_messages import FirstMessages
from openletta.ui.formatting import short_id
from openletta.ui.hanging import Hanging
from openletta.ui.key_bar import KeyBar
from openletta.ui.widgets.pick_list import PickList

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


def conversation_row(conversation: Conversation, current: str | None, clock: Clock,
                     first_message: str | None = None) -> Hanging:
    """A mark on the open one, then its name (else the start of the user's first message in
    it, else "New conversation", and its short id) and when it was last written in, which
    wrap under the name."""
    mark = Text("● " if conversation.id == current else "  ", style="bold")
    text = plain_text(conversation_label(conversation.summary, first_message), style="bold")
    text.append(f"  · {_when(conversation, clock(), told_apart=bool(first_message))}",
                style="dim")
    if not conversation.summary:
        text.append(f"  · {short_id(conversation.id)}", style="dim")
    return Hanging((mark, text))


def _when(conversation: Conversation, now: datetime, *, told_apart: bool) -> str:
    """When it was last written in; for a "New conversation" (not ``told_apart`` by a name
    or first message), when it was made too."""
    last, made = conversation.last_message_at, conversation.created_at
    if conversation.summary or told_apart:
        return time_ago(last or made, now) if last or made else "no messages yet"
    written = f"last message {time_ago(last, now)}" if last else "no messages yet"
    return f"made {time_ago(made, now)}, {written}" if made else written


def spoken_name(conversation: Conversation, first_message: str | None, clock: Clock) -> str:
    """The conversation in a sentence: ``“its name”``; else ``“its first message”`` or
    ``the conversation made 5 min ago``, with its short id."""
    if conversation.summary:
        return f"“{conversation.summary}”"
    if first_message:
        name = quoted_start(first_message)
    elif conversation.created_at is not None:
        name = f"the conversation made {time_ago(conversation.created_at, clock())}"
    else:
        name = "the conversation"
    return f"{name} ({short_id(conversation.id)})"


class ConversationsScreen(ModalScreen[None]):
    """Pick a conversation of the agent (Enter), start a new one (``n``), or delete one
    (``d``, twice)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new", "New conversation"),
        Binding("d", "delete", "Delete"),
        Binding("escape", "dismiss", "Close"),
    ]

    def __init__(self, client: LettaClient, agent_id: str, current: str | None,
                 first_messages: FirstMessages, on_choose: OnChoose,
                 on_new: Callable[[], object], *, clock: Clock = utc_now) -> None:
        """``first_messages``: the user's first message in each conversation, which stands
        for one without a name (those not known yet are read once listed)."""
        super().__init__()
        self._first_messages = first_messages
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
        self._list = PickList(id="conversations-list")
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
        default = Hanging((Text("● " if self.current is None else "  ", style="bold"),
                           Text.assemble((DEFAULT_THREAD_NAME.capitalize(), "bold"),
                                         ("  · the agent's main conversation", "dim"))))
        self._list.set_options([
            Option(default, id=DEFAULT_THREAD),
            *map(self._option, self.conversations),
        ])
        open_row = next((row for row, conversation in enumerate(self.conversations, start=1)
                         if conversation.id == self.current), 0)
        self._list.highlighted = open_row  # the conversation open, if on the first page
        self._list.focus()
        self._count()
        self.label_unnamed(self.conversations)

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
        self._list.add_options(map(self._option, page))
        self._count()
        self.label_unnamed(page)

    @work(group="first-messages", exit_on_error=False)
    async def label_unnamed(self, listed: Iterable[Conversation]) -> None:
        """Read the first message of each conversation ``listed`` without a name whose one
        is not known (top row first, one request at a time), and show it as its label."""
        for conversation in listed:
            if conversation.summary or self._first_messages.asked(conversation.id):
                continue
            if await self._first_messages.read(self.client, conversation.id) is None:
                continue
            if conversation in self.conversations:  # (not deleted meanwhile)
                self._list.replace_option_prompt(conversation.id,
                                                 self._option(conversation).prompt)

    def _option(self, conversation: Conversation) -> Option:
        row = conversation_row(conversation, self.current, self._clock,
                               self._first_messages.get(conversation.id))
        return Option(row, id=conversation.id)

    def _spoken(self, conversation: Conversation) -> str:
        return spoken_name(conversation, self._first_messages.get(conversation.id), self._clock)

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
                f"Delete {self._spoken(chosen)} and its messages from the server? "
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
        name = self._spoken(conversation)
        try:
            await self.client.delete_conversation(conversation.id)
        except LettaError as error:
            self._status.update(plain_text(f"Could not delete {name}: {error.message}"))
            return
        index = self.conversations.index(conversation)
        self.conversations.remove(conversation)
        self._list.remove_option_at_index(index + 1)
        self._count()
        self.notify(f"Deleted {name}.", title="Conversations")

    def on_key(self, event: events.Key) -> None:
        if self._deleting is not None and event.key != "d":
            self._deleting = None
            self._count()

    def action_new(self) -> None:
        """Start a new conversation with the agent."""
        self.dismiss()
        self._on_new()
