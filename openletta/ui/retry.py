"""Trying a request again, after growing pauses, while the server cannot be reached."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from textual.message_pump import MessagePump
from textual.timer import Timer

from openletta.api import http


class TryAgain:
    """Runs an attempt again on ``owner``'s timers after the pauses of
    :func:`~openletta.api.http.reach_again_pauses` (1, 2, 4… seconds, then every 30 s)."""

    def __init__(self, owner: MessagePump) -> None:
        self._owner = owner
        self._pauses: Iterator[float] | None = None
        self._timer: Timer | None = None

    def later(self, attempt: Callable[[], object]) -> None:
        """Run ``attempt`` after the next pause (in place of one planned)."""
        self.stop()
        self._pauses = self._pauses or http.reach_again_pauses()
        self._timer = self._owner.set_timer(next(self._pauses), attempt)

    def stop(self) -> None:
        """Drop the attempt planned, if any (the pauses go on growing)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def reset(self) -> None:
        """Drop the attempt planned and start the pauses again from the shortest."""
        self.stop()
        self._pauses = None
