"""The transcript accumulator: stream chunks and stored messages in, display items out.

One :class:`Transcript` holds the ordered items of a conversation. Live chunks are fed
with :meth:`Transcript.feed`; a history page is added with :meth:`Transcript.load_history`
(newest page) or :meth:`Transcript.prepend_history` (an older page). Every call returns a
:class:`Change` naming the items that were added, changed, moved or removed, so a UI can
update exactly those.

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

import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from openletta.api import models as m
from openletta.transcript.items import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    TurnFooterItem,
    Usage,
    UserItem,
)
from openletta.transcript.packed import unpack_user_content
from openletta.transcript.shown import StoredParts, part_key
from openletta.transcript.turns import TurnStats

#: Stop reasons after which calls that never returned will not run any more.
_CALLS_STAY_PENDING = {"requires_approval"}
_DENIAL_PREFIX = "Error: request to call tool denied."
#: Live output of a call run here: parts kept before they are joined, characters kept then.
_LIVE_PARTS = 2000
_LIVE_CHARACTERS = 200_000
_TextItem = TypeVar("_TextItem", ReasoningItem, AssistantItem)


@dataclass
class Change:
    """What one operation did to the transcript, in display order."""

    added: list[Item] = field(default_factory=list)
    changed: list[Item] = field(default_factory=list)
    #: Items inserted at the top (an older history page), in display order.
    prepended: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)

    _reported: set[int] = field(default_factory=set, repr=False)

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.prepended or self.removed)

    def add(self, item: Item) -> None:
        """Record ``item`` as new."""
        self.added.append(item)
        self._reported.add(id(item))

    def touch(self, item: Item) -> None:
        """Record ``item`` as changed unless it is already reported."""
        if id(item) not in self._reported:
            self._reported.add(id(item))
            self.changed.append(item)


class Transcript:
    """Ordered display items of one conversation plus the bookkeeping of its last turn."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *,
                 footers: bool = False) -> None:
        """``footers``: end each finished turn with a :class:`TurnFooterItem`."""
        self.items: list[Item] = []
        self.stop_reason: str | None = None
        self.usage = Usage()
        self.run_id: str | None = None
        #: Chunks that were ignored: unknown message types and malformed lines.
        self.ignored = 0
        self._clock = clock
        self._by_key: dict[str, Item] = {}
        self._calls: dict[str, ToolCallItem] = {}
        self._approval_ids: dict[str, list[str]] = {}
        self._open: list[Item] = []
        self._started: dict[str, float] = {}
        self._seen_stored: set[tuple[str | None, str, str | None]] = set()
        self._stored_parts: set[str] = set()
        #: While a run that started before it was shown is followed: what not to repeat.
        self._followed: StoredParts | None = None
        self._last_seq: dict[str | None, int] = {}
        self._last_call_of_group: dict[str, str] = {}
        self._prepend_at: int | None = None
        self._loading = False
        self._serial = 0
        self._footers = footers
        #: The newest turn, and the oldest one known (history pages extend it upwards).
        self._turn = TurnStats()
        self._head_turn = self._turn

    # --- queries --------------------------------------------------------------------------

    def get(self, key: str) -> Item | None:
        """The item with ``key``, if any."""
        return self._by_key.get(key)

    def call(self, tool_call_id: str) -> ToolCallItem | None:
        """The tool call item for ``tool_call_id``, if any."""
        return self._calls.get(tool_call_id)

    @property
    def pending_approvals(self) -> list[ToolCallItem]:
        """Calls waiting for the user's decision, in display order."""
        return [
            item for item in self.items
            if isinstance(item, ToolCallItem) and item.status is ToolStatus.AWAITING_APPROVAL
        ]

    @property
    def awaiting_approval(self) -> bool:
        return bool(self.pending_approvals)

    def visible_items(self, include_internal: bool = False) -> list[Item]:
        return [item for item in self.items if include_internal or not item.internal]

    # --- live turn ------------------------------------------------------------------------

    def add_user(self, text: str, otid: str | None = None) -> Change:
        """Start a live turn with the user's message (the server does not echo it)."""
        self.stop_reason, self.usage, self.run_id = None, Usage(), None
        self._followed = None
        change = Change()
        self._close_open(change)
        self._end_turn(change)
        self._turn = TurnStats(live_started=self._clock())
        key = f"user:{otid}" if otid else self._fresh_key("user")
        self._add(UserItem(key=key, text=text, otid=otid), change)
        return change

    def follow_run(self, run_id: str, note: str) -> Change:
        """Start showing a run that was going before this transcript followed it (the chat
        opened mid-reply, or another client started it), under an event saying ``note``.

        Its stream is fed from the first chunk: what the loaded history already shows of it
        (its finished steps) is skipped, the rest streams in as a live turn.
        """
        self.stop_reason, self.usage, self.run_id = None, Usage(), run_id
        self._followed = StoredParts(self._stored_parts, self._calls)
        change = Change()
        self._close_open(change)
        if self._turn.footer is not None:  # the last turn shown is over: this is a new one
            self._turn = TurnStats()
        self._turn.live_started = self._clock()
        self._add(EventItem(key=self._fresh_key("event"), event_type="following", text=note),
                  change)
        return change

    def feed(self, message: m.Message) -> Change:
        """Apply one stream chunk (or one stored message) and report what changed."""
        change = Change()
        if self._is_replayed(message):
            return change
        if self._followed is not None and not self._loading and self._followed.covers(message):
            return change
        handler = _HANDLERS.get(type(message))
        if handler is None:
            self.ignored += 1
        else:
            handler(self, message, change)
            self._turn.observe(message)
        return change

    def feed_all(self, messages: Iterable[m.Message]) -> Change:
        """Feed several chunks; the changes are merged."""
        total = Change()
        for message in messages:
            _merge(total, self.feed(message))
        return total

    def record_decisions(
        self, decisions: Mapping[str, tuple[bool, str | None]], *,
        auto: Collection[str] = frozenset(),
    ) -> Change:
        """Record the user's answers to approval requests: ``{tool_call_id: (approve, reason)}``.

        ``auto`` names the calls a client-side rule answered (marked "auto-approved"). Sending
        the answers continues the turn, so the last stop reason, usage and run are reset.
        """
        self.stop_reason, self.usage, self.run_id = None, Usage(), None
        self._followed = None
        change = Change()
        for tool_call_id, (approve, reason) in decisions.items():
            item = self._calls.get(tool_call_id)
            if item is not None:
                self._decide(item, approve, reason, change)
                item.auto_approved = approve and tool_call_id in auto
        return change

    def settle_unheld(self, held: Collection[str]) -> Change:
        """Calls shown as awaiting approval that the server does not hold will never run.

        A model may stream several calls in one step while the agent runs one
        (``parallel_tool_calls: false``): only the ``held`` ids wait for an answer.
        """
        change = Change()
        for item in self.pending_approvals:
            if item.tool_call_id not in held:
                item.status = ToolStatus.CANCELLED
                change.touch(item)
        return change

    def footers_without_tokens(self) -> list[TurnFooterItem]:
        """Footers of turns read from history, whose token count only their runs know."""
        return [item for item in self.items if isinstance(item, TurnFooterItem)
                and item.tokens is None and item.run_ids]

    def set_footer_tokens(self, footer: TurnFooterItem, tokens: int) -> Change:
        """Give a footer from history the token count its runs reported."""
        change = Change()
        if footer.tokens is None and tokens:
            footer.tokens = tokens
            change.touch(footer)
        return change

    # --- calls run here ---------------------------------------------------------------------

    def mark_local(self, tool_call_id: str, preview: str | None) -> Change:
        """The call is of a tool this client runs; ``preview`` shows what it would change."""
        return self._update_call(tool_call_id, runs_here=True, preview=preview)

    def start_local(self, tool_call_id: str) -> Change:
        """A call approved here starts running on this machine."""
        return self._update_call(tool_call_id, status=ToolStatus.RUNNING, approved=True)

    def local_output(self, tool_call_id: str, text: str) -> Change:
        """Output of a call running here, as it comes (the newest part kept when huge)."""
        change = Change()
        if (item := self._calls.get(tool_call_id)) is not None and text:
            item.stdout.append(text)
            if len(item.stdout) > _LIVE_PARTS:
                item.stdout[:] = ["".join(item.stdout)[-_LIVE_CHARACTERS:]]
            change.touch(item)
        return change

    def finish_local(self, tool_call_id: str, result: str, *, ok: bool,
                     stdout: Sequence[str] | None = None) -> Change:
        """A call run here ended with ``result`` (what the agent is told); ``stdout`` is its
        output as sent (in place of what streamed)."""
        status = ToolStatus.SUCCESS if ok else ToolStatus.ERROR
        if stdout is None:
            return self._update_call(tool_call_id, result=result, status=status)
        return self._update_call(tool_call_id, result=result, status=status,
                                 stdout=list(stdout))

    def _update_call(self, tool_call_id: str, **fields: object) -> Change:
        change = Change()
        if (item := self._calls.get(tool_call_id)) is not None:
            for name, value in fields.items():
                setattr(item, name, value)
            change.touch(item)
        return change

    def end_stream(self, reason: str, message: str) -> Change:
        """Close a turn that ended without a stop reason: ``interrupted`` or ``dropped``."""
        change = Change()
        self._close_open(change)
        self._settle_calls("cancelled", change)
        if reason == "interrupted":
            self.stop_reason = self.stop_reason or "cancelled"
            item: Item = EventItem(key=self._fresh_key("event"), event_type="interrupted",
                                   text=message)
        else:
            item = ErrorItem(key=self._fresh_key("error"), error_type="stream_dropped",
                             message=message)
        self._add(item, change)
        self._end_live_turn(change)
        return change

    def complete_run(self, messages: Iterable[m.Message], stop_reason: str) -> Change:
        """Finish a live turn whose stream broke from its run's stored messages: what
        streamed in part is completed (the stored text and arguments win), what never
        arrived is added, and the turn ends with the run's ``stop_reason``."""
        change = Change()
        for message in messages:
            if not self._completed_in_place(message, change):
                _merge(change, self.feed(message))
        _merge(change, self.feed(m.StopReason(stop_reason=stop_reason)))
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
                _merge(change, self.feed(message))
        return change

    # --- history --------------------------------------------------------------------------

    def load_history(self, messages: Iterable[m.Message]) -> Change:
        """Append a chronological page of stored messages (the newest page)."""
        return self._load(messages, prepend=False)

    def prepend_history(self, messages: Iterable[m.Message]) -> Change:
        """Insert an older chronological page above everything shown."""
        change = self._load(messages, prepend=True)
        change.prepended, change.added = change.added, []
        return change

    def _load(self, messages: Iterable[m.Message], *, prepend: bool) -> Change:
        change = Change()
        live_open, self._open = self._open, []
        newest_turn = self._turn
        if prepend:
            self._turn = TurnStats()
        page_head = self._turn
        self._loading, self._prepend_at = True, 0 if prepend else None
        try:
            for message in messages:
                if self._first_sight(message):
                    _merge(change, self.feed(message))
                    if (key := part_key(message)) is not None:
                        self._stored_parts.add(key)
            self._close_open(change)
            if prepend:
                self._join_page_turns(page_head, newest_turn, change)
                self._turn = newest_turn
            elif self._turn_looks_finished():
                self._end_turn(change)
        finally:
            self._loading, self._prepend_at, self._open = False, None, live_open
        return change

    # --- turn footers ---------------------------------------------------------------------

    def _end_turn(self, change: Change, turn: TurnStats | None = None) -> None:
        """Put (or refresh) the footer under ``turn`` (the current one), if it has an answer."""
        turn = turn or self._turn
        if not self._footers or not turn.answered:
            return
        if turn.footer is None:
            turn.footer = TurnFooterItem(key=self._fresh_key("footer"))
            turn.fill(turn.footer)
            self._add(turn.footer, change)
        else:
            turn.fill(turn.footer)
            change.touch(turn.footer)

    def _end_live_turn(self, change: Change) -> None:
        if self._turn.live_started is not None:
            self._turn.live_seconds = self._clock() - self._turn.live_started
        self._end_turn(change)

    def _join_page_turns(self, page_head: TurnStats, newest: TurnStats, change: Change) -> None:
        """An older page's last turn goes on in the oldest turn shown so far: join them.

        When that turn had nothing on the newer pages, it ends where the older page ends.
        """
        head = self._head_turn
        head.absorb_earlier(self._turn)
        if head.footer is not None or head is not newest:
            self._end_turn(change, head)
        if page_head is not self._turn:
            self._head_turn = page_head

    def _turn_looks_finished(self) -> bool:
        """History gives no stop reasons: a turn that ends with a complete reply is over."""
        last = self.items[-1] if self.items else None
        return isinstance(last, AssistantItem) and last.done and not self.awaiting_approval

    # --- handlers -------------------------------------------------------------------------

    def _on_ping(self, message: m.Ping, change: Change) -> None:
        self.run_id = message.run_id or self.run_id

    def _on_reasoning(self, message: m.ReasoningMessage, change: Change) -> None:
        item = self._text_item(message, ReasoningItem, change)
        if message.reasoning:
            item.append(message.reasoning)
            self._touch_text(item, change)

    def _on_hidden_reasoning(self, message: m.HiddenReasoningMessage, change: Change) -> None:
        item = self._text_item(message, ReasoningItem, change)
        item.hidden, item.state = True, message.state or item.state
        if message.hidden_reasoning:
            item.append(message.hidden_reasoning)
        self._touch_text(item, change)

    def _on_assistant(self, message: m.AssistantMessage, change: Change) -> None:
        item = self._text_item(message, AssistantItem, change)
        if message.content:
            item.append(message.content)
            self._touch_text(item, change)

    def _on_tool_calls(
        self, message: m.ToolCallMessage | m.ApprovalRequestMessage, change: Change
    ) -> None:
        approval = isinstance(message, m.ApprovalRequestMessage)
        group = f"{message.message_type}:{message.group_key}"
        for index, call in enumerate(message.tool_calls):
            call_id = call.tool_call_id or self._last_call_of_group.get(group)
            call_id = call_id or f"{group}:{index}"
            self._last_call_of_group[group] = call_id
            item = self._call_item(call_id, message, change)
            if approval:
                item.needs_approval = True
                if message.id:
                    ids = self._approval_ids.setdefault(message.id, [])
                    if call_id not in ids:
                        ids.append(call_id)
            if item.name == "" and call.name:
                item.name = call.name
            if call.arguments:
                if message.is_delta:
                    item.append_arguments(call.arguments)
                elif not item.arguments_text:
                    item.arguments_text = call.arguments
            if not message.is_delta and item.status is ToolStatus.STREAMING:
                item.status = _settled_status(item)
            change.touch(item)

    def _on_tool_return(self, message: m.ToolReturnMessage, change: Change) -> None:
        self._close_open(change)
        for result in message.tool_returns:
            call_id = result.tool_call_id or self._fresh_key("call")
            item = self._calls.get(call_id)
            if item is None:
                item = self._new_call(call_id, message, change, orphan=True)
            item.name = item.name or message.name or ""
            item.result = result.tool_return
            item.stdout = list(result.stdout or [])
            item.stderr = list(result.stderr or [])
            denied = item.approved is False or (result.tool_return or "").startswith(_DENIAL_PREFIX)
            if denied:
                item.status = ToolStatus.DENIED
            else:
                item.status = ToolStatus.ERROR if result.status == "error" else ToolStatus.SUCCESS
            change.touch(item)

    def _on_approval_response(self, message: m.ApprovalResponseMessage, change: Change) -> None:
        for decision in message.approvals:
            for call_id in self._resolve_call_ids(decision.tool_call_id):
                item = self._calls.get(call_id)
                if item is None:
                    continue
                if decision.type == "tool":
                    item.client_result = True
                    item.result = decision.tool_return
                    item.status = (ToolStatus.ERROR if decision.status == "error"
                                   else ToolStatus.SUCCESS)
                    change.touch(item)
                elif decision.approve is not None:
                    self._decide(item, decision.approve, decision.reason, change)

    def _on_user(self, message: m.UserMessage, change: Change) -> None:
        key = f"user:{message.otid}" if message.otid else f"user:{message.id}"
        if key in self._by_key:
            return
        self._close_open(change)
        subtype, text = unpack_user_content(message.content)
        item: Item
        if subtype == "user_message":
            self._end_turn(change)
            self._turn = TurnStats(started=message.date)
            item = UserItem(key=key, date=message.date, text=text, otid=message.otid)
        else:
            item = SystemItem(key=key, date=message.date, text=text, subtype=subtype)
        self._add(item, change)

    def _on_system(self, message: m.SystemMessage, change: Change) -> None:
        key = f"system:{message.id or self._fresh_key('system')}"
        if key not in self._by_key:
            self._add(SystemItem(key=key, date=message.date, text=message.content), change)

    def _on_summary(self, message: m.SummaryMessage, change: Change) -> None:
        self._close_open(change)
        self._add(EventItem(key=self._fresh_key("summary"), date=message.date,
                            event_type="summary", text=message.summary), change)

    def _on_event(self, message: m.EventMessage, change: Change) -> None:
        self._close_open(change)
        self._add(EventItem(key=self._fresh_key("event"), date=message.date,
                            event_type=message.event_type or "event",
                            text=_describe_event(message)), change)

    def _on_stop(self, message: m.StopReason, change: Change) -> None:
        self.stop_reason = message.stop_reason
        self._close_open(change)
        self._settle_calls(message.stop_reason, change)
        if message.stop_reason not in _CALLS_STAY_PENDING:
            self._end_live_turn(change)

    def _on_usage(self, message: m.UsageStatistics, change: Change) -> None:
        self.usage = Usage(
            prompt_tokens=message.prompt_tokens,
            completion_tokens=message.completion_tokens,
            total_tokens=message.total_tokens,
            step_count=message.step_count,
            reasoning_tokens=message.reasoning_tokens,
            cached_input_tokens=message.cached_input_tokens,
            context_tokens=message.context_tokens,
        )
        self._turn.add_usage(message)
        if self._turn.footer is not None:
            self._end_turn(change)

    def _on_error(self, message: m.ErrorMessage, change: Change) -> None:
        self.run_id = message.run_id or self.run_id
        self._close_open(change)
        if self.stop_reason is None:
            self.stop_reason = "error"
        self._settle_calls(self.stop_reason, change)
        self._add(ErrorItem(key=self._fresh_key("error"), error_type=message.error_type,
                            message=message.message, detail=message.detail), change)
        self._end_live_turn(change)

    # --- helpers --------------------------------------------------------------------------

    def _text_item(
        self, message: m.LettaMessage, cls: type[_TextItem], change: Change
    ) -> _TextItem:
        key = f"{message.message_type}:{message.group_key}"
        item = self._by_key.get(key)
        if isinstance(item, cls):
            return item
        self._close_open(change)
        item = cls(key=key, date=message.date)
        self._add(item, change)
        self._open.append(item)
        if not self._loading:
            self._started[key] = self._clock()
        return item

    def _touch_text(self, item: ReasoningItem | AssistantItem, change: Change) -> None:
        if isinstance(item, ReasoningItem) and item.key in self._started:
            item.duration = self._clock() - self._started[item.key]
        change.touch(item)

    def _call_item(self, call_id: str, message: m.LettaMessage, change: Change) -> ToolCallItem:
        item = self._calls.get(call_id)
        if item is None:
            self._close_open(change)
            return self._new_call(call_id, message, change)
        if self._prepend_at is not None and item.key.startswith("orphan:"):
            self._relocate(item, change)
        return item

    def _new_call(self, call_id: str, message: m.LettaMessage, change: Change,
                  *, orphan: bool = False) -> ToolCallItem:
        prefix = "orphan" if orphan else "call"
        item = ToolCallItem(key=f"{prefix}:{call_id}", date=message.date, tool_call_id=call_id)
        self._calls[call_id] = item
        self._add(item, change)
        if not orphan:
            self._open.append(item)
        return item

    def _relocate(self, item: ToolCallItem, change: Change) -> None:
        """Move a call known only from its return (newer page) to where it was made."""
        self.items.remove(item)
        change.removed.append(item)
        assert self._prepend_at is not None
        self.items.insert(self._prepend_at, item)
        self._prepend_at += 1
        change.add(item)

    def _add(self, item: Item, change: Change) -> None:
        self._by_key[item.key] = item
        if self._prepend_at is None:
            self.items.append(item)
        else:
            self.items.insert(self._prepend_at, item)
            self._prepend_at += 1
        change.add(item)

    def _close_open(self, change: Change) -> None:
        """Mark items that were still receiving deltas as complete."""
        for item in self._open:
            if isinstance(item, ReasoningItem | AssistantItem):
                item.done = True
            elif isinstance(item, ToolCallItem) and item.status is ToolStatus.STREAMING:
                item.status = _settled_status(item)
            change.touch(item)
        self._open.clear()

    def _settle_calls(self, stop_reason: str, change: Change) -> None:
        """At the end of a turn, calls that did not return will not run: mark them."""
        if stop_reason in _CALLS_STAY_PENDING:
            return
        for item in self._calls.values():
            if item.status in (ToolStatus.STREAMING, ToolStatus.RUNNING):
                item.status = ToolStatus.CANCELLED
                change.touch(item)

    def _decide(self, item: ToolCallItem, approve: bool, reason: str | None,
                change: Change) -> None:
        item.approved, item.reason = approve, reason
        if not item.status.is_final:
            item.status = ToolStatus.RUNNING if approve else ToolStatus.DENIED
        elif not approve and item.status is ToolStatus.ERROR:
            item.status = ToolStatus.DENIED
        change.touch(item)

    def _resolve_call_ids(self, call_id: str | None) -> list[str]:
        """Tool-call ids a decision refers to; legacy decisions name the request's message id."""
        if call_id is None:
            return []
        if call_id in self._calls:
            return [call_id]
        return self._approval_ids.get(call_id, [])

    def _is_replayed(self, message: m.Message) -> bool:
        """True for a chunk a resumed stream delivers again (``seq_id`` not beyond the last)."""
        seq_id = getattr(message, "seq_id", None)
        if seq_id is None or isinstance(message, m.ErrorMessage):
            return False
        run = getattr(message, "run_id", None)
        if seq_id <= self._last_seq.get(run, 0):
            return True
        self._last_seq[run] = seq_id
        return False

    def _first_sight(self, message: m.Message) -> bool:
        """True the first time a stored message is seen (pages may overlap)."""
        identity = (getattr(message, "id", None), message.message_type,
                    getattr(message, "otid", None))
        if identity[0] is None or identity in self._seen_stored:
            return identity[0] is None
        self._seen_stored.add(identity)
        return True

    def _fresh_key(self, prefix: str) -> str:
        self._serial += 1
        return f"{prefix}:#{self._serial}"


