"""One page of message history, put in chronological order.

The history endpoints disagree on order: ``GET /v1/agents/{id}/messages`` returns its
newest rows oldest-first, ``GET /v1/conversations/{id}/messages`` newest-first, and both
keep the parts of one database row (reasoning, text, tool call; they share an ``id``) in
their natural order. Dates have one-second resolution, so several turns often share a
timestamp and sorting by date alone (or by date and message type) would interleave them.

So a page is cut into rows (runs of items with one ``id``), the rows are turned oldest-first
(the direction read from the dates when they differ, else the endpoint's known order), then
stably sorted by date, which keeps the server's order among equal timestamps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openletta.api.messages import Message, parse_message


@dataclass
class HistoryPage:
    """Messages of one page, oldest first, and the cursor of the page before it."""

    messages: list[Message]
    #: Pass as ``before`` to get the previous (older) page; ``None`` when there is none.
    before_cursor: str | None
    has_more: bool


def history_page(raw: Iterable[Any], *, limit: int, newest_first: bool) -> HistoryPage:
    """A :class:`HistoryPage` from an endpoint's JSON array.

    ``limit`` is the number of database rows asked for (a row can expand to several
    messages), ``newest_first`` the order the endpoint is known to use.
    """
    messages = _deduplicated(parse_message(entry) for entry in raw)
    rows = chronological_rows(_rows(messages), newest_first=newest_first)
    ordered = [message for row in rows for message in row]
    ids = [row_id for row in rows if (row_id := _id(row[0])) is not None]
    has_more = len(set(ids)) >= limit > 0
    return HistoryPage(ordered, ids[0] if has_more and ids else None, has_more)


def chronological_rows(rows: list[list[Message]], *, newest_first: bool) -> list[list[Message]]:
    """``rows`` oldest first, trusting dates over ``newest_first`` when they tell."""
    dates = [date for row in rows if (date := _date(row)) is not None]
    if dates and dates[0] != dates[-1]:
        newest_first = dates[0] > dates[-1]
    oldest_first = rows[::-1] if newest_first else list(rows)
    if len(dates) != len(rows):
        return oldest_first
    return sorted(oldest_first, key=_date)  # type: ignore[arg-type]  # every row has a date


def _deduplicated(messages: Iterable[Message]) -> list[Message]:
    seen: set[tuple[str | None, str, str | None]] = set()
    unique: list[Message] = []
    for message in messages:
        key = (_id(message), message.message_type, getattr(message, "otid", None))
        if key[0] is not None and key in seen:
            continue
        seen.add(key)
        unique.append(message)
    return unique


def _rows(messages: list[Message]) -> list[list[Message]]:
    """Runs of consecutive messages sharing one ``id`` (one database row)."""
    rows: list[list[Message]] = []
    for message in messages:
        if rows and _id(message) is not None and _id(rows[-1][0]) == _id(message):
            rows[-1].append(message)
        else:
            rows.append([message])
    return rows


def _id(message: Message) -> str | None:
    return getattr(message, "id", None)


def _date(row: list[Message]) -> datetime | None:
    return getattr(row[0], "date", None)
