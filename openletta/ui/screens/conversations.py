"""``/conversations``: the agent's default thread and its named conversations."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Conversation
from openletta.display import plain_text
from openletta.ui.screens.agents import Clock, time_ago, utc_now

DEFAULT_THREAD = "default"
#: The conversation chosen: an id, ``None`` for the default thread. What it returns (the
#: app's worker that opens it) is not used.
OnChoose = Callable[[str | None], object]


def conversation_row(conversation: Conversation, current: str | None, clock: Clock) -> Text:
    """Summary (or id), last message time, and a mark on the open one."""
    text = Text("● " if conversation.id == current else "  ", style="bold")
    text.append_text(plain_text(conversation.summary or conversation.id, style="bold"))
    when = conversation.last_message_at or conversation.created_at
    text.append(f"  · {time_ago(when, clock())}" if when else "  · no messages yet",
                style="dim")
    return text


class ConversationsScreen(ModalScreen[None]):
    """Pick a conversation of the agent (Enter), or start a new one (``n``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new", "New conversation"),
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
        self._list = OptionList(id="conversations-list")
        self._status = Static("Loading conversations…", id="conversations-status")

    def compose(self) -> ComposeResult:
        with Vertical(id="conversations-box"):
            yield Static("Conversations", id="conversations-title")
            yield Static("Enter opens · n starts a new one · Esc closes",
                         id="conversations-hint")
            yield self._list
            yield self._status

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="conversations", exit_on_error=False)
    async def load(self) -> None:
        """List the default thread and the agent's conversations, newest first."""
        try:
            self.conversations = await self.client.list_conversations(self.agent_id)
        except LettaError as error:
            self._status.update(plain_text(f"Could not list conversations: {error.message}"))
            return
        default = Text("● " if self.current is None else "  ", style="bold")
        default.append("Default thread", style="bold")
        default.append("  · the agent's main conversation", style="dim")
        self._list.set_options([
            Option(default, id=DEFAULT_THREAD),
            *(Option(conversation_row(conversation, self.current, self._clock),
                     id=conversation.id) for conversation in self.conversations),
        ])
        self._list.highlighted = 0
        self._list.focus()
        count = len(self.conversations)
        self._status.update(f"{count} named conversation{'s' if count != 1 else ''}" if count
                            else "No other conversation yet: n starts one")

    @on(OptionList.OptionSelected, "#conversations-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss()
        self._on_choose(None if event.option_id == DEFAULT_THREAD else event.option_id)

    def action_new(self) -> None:
        """Start a new conversation with the agent."""
        self.dismiss()
        self._on_new()