def _settled_status(item: ToolCallItem) -> ToolStatus:
    """Status of a call whose arguments are complete and that has no result yet."""
    if item.approved is False:
        return ToolStatus.DENIED
    if item.needs_approval and item.approved is None:
        return ToolStatus.AWAITING_APPROVAL
    return ToolStatus.RUNNING


def _describe_event(message: m.EventMessage) -> str:
    if message.event_type == "compaction":
        data = message.compaction
        tokens, window = data.context_token_estimate, data.context_window
        if tokens and window:
            return f"Compacting context ({tokens:,} of {window:,} tokens)"
        return "Compacting context"
    return (message.event_type or "event").replace("_", " ").capitalize()


def _merge(total: Change, part: Change) -> None:
    for item in part.added:
        total.add(item)
    total.prepended.extend(part.prepended)
    total.removed.extend(part.removed)
    for item in part.changed:
        total.touch(item)


_HANDLERS: dict[type, Callable[[Transcript, m.Message, Change], None]] = {
    m.Ping: Transcript._on_ping,
    m.ReasoningMessage: Transcript._on_reasoning,
    m.HiddenReasoningMessage: Transcript._on_hidden_reasoning,
    m.AssistantMessage: Transcript._on_assistant,
    m.ToolCallMessage: Transcript._on_tool_calls,
    m.ApprovalRequestMessage: Transcript._on_tool_calls,
    m.ToolReturnMessage: Transcript._on_tool_return,
    m.ApprovalResponseMessage: Transcript._on_approval_response,
    m.UserMessage: Transcript._on_user,
    m.SystemMessage: Transcript._on_system,
    m.SummaryMessage: Transcript._on_summary,
    m.EventMessage: Transcript._on_event,
    m.StopReason: Transcript._on_stop,
    m.UsageStatistics: Transcript._on_usage,
    m.ErrorMessage: Transcript._on_error,
}  # type: ignore[dict-item]
