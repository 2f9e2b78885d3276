"""One open conversation: the client calls of a chat and the transcript they feed.

No Textual and no turn state here: :class:`~openletta.chat.controller.ChatController`
decides when to call these coroutines, and every :class:`Change` goes to the ``on_change``
callback it passes. How a reply's stream is followed (and resumed or taken up when it
breaks) is :class:`~openletta.chat.replies.ReplyStreams`'s part.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openletta.api.client import LettaClient, MessageStream
from openletta.api.errors import LettaError
from openletta.api.history import HistoryPage
from openletta.api.messages import Message, UserMessage
from openletta.api.resources import Agent, Compaction, Run
from openletta.chat.approvals import ApprovalRound, Decision
from openletta.chat.context_size import ContextSize
from openletta.chat.replies import OnChange, OnConnection, ReplyStreams, TurnOutcome, unheard
from openletta.recall import CallsRunHere
from openletta.settings import write_new_private_file
from openletta.transcript import Change, Transcript, Usage, UserItem
from openletta.transcript.export import to_document

PAGE_SIZE = 50
#: Seconds before a run found empty is looked at again, before its turn is said dropped
#: (a server still storing it is not taken for one that dropped it).
UNKEPT_RECHECK_SECONDS = 1.0
#: Rows per request when reading a whole thread (export).
EXPORT_PAGE_SIZE = 200


def newest_page(client: LettaClient, agent_id: str,
                conversation_id: str | None) -> Coroutine[Any, Any, HistoryPage]:
    """The request for the newest page of a thread's history."""
    return client.list_messages(agent_id, conversation_id=conversation_id, limit=PAGE_SIZE)


def new_otid() -> str:
    """A fresh client-side id for an outgoing message."""
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Outgoing:
    """A message of the user's to send, with the client-side id it goes with (which finds it
    on the server after its request broke)."""

    text: str
    otid: str = field(default_factory=new_otid)


