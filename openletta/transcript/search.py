"""Finding text in a transcript: which items show a query (ignoring case)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from openletta.transcript.items import Item


def query_pattern(query: str) -> re.Pattern[str] | None:
    """What ``query`` finds: its words (white space at its ends left out), in any case;
    ``None`` for a blank query, which finds nothing."""
    needle = query.strip()
    return re.compile(re.escape(needle), re.IGNORECASE) if needle else None


def find_items(items: Iterable[Item], query: str, shown_text: Callable[[Item], str], *,
               include_internal: bool = False) -> list[Item]:
    """The items whose ``shown_text`` (what a reader sees of an item, not its source: a
    reply's Markdown rendered) contains ``query``, ignoring case, in order."""
    pattern = query_pattern(query)
    if pattern is None:
        return []
    return [item for item in items
            if (include_internal or not item.internal) and pattern.search(shown_text(item))]
