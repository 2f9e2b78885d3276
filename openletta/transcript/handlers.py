"""How each message type changes a transcript: one handler per type, and :meth:`feed`,
which picks it (the grouping rules are listed in :mod:`openletta.transcript.accumulator`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from openletta.api import messages as m
from openletta.transcript.base import CALLS_STAY_PENDING, TranscriptBase, settled_status
from openletta.transcript.change import Change
from openletta.transcript.edits import read_edit_note
from openletta.transcript.interruption import returned_status
from openletta.transcript.items import (
    COMPACTION_SUMMARY,
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    Usage,
    UserItem,
    event_title,
)
from openletta.transcript.packed import compaction_summary, unpack_user_content
from openletta.transcript.turns import TurnStats

_DENIAL_PREFIX = "Error: request to call tool denied."
#: Seconds without a chunk after which a thought that streams is waited for, not thought:
#: such a silence (the server's or the connection's; the status bar says it waits for the
#: agent) adds nothing to the thought's duration.
SILENCE_SECONDS = 1.0


_TextItem = TypeVar("_TextItem", ReasoningItem, AssistantItem)
#: Messages by which the agent goes on with its turn (after the calls' results).
_GOING_ON = (m.ReasoningMessage, m.HiddenReasoningMessage, m.AssistantMessage,
             m.ToolCallMessage, m.ApprovalRequestMessage)


class MessageHandlers(TranscriptBase):
    """Stream chunks and stored messages applied to the transcript, one at a time."""

    def _shown_as_followed(self, message: m.UserMessage) -> bool:
        """Whether ``message`` is the stored message of a run this transcript followed and
        shows already (as its bubble, or named on its divider): not added again."""
        return False

    def feed(self, message: m.Message) -> Change:
        """Apply one stream chunk (or one stored message) and report what changed."""
        change = Change()
        self._feed_into(message, change)
        return change

    def feed_all(self, messages: Iterable[m.Message]) -> Change:
        """Feed several chunks; one change reports what they all did."""
        total = Change()
        for message in messages:
            self._feed_into(message, total)
        return total

    def _feed_into(self, message: m.Message, change: Change) -> None:
        """:meth:`feed`, recording what changed in ``change`` (which may hold more)."""
        seq_id = getattr(message, "seq_id", None)
        if seq_id is not None and self._is_replayed(message, seq_id):
            return
        if self._followed is not None and not self._loading and self._followed.covers(message):
            return
        handler = _HANDLERS.get(type(message))
        if handler is None:
            self.ignored += 1
        else:
            handler(self, message, change)
            self._observe(message)
            if self._interruption is not None and isinstance(message, _GOING_ON):
                self._interruption_answered(change)

    def _observe(self, message: m.Message) -> None:
        """Count ``message`` in the current turn's figures; but a stored message of a run
        that another turn shown here counts (the newest page read again after live turns:
        the result of a call of an earlier turn, say) counts in no other."""
        run = getattr(message, "run_id", None)
        if run and self._loading and self._prepend_at is None:
            owner = self._run_turns.get(run)
            if owner is not None and owner is not self._turn:
                return
        self._turn.observe(message, live=not self._loading)
        if run and run not in self._run_turns and run in self._turn.run_ids:
            self._run_turns[run] = self._turn

    def _is_replayed(self, message: m.Message, seq_id: int) -> bool:
        """True for a chunk a resumed stream delivers again (``seq_id`` not beyond the last)."""
        if isinstance(message, m.ErrorMessage):
            return False
        run = getattr(message, "run_id", None)
        if seq_id <= self._last_seq.get(run, 0):
            return True
        self._last_seq[run] = seq_id
        return False

    # --- handlers -------------------------------------------------------------------------

    def _on_ping(self, message: m.Ping, change: Change) -> None:
        self.run_id = message.run_id or self.run_id

    def _on_reasoning(self, message: m.ReasoningMessage, change: Change) -> None:
        item = self._text_item(message, ReasoningItem, change)
        if reasoning := message.reasoning:
            item.append(reasoning)
            self._touch_text(item, change)

    def _on_hidden_reasoning(self, message: m.HiddenReasoningMessage, change: Change) -> None:
        item = self._text_item(message, ReasoningItem, change)
        item.hidden, item.state = True, message.state or item.state
        if message.hidden_reasoning:
            item.append(message.hidden_reasoning)
        self._touch_text(item, change)

    def _on_assistant(self, message: m.AssistantMessage, change: Change) -> None:
        item = self._text_item(message, AssistantItem, change)
        if content := message.content:
            item.append(content)
            change.touch(item)  # _touch_text times only reasoning

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
                item.status = settled_status(item)
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
            _show_edit(item)
            item.stdout = list(result.stdout or [])
            item.stderr = list(result.stderr or [])
            denied = item.approved is False or (result.tool_return or "").startswith(_DENIAL_PREFIX)
            if denied:
                item.status = ToolStatus.DENIED
            else:
                item.status = returned_status(result.status, result.tool_return)
            if item.status is ToolStatus.CANCELLED:
                self._mark_interrupted(item, change)
            change.touch(item)

    def _on_approval_response(self, message: m.ApprovalResponseMessage, change: Change) -> None:
        for decision in message.approvals:
            call_ids = self._resolve_call_ids(decision.tool_call_id)
            if not call_ids and decision.type == "tool" and decision.tool_call_id:
                # A client's result for a call on an older page, not read yet: keep it on a
                # card of its own until the call is (it names a call, never a message).
                self._new_call(decision.tool_call_id, message, change, orphan=True)
                call_ids = [decision.tool_call_id]
            for call_id in call_ids:
                item = self._calls.get(call_id)
                if item is None:
                    continue
                if decision.type == "tool":
                    item.client_result = True
                    item.ran_here = call_id in self.calls_run_here
                    item.result = decision.tool_return
                    item.status = returned_status(decision.status, decision.tool_return)
                    if item.status is ToolStatus.CANCELLED:
                        self._mark_interrupted(item, change)
                    change.touch(item)
                elif decision.approve is not None:
                    self._decide(item, decision.approve, decision.reason, change)

    def _on_user(self, message: m.UserMessage, change: Change) -> None:
        key = f"user:{message.otid}" if message.otid else f"user:{message.id}"
        if key in self._by_key or self._shown_as_followed(message):
            return
        self._close_open(change)
        self._interruption = None  # (its turn is over)
        subtype, text = unpack_user_content(message.content)
        item: Item
        if subtype == "user_message":
            self._turn.disown(message.run_id)
            if message.run_id and self._run_turns.get(message.run_id) is self._turn:
                del self._run_turns[message.run_id]  # the run is the new turn's
            self._end_turn(change)
            self._turn = TurnStats(started=message.date)
            if self._loading and self._prepend_at is None:  # the newest turn, read here:
                self.usage = Usage()  # its usage is its runs' (:meth:`add_run_usage`)
            item = UserItem(key=key, date=message.date, text=text, otid=message.otid)
        else:  # a note the server stored later: the turn before it is over
            if self._loading and self._turn_looks_finished():
                self._end_turn(change)
            summary = compaction_summary(subtype, text)
            item = (SystemItem(key=key, date=message.date, text=text, subtype=subtype)
                    if summary is None else
                    EventItem(key=key, date=message.date, event_type=COMPACTION_SUMMARY,
                              text=summary))
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
        if message.stop_reason not in CALLS_STAY_PENDING:
            self._end_live_turn(change)

    def _on_usage(self, message: m.UsageStatistics, change: Change) -> None:
        self.usage = self.usage.plus(Usage(
            prompt_tokens=message.prompt_tokens,
            completion_tokens=message.completion_tokens,
            total_tokens=message.total_tokens,
            step_count=message.step_count,
            reasoning_tokens=message.reasoning_tokens,
            cached_input_tokens=message.cached_input_tokens,
            context_tokens=message.context_tokens,
        ))
        if message.context_tokens is not None:
            self.context_tokens = message.context_tokens
            self.context_estimated = False
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
        self._observe_end(message.run_id or self.run_id)
        self._end_live_turn(change)

    # --- helpers --------------------------------------------------------------------------

    def _text_item(
        self, message: m.LettaMessage, cls: type[_TextItem], change: Change
    ) -> _TextItem:
        # message.group_key, spelt out: asked of every chunk
        key = f"{message.message_type}:{message.otid or message.id or ''}"
        item = self._by_key.get(key)
        if isinstance(item, cls):
            return item
        self._close_open(change)
        item = cls(key=key, date=message.date)
        self._add(item, change)
        self._open.append(item)
        if not self._loading:
            self._last_chunk[key] = self._clock()
        return item

    def _touch_text(self, item: ReasoningItem | AssistantItem, change: Change) -> None:
        if isinstance(item, ReasoningItem) and item.key in self._last_chunk:
            now, last = self._clock(), self._last_chunk[item.key]
            self._last_chunk[item.key] = now
            streamed = now - last if now - last < SILENCE_SECONDS else 0.0
            item.duration = (item.duration or 0.0) + streamed
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

    def _resolve_call_ids(self, call_id: str | None) -> list[str]:
        """Tool-call ids a decision refers to; legacy decisions name the request's message id."""
        if call_id is None:
            return []
        if call_id in self._calls:
            return [call_id]
        return self._approval_ids.get(call_id, [])