class ChatSession(ContextSize, ReplyStreams):
    """The agent and conversation being chatted with, its transcript and its history."""

    def __init__(self, client: LettaClient, agent: Agent, conversation_id: str | None = None,
                 *, requested_page: Awaitable[HistoryPage] | None = None,
                 conversation_name: str | None = None,
                 prompt_of_run: Callable[[str], str] | None = None,
                 calls_run_here: CallsRunHere | None = None) -> None:
        """``requested_page``: the newest page of history, already asked for (at launch);
        ``prompt_of_run``: the message a run answers, as this client remembers it (``""``:
        not known), for a reply that still comes (the server stores it once the run ends);
        ``calls_run_here``: the calls that ran on this machine, in this run or before."""
        super().__init__(client, agent, conversation_id)
        self._calls_run_here = calls_run_here or CallsRunHere("")
        self.transcript.calls_run_here = self._calls_run_here
        #: The conversation's name (its summary on the server), if it has one.
        self.conversation_name = conversation_name
        self._prompt_of_run = prompt_of_run or (lambda _run_id: "")
        self._requested_page = requested_page
        #: Whether the server holds history older than what is loaded.
        self.has_more_history = False
        self._before: str | None = None
        #: Runs whose usage the server could not give (not asked again).
        self._unknown_runs: set[str] = set()
        #: Tools this client runs, declared in every request (``client_tools``).
        self.client_tools: list[dict[str, Any]] = []
        #: The messages queued, never sent, when the chat was last left (kept as its draft).
        self.left_unsent: tuple[str, ...] = ()
        #: The user's first message as read from the server, while it is not loaded.
        self.opening_read: str | None = None

    @property
    def first_message(self) -> str | None:
        """The text of the user's first message in this conversation, once it is known: the
        oldest loaded, when no older history is left on the server; else as read from it
        (:attr:`opening_read`)."""
        if self.has_more_history:
            return self.opening_read
        return next((item.text for item in self.transcript.items
                     if isinstance(item, UserItem)), None)

    async def load_latest(self) -> Change:
        """Load the newest page of history (plus a pending approval request, if any)."""
        requested, self._requested_page = self._requested_page, None
        page = await (requested or newest_page(self.client, self.agent.id, self.conversation_id))
        self._remember_page(page.before_cursor, page.has_more)
        messages = list(page.messages)
        if self.agent.pending_approval is not None:
            messages.append(self.agent.pending_approval)
        return self.transcript.load_history(messages)

    async def read_newest(self) -> HistoryPage:
        """The newest page of the conversation's history, read again."""
        return await newest_page(self.client, self.agent.id, self.conversation_id)

    async def load_earlier(self) -> Change:
        """Insert the next older page of history above what is loaded."""
        if not self.has_more_history:
            return Change()
        page = await self.client.list_messages(
            self.agent.id, conversation_id=self.conversation_id, before=self._before,
            limit=PAGE_SIZE)
        self._remember_page(page.before_cursor, page.has_more)
        return self.transcript.prepend_history(page.messages)

    async def fill_footer_tokens(self, on_change: OnChange) -> None:
        """Give the turn footers their token counts, from the usage of their runs read from
        history (history itself has none), newest first (the footers in view at the end of
        the chat); a run the server cannot tell about is skipped."""
        for footer in reversed(self.transcript.footers_without_tokens()):
            runs = footer.unread_runs
            if unknown := self._unknown_runs.intersection(runs):
                on_change(self.transcript.runs_unreadable(footer, unknown))
                continue
            try:  # each run's usage and span, read at once
                usages, spans = await asyncio.gather(
                    asyncio.gather(*(self.client.get_run_usage(run_id) for run_id in runs)),
                    asyncio.gather(*(self._run_span(run_id) for run_id in runs)))
            except LettaError:
                self._unknown_runs.update(runs)
                on_change(self.transcript.runs_unreadable(footer, runs))
                continue
            on_change(self.transcript.add_run_usage(footer, {
                run_id: Usage(prompt_tokens=usage.prompt_tokens,
                              completion_tokens=usage.completion_tokens,
                              total_tokens=usage.total_tokens)
                for run_id, usage in zip(runs, usages, strict=True)},
                {run_id: span for run_id, span in zip(runs, spans, strict=True) if span}))

    async def _run_span(self, run_id: str) -> tuple[datetime, datetime] | None:
        """When the run began and ended, to the microsecond (``None``: not known)."""
        try:
            run = await self.client.get_run(run_id)
        except LettaError:
            return None
        if run.created_at is None or run.completed_at is None:
            return None
        return run.created_at, run.completed_at

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

    async def export_markdown(self, name: str, target: Path) -> int:
        """Write the whole thread (every page) to ``target`` as Markdown titled ``name`` (and
        the conversation's name); returns how many messages it holds, and writes nothing
        when that is none. Never replaces a file: raises :class:`FileExistsError` when
        ``target`` exists, other :class:`OSError` or :class:`LettaError` when writing or
        reading fails."""
        transcript = Transcript()
        transcript.load_history(await self.all_messages())
        title = f"{name} · {self.conversation_name}" if self.conversation_name else name
        document = to_document(transcript.visible_items(), title)
        if document.messages:
            await asyncio.to_thread(write_new_private_file, target, document.markdown)
        return document.messages

    async def compact(self, on_change: OnChange) -> Compaction:
        """Have the server summarise the thread's older messages, then show what it stored
        (the summary, on the newest page) and the context's new size: the server's
        estimate, as when the thread is opened again before any turn (see
        :mod:`~openletta.chat.context_size`). Raises :class:`LettaError`."""
        done = await self.client.compact(self.agent.id, self.conversation_id)
        page = await newest_page(self.client, self.agent.id, self.conversation_id)
        on_change(self.transcript.load_history(page.messages))
        await self.show_estimated_context(on_change)
        return done

    async def switch_model(self, model: str) -> Agent:
        """Make the agent run on ``model`` (a handle); the agent as it is now. Raises
        :class:`LettaError`."""
        self._take_model(await self.client.set_agent_model(self.agent.id, model))
        return self.agent

    async def reread_agent(self) -> bool:
        """Read the agent's model again (another client may have changed it); whether what
        is shown of it (its handle, its context window) changed. Raises
        :class:`LettaError`."""
        before = self.agent
        self._take_model(await self.client.get_agent(self.agent.id, pending_approval=False))
        return ((self.agent.model_name, self.agent.context_window)
                != (before.model_name, before.context_window))

    def _take_model(self, updated: Agent) -> None:
        """The agent runs on ``updated``'s model."""
        self.agent = self.agent.model_copy(update={"model": updated.model,
                                                   "llm_config": updated.llm_config})
        self.transcript.one_call_per_step = self.agent.runs_one_call_per_step

    async def stream_turn(self, text: str, on_change: OnChange,
                          on_connection: OnConnection = unheard, *,
                          otid: str | None = None) -> TurnOutcome:
        """Send ``text`` (with ``otid``, or a fresh one) and feed the reply into the
        transcript as it streams.

        Errors before the server accepted the message propagate (nothing was shown). Once the
        turn is open, a broken stream is resumed (:meth:`_follow`); if that fails, what
        arrived is kept and marked as dropped.
        """
        otid = otid or new_otid()

        def send(background: bool) -> MessageStream:
            return self.client.send_message(self.agent.id, text, otid=otid,
                                            conversation_id=self.conversation_id,
                                            background=background,
                                            client_tools=self.client_tools)

        def opened() -> Change:
            return self.transcript.add_user(text, otid=otid)

        stream = await self._accepted(send, on_connection, opened, otid)
        return await self._follow(stream, opened, on_change, on_connection, otid)

    async def pending_round(self, on_change: OnChange,
                            auto_approve: Collection[str] = ()) -> ApprovalRound | None:
        """The calls the server holds pending (the authority, not what the stream showed);
        calls of the tools in ``auto_approve`` come already approved."""
        request = await self.client.get_pending_approval(self.agent.id, self.conversation_id)
        ids = [call.tool_call_id for call in request.tool_calls] if request else []
        held = [call_id for call_id in ids if call_id is not None]
        on_change(self.transcript.settle_unheld(held))
        if request is None:
            return None
        # A call without an id is never in the transcript (nor answerable): feed it all the same.
        if len(held) < len(ids) or any(self.transcript.call(call_id) is None for call_id in held):
            on_change(self.transcript.feed(request))
        calls = [self.transcript.call(call_id) for call_id in held]
        round_ = ApprovalRound([call for call in calls if call is not None])
        for call in round_.calls:
            if call.name in auto_approve:
                round_.decide(call, Decision(approve=True, auto=True))
        return round_ if round_.calls else None

    async def answer_round(self, round_: ApprovalRound, on_change: OnChange,
                           on_connection: OnConnection = unheard, *,
                           then_text: str | None = None, otid: str | None = None
                           ) -> TurnOutcome:
        """Send the decisions of a complete round and stream the agent's continuation.
        ``then_text``: a message of the user's, sent with them (the agent answers it), with
        ``otid`` (or a fresh one)."""
        decisions = round_.decisions
        otid = (otid or new_otid()) if then_text is not None else None
        self._calls_run_here.ran({call.tool_call_id: call.name for call in round_.calls
                                  if call.tool_call_id in round_.results})

        def send(background: bool) -> MessageStream:
            return self.client.send_approvals(self.agent.id, round_.answers(),
                                              conversation_id=self.conversation_id,
                                              background=background,
                                              client_tools=self.client_tools,
                                              then_text=then_text, otid=otid)

        def opened() -> Change:
            taken = {key: decision for key, decision in decisions.items() if not decision.refused}
            change = self.transcript.record_decisions(
                {key: (decision.approve, decision.reason) for key, decision in taken.items()},
                auto={key for key, decision in taken.items() if decision.auto})
            if then_text is None:
                return change
            on_change(change)
            return self.transcript.add_user(then_text, otid=otid)

        stream = await self._accepted(send, on_connection, opened, otid)
        return await self._follow(stream, opened, on_change, on_connection, otid)

    async def follow_run(self, run: Run, note: str, on_change: OnChange,
                         on_connection: OnConnection = unheard) -> TurnOutcome | None:
        """Stream a run that was already going, from its start, under an event saying
        ``note`` (what history shows of it is not repeated). ``None`` when the server keeps
        no stream of it (a foreground run): :meth:`catch_up` shows it once it ended."""
        if not run.background:
            return None
        stream = self.client.resume_stream(run.id, 0)
        try:
            await stream.open()
        except LettaError:
            await stream.aclose()
            return None
        started_ago = (datetime.now(UTC) - run.created_at).total_seconds() if run.created_at \
            else 0.0
        prompt = self._prompt_of_run(run.id) or None
        outcome = await self._follow(stream, lambda: self.transcript.follow_run(
            run.id, note, started_ago=started_ago, prompt=prompt), on_change, on_connection)
        with contextlib.suppress(LettaError):  # (the divider then goes without it)
            on_change(self.transcript.name_followed_prompt(
                await self.client.list_run_messages(run.id)))
        return outcome

    async def catch_up(self, run: Run, on_change: OnChange) -> str | None:
        """Wait for ``run`` to end (for up to :data:`RUN_WAIT_SECONDS`), then show what it
        stored (the newest page of history, added below what is shown); its stop reason."""
        ended = await self._until_finished(run.id)
        page = await self.client.list_messages(
            self.agent.id, conversation_id=self.conversation_id, limit=PAGE_SIZE)
        on_change(self.transcript.load_history(page.messages))
        return ended.stop_reason

    async def show_if_sent(self, otid: str, on_change: OnChange) -> bool:
        """Whether the server has the message sent with ``otid`` (a send whose connection
        broke); if it has, the newest page of history is shown (below what is), which holds
        it and what the agent answered. Raises :class:`LettaError`."""
        return await self.show_if_stored(
            lambda message: isinstance(message, UserMessage) and message.otid == otid,
            on_change)

    async def show_if_stored(self, stored: Callable[[Message], bool],
                             on_change: OnChange) -> bool:
        """Whether the newest page of history holds a message that is ``stored``; if it
        does, that page is shown (below what is). Raises :class:`LettaError`."""
        page = await newest_page(self.client, self.agent.id, self.conversation_id)
        if not any(stored(message) for message in page.messages):
            return False
        on_change(self.transcript.load_history(page.messages))
        return True

    async def cancel_run(self, run_id: str | None, on_change: OnChange) -> str | None:
        """Ask the server to stop ``run_id`` (or the conversation's active runs: the one it
        names is the run of a turn Esc stopped before its stream named it); then the calls
        it ran before it stopped get their results (Esc marked them cancelled). Returns
        the message to give back, as :meth:`note_if_unkept` does."""
        cancelled = await self.client.cancel(self.agent.id, conversation_id=self.conversation_id,
                                             run_ids=[run_id] if run_id else None)
        if run_id is None:
            if not self._stopped_unnamed or len(cancelled) != 1:
                return None
            self._stopped_unnamed = False
            (run_id,) = cancelled
            on_change(self.transcript.name_stopped_run(run_id))
        try:
            stored = await self.client.list_run_messages(run_id)
        except LettaError:
            return None  # the cards stay "cancelled" until the history is read again
        on_change(self.transcript.apply_stored_returns(stored))
        return await self.note_if_unkept(run_id, on_change, checked=True) if not stored else None

    async def note_if_unkept(self, run_id: str, on_change: OnChange, *,
                             checked: bool = False) -> str | None:
        """Say under the turn that ``run_id`` began when the server kept none of it: Letta
        drops a cancelled or failed run whole, the user's message too, so the agent will
        not see it. ``checked``: the run was already found empty once. Returns the message
        of such a turn (live or followed), for the prompt to get it back: it was not sent."""
        for pause in ((UNKEPT_RECHECK_SECONDS,) if checked else (0.0, UNKEPT_RECHECK_SECONDS)):
            await asyncio.sleep(pause)
            try:
                if await self.client.list_run_messages(run_id):
                    return None
            except LettaError:
                return None
        on_change(self.transcript.mark_unkept(run_id))
        return self.transcript.prompt_of_run(run_id)

    def reply_in_flight(self) -> tuple[str, str] | None:
        """The run of the reply coming now and the message it answers, when both are known:
        a chat left meanwhile keeps them (the server stores the message once the run ends)."""
        run_id, prompt = self.run_id, self.transcript.turn_prompt
        return (run_id, prompt) if self.turn_open and run_id and prompt else None

    async def show_finished_run(self, run_id: str, stop_reason: str | None,
                                on_change: OnChange) -> None:
        """Show in full the turn of ``run_id``, which finished on the server after it was
        shown as interrupted here. Raises :class:`LettaError`."""
        stored = await self.client.list_run_messages(run_id)
        on_change(self.transcript.complete_run(stored, stop_reason or "end_turn"))

    def _remember_page(self, before: str | None, has_more: bool) -> None:
        self._before = before
        self.has_more_history = has_more and before is not None
