"""The state under a transcript: its items, the indexes that find them again, and the
bookkeeping every operation uses to add items, close the ones still streaming, settle calls
and put footers under turns.

:class:`~openletta.transcript.accumulator.Transcript` builds on it, through
:class:`~openletta.transcript.handlers.MessageHandlers` (what each message does) and
:class:`~openletta.transcript.history.HistoryPages` (pages of stored messages).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container
from datetime import UTC, datetime

from openletta.transcript.change import Change
from openletta.transcript.interruption import TOLD_AT_ONCE, interruption_mark, marked
from openletta.transcript.items import (
    UNSETTLED_STATUSES,
    AssistantItem,
    EventItem,
    Item,
    ReasoningItem,
    ToolCallItem,
    ToolStatus,
    TurnFooterItem,
    Usage,
)
from openletta.transcript.shown import StoredParts
from openletta.transcript.turns import TurnStats

#: Stop reasons after which calls that never returned will not run any more.
CALLS_STAY_PENDING = {"requires_approval"}


class TranscriptBase:
    """Items of one conversation, their indexes, and the state of its newest turn."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *,
                 footers: bool = False) -> None:
        """``footers``: end each finished turn with a :class:`TurnFooterItem`."""
        self.items: list[Item] = []
        self.stop_reason: str | None = None
        self.usage = Usage()
        #: The newest size of the context known (from the last usage that gave one): unlike
        #: :attr:`usage`, kept from turn to turn, so it shows while a turn runs or after one
        #: that was stopped.
        self.context_tokens: int | None = None
        #: Whether :attr:`context_tokens` is the server's estimate (after a compaction, before
        #: any turn counted it), not what the model counted.
        self.context_estimated = False
        self.run_id: str | None = None
        #: Whether the agent runs only the first call of a step (``parallel_tool_calls:
        #: false``): a server call streamed beside the one a stop for approvals asks about
        #: was dropped, and will not run.
        self.one_call_per_step = False
        #: The first message the user sent while this transcript was open (not read from
        #: history): where "what was said here" starts.
        self.first_sent: Item | None = None
        #: The ids of the calls that ran on this machine, in this run or before (their
        #: results, read from history, are marked as this machine's).
        self.calls_run_here: Container[str] = frozenset()
        #: Chunks that were ignored: unknown message types and malformed lines.
        self.ignored = 0
        self._clock = clock
        self._by_key: dict[str, Item] = {}
        self._calls: dict[str, ToolCallItem] = {}
        self._approval_ids: dict[str, list[str]] = {}
        self._open: list[Item] = []
        #: When the newest chunk of each thought streaming live came (by key).
        self._last_chunk: dict[str, float] = {}
        self._seen_stored: set[tuple[str | None, str, str | None]] = set()
        self._stored_parts: set[str] = set()
        #: While a run that started before it was shown is followed: what not to repeat.
        self._followed: StoredParts | None = None
        #: The divider above the run followed last (:meth:`Transcript.follow_run`).
        self._following: EventItem | None = None
        self._last_seq: dict[str | None, int] = {}
        self._last_call_of_group: dict[str, str] = {}
        self._prepend_at: int | None = None
        self._loading = False
        self._serial = 0
        self._footers = footers
        #: The newest turn, and the oldest one known (history pages extend it upwards).
        self._turn = TurnStats()
        self._head_turn = self._turn
        #: The turn each run was first counted in (:meth:`_observe`).
        self._run_turns: dict[str, TurnStats] = {}
        #: The turns whose footers lack some of their runs' tokens, by footer key.
        self._unread_turns: dict[str, TurnStats] = {}
        #: The interruption mark history put under the turn being read, while it may go on.
        self._interruption: EventItem | None = None

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

    def said_here(self) -> list[Item]:
        """The visible items from :attr:`first_sent` on (none if nothing was sent)."""
        items = self.visible_items()
        for index, item in enumerate(items):
            if item is self.first_sent:
                return items[index:]
        return []

    # --- bookkeeping ----------------------------------------------------------------------

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
                item.status = settled_status(item)
            change.touch(item)
        self._open.clear()

    def _settle_calls(self, stop_reason: str, change: Change) -> None:
        """At the end of a turn, calls that did not return will not run: mark them, as
        cancelled if the run was."""
        if stop_reason in CALLS_STAY_PENDING:
            self._hold_server_calls(change)
            return
        status = ToolStatus.CANCELLED if stop_reason == "cancelled" else ToolStatus.NOT_RUN
        for item in self._calls.values():
            if item.status in UNSETTLED_STATUSES:
                item.status = status
                change.touch(item)

    def _hold_server_calls(self, change: Change) -> None:
        """The run stopped for approvals: a call of the server's that asked none is not
        running (it waits with the run; or it was dropped, :attr:`one_call_per_step`)."""
        held = ToolStatus.NOT_RUN if self.one_call_per_step else ToolStatus.WAITING
        for item in self._calls.values():
            if item.status is ToolStatus.RUNNING and not (item.needs_approval or item.runs_here):
                item.status = held
                change.touch(item)

    def _decide(self, item: ToolCallItem, approve: bool, reason: str | None,
                change: Change) -> None:
        item.approved, item.reason = approve, reason
        if not item.status.is_final:
            item.status = ToolStatus.RUNNING if approve else ToolStatus.DENIED
        elif not approve and item.status is ToolStatus.ERROR:
            item.status = ToolStatus.DENIED
        change.touch(item)

    def _mark_interrupted(self, call: ToolCallItem, change: Change) -> None:
        """History read the result of ``call`` that says the user stopped it: its turn
        ended there, and gets the mark it had live (unless it shows one)."""
        if not self._loading or marked(self.items, call):
            return
        self._interruption = interruption_mark(self._fresh_key("event"))
        self._add(self._interruption, change)
        self._turn.interrupted = True

    def _interruption_answered(self, change: Change) -> None:
        """The agent answered the stopped calls in the same turn: the answers went alone,
        as the user quit or left the chat, and the turn ends with the agent's answer (a
        dated message)."""
        if self._interruption is not None:
            self._interruption.text = TOLD_AT_ONCE
            change.touch(self._interruption)
            self._interruption, self._turn.interrupted = None, False

    def _fresh_key(self, prefix: str) -> str:
        self._serial += 1
        return f"{prefix}:#{self._serial}"

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
        if turn.footer.unread_runs:
            self._unread_turns[turn.footer.key] = turn
        else:
            self._unread_turns.pop(turn.footer.key, None)

    def _turn_looks_finished(self) -> bool:
        """History gives no stop reasons: a turn that ends with a complete reply is over."""
        last = self.items[-1] if self.items else None
        return isinstance(last, AssistantItem) and last.done and not self.awaiting_approval

    def _observe_end(self, run_id: str | None) -> None:
        """A stop ended the current turn, maybe before any token: it gets a footer, which
        names ``run_id``."""
        self._turn.observe_end(run_id)
        if run_id:
            self._run_turns.setdefault(run_id, self._turn)

    def _end_live_turn(self, change: Change) -> None:
        if self._turn.live_started is not None:
            self._turn.live_seconds = self._clock() - self._turn.live_started
            self._turn.live_ended = datetime.now(UTC)
        self._end_turn(change)


def settled_status(item: ToolCallItem) -> ToolStatus:
    """Status of a call whose arguments are complete and that has no result yet."""
    if item.approved is False:
        return ToolStatus.DENIED
    if item.needs_approval and item.approved is None:
        return ToolStatus.AWAITING_APPROVAL
    return ToolStatus.RUNNING