def _describe_event(message: m.EventMessage) -> str:
    if message.event_type == "compaction":
        data = message.compaction
        tokens, window = data.context_token_estimate, data.context_window
        if tokens and window:
            return f"Compacting context ({tokens:,} of {window:,} tokens)"
        return "Compacting context"
    return event_title(message.event_type or "event")


_Handler = Callable[[MessageHandlers, Any, Change], None]
_M = TypeVar("_M", bound=m.Message)


def _handler(cls: type[_M], method: Callable[[MessageHandlers, _M, Change], None]
             ) -> tuple[type, _Handler]:
    """One :data:`_HANDLERS` entry; checks that ``method`` takes messages of class ``cls``
    (a dict's type cannot tie each value's argument to its key)."""
    return cls, method


def _show_edit(item: ToolCallItem) -> None:
    """A result that says the user edited the call before it ran (read back from history):
    the call shows as it ran, marked edited, with the rest of the result."""
    edit = read_edit_note(item.result or "")
    arguments = item.arguments
    if edit is None or arguments is None or not isinstance(arguments.get(edit.argument), str):
        return
    item.asked_arguments_text = item.arguments_text
    item.arguments_text = json.dumps({**arguments, edit.argument: edit.value})
    item.edited, item.result = True, edit.result


_HANDLERS: dict[type, _Handler] = dict([
    _handler(m.Ping, MessageHandlers._on_ping),
    _handler(m.ReasoningMessage, MessageHandlers._on_reasoning),
    _handler(m.HiddenReasoningMessage, MessageHandlers._on_hidden_reasoning),
    _handler(m.AssistantMessage, MessageHandlers._on_assistant),
    _handler(m.ToolCallMessage, MessageHandlers._on_tool_calls),
    _handler(m.ApprovalRequestMessage, MessageHandlers._on_tool_calls),
    _handler(m.ToolReturnMessage, MessageHandlers._on_tool_return),
    _handler(m.ApprovalResponseMessage, MessageHandlers._on_approval_response),
    _handler(m.UserMessage, MessageHandlers._on_user),
    _handler(m.SystemMessage, MessageHandlers._on_system),
    _handler(m.SummaryMessage, MessageHandlers._on_summary),
    _handler(m.EventMessage, MessageHandlers._on_event),
    _handler(m.StopReason, MessageHandlers._on_stop),
    _handler(m.UsageStatistics, MessageHandlers._on_usage),
    _handler(m.ErrorMessage, MessageHandlers._on_error),
])
