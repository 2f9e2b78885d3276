"""Pages of stored messages added to a transcript: the newest page below what is shown,
older pages above it, with the turns that span two pages joined.
"""

from __future__ import annotations

from collections.abc import Iterable

from openletta.api import messages as m
from openletta.transcript.change import Change
from openletta.transcript.handlers import MessageHandlers
from openletta.transcript.shown import part_key
from openletta.transcript.turns import TurnStats


class HistoryPages(MessageHandlers):
    """A transcript that reads history pages (stored messages, oldest first)."""

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
                key = part_key(message)
                if self._first_sight(message) and not self._shown_live(key):
                    self._feed_into(message, change)
                    if key is not None:
                        self._stored_parts.add(key)
            self._close_open(change)
            if prepend:
                self._join_page_turns(page_head, newest_turn, change)
                self._turn = newest_turn
            elif self._turn_looks_finished() and self._turn.live_seconds is None:
                self._end_live_turn(change)  # (a live turn's end read here: the clock times it)
            elif self._turn_looks_finished():
                self._end_turn(change)
        finally:
            self._loading, self._prepend_at, self._open = False, None, live_open
            self._interruption = None
        return change

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

    def _shown_live(self, key: str | None) -> bool:
        """Whether the part ``key`` (see :func:`part_key`) was streamed into this transcript:
        its stored message must not add the text again (e.g. the newest page read after a
        turn)."""
        return key is not None and key in self._by_key and key not in self._stored_parts

    def _first_sight(self, message: m.Message) -> bool:
        """True the first time a stored message is seen (pages may overlap)."""
        identity = (getattr(message, "id", None), message.message_type,
                    getattr(message, "otid", None))
        if identity[0] is None or identity in self._seen_stored:
            return identity[0] is None
        self._seen_stored.add(identity)
        return True
