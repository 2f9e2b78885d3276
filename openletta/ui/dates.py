"""Dates shown to the user: the clock the screens read, and how long ago something was."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, timezone-aware."""
    return datetime.now(UTC)


def time_ago(when: datetime | None, now: datetime) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``2 d ago`` or the date."""
    if when is None:
        return "never"
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = max(0, int((now - when).total_seconds()))
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    if seconds < 30 * 86400:
        return f"{seconds // 86400} d ago"
    return when.date().isoformat()
