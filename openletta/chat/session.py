"""One open conversation: the client calls of a chat and the transcript they feed.

No Textual and no turn state here: :class:`~openletta.chat.controller.ChatController`
decides when to call these coroutines, and every :class:`Change` goes to the ``on_change``
callback it passes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass

from openletta.api.client import LettaClient, MessageStream
from openletta.api.errors import LettaError
from openletta.api.models import Agent, Message
from openletta.chat.approvals import ApprovalRound, Decision
from openletta.transcript import Change, Transcript

PAGE_SIZE = 50
#: Rows per request when reading a whole thread (export).
EXPORT_PAGE_SIZE = 200
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
    """The agent and conversation being chatted with, its transcript and its history."""

    def __init__(self, client: LettaClient, agent: Agent,
                 conversation_id: str | None = None) -> None:
        self.client = client
        self.agent = agent
        self.conversation_id = conversation_id
        self.transcript = Transcript(footers=True)
        #: Whether the server holds history older than what is loaded.
        self.has_more_history = False
        self._before: str | None = None
        self._stream_open: MessageStream | None = None

    @property
    def turn_open(self) -> bool:
        """True from the moment the server accepted a message until its stream is closed."""
        return self._stream_open is not None

    @property
    def run_id(self) -> str | None:
        """The id of the running (or last) run, once the server has told it."""
        stream = self._stream_open
        stream_run = stream.run_id if stream is not None else None
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

    async def all_messages(self) -> list[Message]:
        """Every stored message of this thread, oldest first (reads all pages)."""
        pages: list[list[Message]] = []
        before: str | None = None
        while True:
            page = await self.client.list_messages(
                self.agent.id, conversation_id=self.conversation_id, before=before,
                limit=EXPORT_PAGE_SIZE)
            pages.append(list(page.messages))
            if not page.has_more or page.before_cursor is None:
                return [message for older in reversed(pages) for message in older]
            before = page.before_cursor

    async def stream_turn(self, text: str, on_change: OnChange) -> TurnOutcome:
        """Send ``text`` and feed the reply into the transcript as it streams.

        Errors before the server accepted the message propagate (nothing was shown). Once the
        turn is open, a broken stream keeps what arrived and is marked as dropped.
        """
        otid = new_otid()
        stream = self.client.send_message(self.agent.id, text, otid=otid,
                                          conversation_id=self.conversation_id)
        return await self._stream(stream, lambda: self.transcript.add_user(text, otid=otid),
                                  on_change)

    async def pending_round(self, on_change: OnChange,
                            auto_approve: Collection[str] = ()) -> ApprovalRound | None:
        """The calls the server holds pending (the authority, not what the stream showed);
        calls of the tools in ``auto_approve`` come already approved."""
        request = await self.client.get_pending_approval(self.agent.id, self.conversation_id)
        held = [call.tool_call_id for call in request.tool_calls] if request else []
        on_change(self.transcript.settle_unheld(held))
        if request is None:
            return None
        if any(self.transcript.call(call_id) is None for call_id in held):
            on_change(self.transcript.feed(request))
        calls = [self.transcript.call(call_id) for call_id in held]
        round_ = ApprovalRound([call for call in calls if call is not None])
        for call in round_.calls:
            if call.name in auto_approve:
                round_.decide(call, Decision(approve=True, auto=True))
        return round_ if round_.calls else None

    async def answer_round(self, round_: ApprovalRound, on_change: OnChange) -> TurnOutcome:
        """Send the decisions of a complete round and stream the agent's continuation."""
        stream = self.client.send_approvals(self.agent.id, round_.answers(),
                                            conversation_id=self.conversation_id)

        decisions = round_.decisions
        return await self._stream(stream, lambda: self.transcript.record_decisions(
            {key: (decision.approve, decision.reason) for key, decision in decisions.items()},
            auto={key for key, decision in decisions.items() if decision.auto}), on_change)

    async def _stream(self, stream: MessageStream, opened: Callable[[], Change],
                      on_change: OnChange) -> TurnOutcome:
        """Open ``stream``; once the server accepted it, show ``opened()`` and feed chunks."""
        async with stream:
            self._stream_open = stream
            on_change(opened())
            try:
                async for message in stream:
                    on_change(self.transcript.feed(message))
            except LettaError as error:
                if self._stream_open is stream:
                    on_change(self.transcript.end_stream("dropped", error.message))
                return TurnOutcome(sent=True, stop_reason="dropped", error=error)
            finally:
                if self._stream_open is stream:
                    self._stream_open = None
        return TurnOutcome(sent=True, stop_reason=self.transcript.stop_reason)

    def interrupt(self) -> Change:
        """Close the open turn as interrupted by the user (what arrived is kept)."""
        if self._stream_open is None:
            return Change()
        self._stream_open = None
        return self.transcript.end_stream("interrupted", INTERRUPTED)

    async def cancel_run(self, run_id: str | None) -> None:
        """Ask the server to stop ``run_id`` (or the agent's active runs)."""
        await self.client.cancel(self.agent.id, conversation_id=self.conversation_id,
                                 run_ids=[run_id] if run_id else None)

    def _remember_page(self, before: str | None, has_more: bool) -> None:
        self._before = before
        self.has_more_history = has_more and before is not None
