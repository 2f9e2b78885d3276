"""The transcript accumulator: stream chunks and stored messages in, display items out.

One :class:`Transcript` holds the ordered items of a conversation. Live chunks are fed
with :meth:`Transcript.feed`; a history page is added with :meth:`Transcript.load_history`
(newest page) or :meth:`Transcript.prepend_history` (an older page). Every call returns a
:class:`Change` naming the items that were added, changed, moved or removed, so a UI can
update exactly those.

This module adds the live turn (the user's message, a run followed, how a stream ends) to
the layers below it: :mod:`~openletta.transcript.base` (the items and their bookkeeping),
:mod:`~openletta.transcript.handlers` (what each message does, by the rules below),
:mod:`~openletta.transcript.history` (history pages) and :mod:`~openletta.transcript.calls`
(approval answers, calls run here).

Rules (from the wire captures of Letta 0.16.8):

* text deltas group by ``otid``, falling back to ``id`` (reasoning and assistant text of
  one response share ``id`` but not ``otid``);
* tool calls and approval requests group by ``tool_call_id`` (argument fragments are
  concatenated; the first non-null name wins); the approval request of a step carries a
  different ``id`` from the step's reasoning, so ids are never used to pair calls;
* every tool return, including each entry of ``tool_returns[]``, attaches to its call;
* an item is never replaced or dropped once shown; token mode and step mode of the same
  turn give the same items, and so does the same turn read back from history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from openletta.api import messages as m
from openletta.display import pictured_line
from openletta.transcript.calls import CallUpdates
from openletta.transcript.change import Change
from openletta.transcript.interruption import INTERRUPTED_EVENT
from openletta.transcript.items import (
    FOLLOWING_EVENT,
    UNSETTLED_STATUSES,
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    ToolCallItem,
    ToolStatus,
    TurnFooterItem,
    Usage,
    UserItem,
)
from openletta.transcript.shown import StoredParts
from openletta.transcript.turns import TurnStats, opening_prompt

#: Characters of a followed run's prompt named on its divider.
PROMPT_SHOWN = 80


@dataclass
class _DroppedTurn:
    """What :meth:`Transcript.end_stream` did to a turn it closed as dropped."""

    error: ErrorItem
    #: The items that were still receiving deltas.
    open_items: list[Item]
    #: The calls it marked cancelled, with the status each had.
    settled: list[tuple[ToolCallItem, ToolStatus]]


class Transcript(CallUpdates):
    """Ordered display items of one conversation plus the bookkeeping of its last turn."""

    _dropped: _DroppedTurn | None = None
    #: The followed run whose message this client remembers (its bubble, or on its divider).
    _unshown: tuple[str, str] | None = None

    # --- live turn ------------------------------------------------------------------------

    def add_user(self, text: str, otid: str | None = None) -> Change:
        """Start a live turn with the user's message (the server does not echo it)."""
        self.stop_reason, self.usage, self.run_id = None, Usage(), None
        self._followed = self._dropped = self._unshown = None
        self.turn_prompt = text
        change = Change()
        self._close_open(change)
        self._end_turn(change)
        self._turn = TurnStats(live_started=self._clock())
        key = f"user:{otid}" if otid else self._fresh_key("user")
        item = UserItem(key=key, text=text, otid=otid)
        self.first_sent = self.first_sent or item
        self._add(item, change)
        return change

    def follow_run(self, run_id: str, note: str, *, started_ago: float = 0.0,
                   prompt: str | None = None) -> Change:
        """Start showing a run that was going before this transcript followed it (the chat
        opened mid-reply, or another client started it), under an event saying ``note``;
        ``prompt``, the message it answers, if this client sent it, follows as its bubble
        (or is named on the event, when steps of the run are shown already); the run
        began ``started_ago`` seconds ago (its turn's footer counts from then).

        Its stream is fed from the first chunk: what the loaded history already shows of it
        (its finished steps) is skipped, the rest streams in as a live turn.
        """
        self.stop_reason, self.usage, self.run_id = None, Usage(), run_id
        self._followed = StoredParts(self._stored_parts, self._calls)
        self._dropped = None
        change = Change()
        self._close_open(change)
        begun = run_id in self._turn.run_ids  # (its finished steps are shown, from history)
        if self._turn.footer is not None:  # the last turn shown is over: this is a new one
            self._turn = TurnStats()
        self._turn.live_started = self._clock() - max(0.0, started_ago)
        self._turn.streaming = run_id
        self._following = EventItem(key=self._fresh_key("event"), event_type=FOLLOWING_EVENT,
                                    text=note)
        self._add(self._following, change)
        self.turn_prompt = prompt
        self._unshown = (run_id, prompt) if prompt else None
        if prompt and not begun:  # sent from here: its bubble, as when it was sent
            self._add(UserItem(key=self._fresh_key("user"), text=prompt), change)
        elif prompt:  # (a bubble would go below the steps shown: named on the divider)
            self._name_followed(prompt, change)
        return change

    def _shown_as_followed(self, message: m.UserMessage) -> bool:
        """The message that started the run followed here, which this client sent: its bubble
        (or its divider) shows it already, were the turn completed from the run's stored
        messages (its stream broke) or read back from history."""
        unshown = self._unshown
        return unshown is not None and message.run_id is not None \
            and message.run_id == unshown[0]

    def prompt_of_run(self, run_id: str) -> str | None:
        """The message the turn ``run_id`` began answers: a followed run's, as named on its
        divider, or the bubble the turn starts with (``None``: not known here)."""
        shown = self._unshown
        return shown[1] if shown and shown[0] == run_id else opening_prompt(self.items, run_id)

    def name_followed_prompt(self, stored: Iterable[m.Message]) -> Change:
        """The stored messages of the run followed, once it ended: the user's message that
        started it (stored only then, so never shown) is named on its divider, and a page
        of history read later does not add it below the reply."""
        change = Change()
        for message in stored:
            if isinstance(message, m.UserMessage) and self._first_sight(message):
                if self._unshown is None:  # (else named already)
                    self._name_followed(message.content, change)
                break
        return change

    def _name_followed(self, prompt: str, change: Change) -> None:
        """Say on the divider of the run followed that it answers ``prompt``."""
        if self._following is not None and (prompt := pictured_line(prompt)):
            short = prompt if len(prompt) <= PROMPT_SHOWN else prompt[:PROMPT_SHOWN - 1] + "…"
            self._following.text += f" · answering “{short}”"
            change.touch(self._following)

    def reword_event(self, text: str, new_text: str) -> Change:
        """Say ``new_text`` in the newest event item that says ``text`` (what it said is no
        longer true: the agent heard of an interruption)."""
        change = Change()
        for item in reversed(self.items):
            if isinstance(item, EventItem) and item.text == text:
                item.text = new_text
                change.touch(item)
                break
        return change

    def mark_unkept(self, run_id: str) -> Change:
        """Say under the turn that ``run_id`` began that the server kept none of it."""
        change = Change()
        for item in reversed(self.items):
            if isinstance(item, TurnFooterItem) and item.run_ids[:1] == (run_id,):
                item.unkept = True
                change.touch(item)
                break
        return change

    def newest_runs(self) -> tuple[str, ...]:
        """The runs of the newest turn that names them (in its footer), oldest first."""
        return next((item.run_ids for item in reversed(self.items)
                     if isinstance(item, TurnFooterItem) and item.run_ids), ())

    def has_turns(self) -> bool:
        """Whether the thread (as far as it is loaded) holds a turn: a prompt is there."""
        return any(isinstance(item, UserItem) for item in self.items)

    def compacted_since_last_turn(self) -> bool:
        """Whether the newest of the turns and compaction summaries loaded is a summary:
        the context was compacted and nothing was sent since (no turn's count holds)."""
        for item in reversed(self.items):
            if isinstance(item, EventItem) and item.is_summary:
                return True
            if isinstance(item, UserItem | TurnFooterItem):
                return False
        return False

    def set_context_tokens(self, tokens: int, *, replacing: bool = False,
                           estimated: bool = False) -> Change:
        """The context's size, read elsewhere than in a usage: a usage that gave it wins,
        unless this one is ``replacing`` it (the context shrank since: a compaction).
        ``estimated``: the server's estimate, not what a model counted."""
        if self.context_tokens is None or replacing:
            self.context_tokens = tokens
            self.context_estimated = estimated
        return Change()

    def footers_without_tokens(self) -> list[TurnFooterItem]:
        """Footers of turns with runs read from history, whose tokens only those runs know
        (:attr:`TurnFooterItem.unread_runs`)."""
        return [item for item in self.items if isinstance(item, TurnFooterItem)
                and item.key in self._unread_turns]

    def add_run_usage(self, footer: TurnFooterItem, usages: Mapping[str, Usage],
                      spans: Mapping[str, tuple[datetime, datetime]] | None = None) -> Change:
        """Count the usage read from runs of ``footer``'s turn that it lacks (each run once:
        what streamed here, or was read before, is not counted again). Read for the newest
        turn (streamed here in part, or read from history), it joins the usage shown too.
        ``spans``: when those runs began and ended, which time the turn more closely than
        its messages' dates (whole seconds)."""
        change = Change()
        turn = self._unread_turns.get(footer.key)
        if turn is None or not (counted := turn.add_run_tokens(
                {run: usage.total_tokens for run, usage in usages.items()})):
            return change
        known = spans or {}
        turn.run_spans.update({run: known[run] for run in counted if run in known})
        if turn is self._turn:  # the newest turn: its usage is shown, streamed or read
            read = Usage(step_count=turn.steps_of(counted))
            for run in counted:
                read = read.plus(usages[run])
            self.usage = self.usage.plus(read)
        self._end_turn(change, turn)
        return change

    def runs_unreadable(self, footer: TurnFooterItem, runs: Iterable[str]) -> Change:
        """The server cannot tell of ``runs`` of ``footer``'s turn: their tokens are not
        waited for any more (the footer stops saying they are being read)."""
        change = Change()
        if (turn := self._unread_turns.get(footer.key)) is not None:
            turn.unreadable.update(runs)
            self._end_turn(change, turn)
        return change

    def end_stream(self, reason: str, message: str) -> Change:
        """Close a turn that ended without a stop reason: ``interrupted`` or ``dropped``
        (which :meth:`reopen_dropped` can undo)."""
        change = Change()
        open_items = list(self._open)
        unsettled: list[tuple[ToolCallItem, ToolStatus]] = [
            (call, call.status) for call in self._calls.values()
            if call.status in UNSETTLED_STATUSES]
        self._close_open(change)
        self._settle_calls("cancelled", change)
        if reason == "interrupted":
            self.stop_reason = self.stop_reason or "cancelled"
            item: Item = EventItem(key=self._fresh_key("event"),
                                   event_type=INTERRUPTED_EVENT, text=message)
        else:
            item = ErrorItem(key=self._fresh_key("error"), error_type="stream_dropped",
                             message=message)
            self._dropped = _DroppedTurn(item, open_items, unsettled)
        self._add(item, change)
        self._observe_end(self.run_id)
        self._end_live_turn(change)
        return change

    def name_stopped_run(self, run_id: str) -> Change:
        """The run of the newest turn, stopped before its stream named it, learned since
        (from the cancel): the turn's footer names it. A turn that names a run keeps it."""
        change = Change()
        if self._turn.footer is not None and not self._turn.run_ids and self.run_id is None:
            self.run_id = run_id
            self._observe_end(run_id)
            self._end_turn(change)
        return change

    def reopen_dropped(self) -> Change:
        """Open again the turn :meth:`end_stream` last closed as dropped, to go on with its
        reply: its error and footer go, what was streaming streams again. Nothing happens
        once another turn started."""
        change = Change()
        dropped, self._dropped = self._dropped, None
        if dropped is None:
            return change
        for gone in (dropped.error, self._turn.footer):
            if gone is not None and gone in self.items:
                self.items.remove(gone)
                del self._by_key[gone.key]
                change.removed.append(gone)
        self._turn.footer = None
        for item in dropped.open_items:
            if isinstance(item, ReasoningItem | AssistantItem):
                item.done = False
            self._open.append(item)
            change.touch(item)
        for call, status in dropped.settled:
            if call.status is ToolStatus.CANCELLED:
                call.status = status
                change.touch(call)
        return change

    def complete_run(self, messages: Iterable[m.Message], stop_reason: str) -> Change:
        """Finish a live turn whose stream broke from its run's stored messages: what
        streamed in part is completed (the stored text and arguments win), what never
        arrived is added, and the turn ends with the run's ``stop_reason``."""
        change = Change()
        for message in messages:
            if not self._completed_in_place(message, change):
                self._feed_into(message, change)
        self._feed_into(m.StopReason(stop_reason=stop_reason), change)
        return change

    def _completed_in_place(self, message: m.Message, change: Change) -> bool:
        """Give a streamed item its stored text (``True``), or a streamed call its whole
        arguments (``False``: the message is still fed for the rest)."""
        if isinstance(message, m.ReasoningMessage | m.AssistantMessage):
            item = self._by_key.get(f"{message.message_type}:{message.group_key}")
            if isinstance(item, ReasoningItem | AssistantItem):
                item.text = (message.reasoning if isinstance(message, m.ReasoningMessage)
                             else message.content)
                change.touch(item)
                return True
        elif isinstance(message, m.ToolCallMessage | m.ApprovalRequestMessage):
            for call in message.tool_calls:
                item = self._calls.get(call.tool_call_id or "")
                if item is not None and call.arguments:
                    item.arguments_text = call.arguments
        return False

    def apply_stored_returns(self, messages: Iterable[m.Message]) -> Change:
        """After an interrupt: calls the run carried out before it stopped (shown as
        cancelled) get the results it stored."""
        change = Change()
        for message in messages:
            if isinstance(message, m.ToolReturnMessage) and any(
                    result.tool_call_id in self._calls for result in message.tool_returns):
                self._feed_into(message, change)
        return change
