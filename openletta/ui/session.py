"""One open conversation: the client calls of a chat and the transcript they feed.

No Textual here: the chat screen runs these coroutines in workers and hands every
:class:`Change` to its chat view through the ``on_change`` callback.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from openletta.api.client import LettaClient, MessageStream
from openletta.api.errors import LettaError
from openletta.api.models import Agent
from openletta.transcript import Change, Transcript

PAGE_SIZE = 50
INTERRUPTED = "Interrupted by you"

OnChange = Callable[[Change], None]


@dataclass
class TurnOutcome:
    """How a turn ended: ``sent`` is False when the server never accepted the message."""

    sent: bool
    stop_reason: str | None = None
    error: LettaError | None = None


def new_otid() -> str:
    """A fresh client-side id for an outgoing message."""
    return str(uuid.uuid4())


class ChatSession:
    """The agent and conversation being chatted with, its transcript and queued messages."""

    def __init__(self, client: LettaClient, agent: Agent,
                 conversation_id: str | None = None) -> None:
        self.client = client
        self.agent = agent
        self.conversation_id = conversation_id
        self.transcript = Transcript()
        #: Messages typed while a turn runs, sent one by one when it ends.
        self.queue: deque[str] = deque()
        #: Whether the server holds history older than what is loaded.
        self.has_more_history = False
        self._before: str | None = None
        self._stream: MessageStream | None = None

    @property
    def turn_open(self) -> bool:
        """True from the moment the server accepted a message until its stream is closed."""
        return self._stream is not None

    @property
    def run_id(self) -> str | None:
        """The id of the running (or last) run, once the server has told it."""
        stream_run = self._stream.run_id if self._stream is not None else None
        return stream_run or self.transcript.run_id

    async def load_latest(self) -> Change:
        """Load the newest page of history (plus a pending approval request, if any)."""
        page = await self.client.list_messages(
            self.agent.id, conversation_id=self.conversation_id, limit=PAGE_SIZE)
        self._remember_page(page.before_cursor, page.has_more)
        messages = list(page.messages)
        if self.agent.pending_approval is not None:
            messages.append(self.agent.pending_approval)
        return self.transcript.load_history(messages)

    async def load_earlier(self) -> Change:
        """Insert the next older page of history above what is loaded."""
        if not self.has_more_history:
            return Change()
        page = await self.client.list_messages(
            self.agent.id, conversation_id=self.conversation_id, before=self._before,
            limit=PAGE_SIZE)
        self._remember_page(page.before_cursor, page.has_more)
        return self.transcript.prepend_history(page.messages)

    async def stream_turn(self, text: str, on_change: OnChange) -> TurnOutcome:
        """Send ``text`` and feed the reply into the transcript as it streams.

        Errors before the server accepted the message propagate (nothing was shown). Once the
        turn is open, a broken stream keeps what arrived and is marked as dropped.
        """
        otid = new_otid()
        async with self.client.send_message(self.agent.id, text, otid=otid,
                                            conversation_id=self.conversation_id) as stream:
            self._stream = stream
            on_change(self.transcript.add_user(text, otid=otid))
            try:
                async for message in stream:
                    on_change(self.transcript.feed(message))
            except LettaError as error:
                if self._stream is stream:
                    on_change(self.transcript.end_stream("dropped", error.message))
                return TurnOutcome(sent=True, stop_reason="dropped", error=error)
            finally:
                if self._stream is stream:
                    self._stream = None
        return TurnOutcome(sent=True, stop_reason=self.transcript.stop_reason)

    def interrupt(self) -> Change:
        """Close the open turn as interrupted by the user (what arrived is kept)."""
        if self._stream is None:
            return Change()
        self._stream = None
        return self.transcript.end_stream("interrupted", INTERRUPTED)

    async def cancel_run(self, run_id: str | None) -> None:
        """Ask the server to stop ``run_id`` (or the agent's active runs)."""
        await self.client.cancel(self.agent.id, conversation_id=self.conversation_id,
                                 run_ids=[run_id] if run_id else None)

    def _remember_page(self, before: str | None, has_more: bool) -> None:
        self._before = before
        self.has_more_history = has_more and before is not None
