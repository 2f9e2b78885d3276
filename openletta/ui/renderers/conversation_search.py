"""Conversation search: the query and filters, then the messages found (date, role, snippet).

Also the base of the other searches' renderers. Letta 0.16 sends ``str()`` of a result dict,
``{'message': 'Showing 3 results:', 'results': [{'timestamp': …, 'role': …, …}]}``.
"""

from __future__ import annotations

import ast
import json
from datetime import datetime
from typing import Any

from textual.content import Content

from openletta.display import literal_text
from openletta.transcript import ToolCallItem
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    ResultRenderer,
    arg,
    more_note,
    one_line,
    output_block,
    parse_json,
)

#: Results listed; the rest are counted.
MAX_RESULTS = 50
_DATE_KEYS = ("timestamp", "time", "date", "created_at", "published_date")
_TEXT_KEYS = ("content", "message", "text", "thinking")
_FILTERS = (("roles:", "roles"), ("limit", "limit"), ("from", "start_date"), ("to", "end_date"))


def parse_value(text: str) -> Any:
    """``text`` as JSON, else as a Python literal (``{'results': […]}``); ``None`` if neither."""
    value = parse_json(text)
    if value is None and text.lstrip()[:1] in ("{", "[", "("):
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return value


def listing(text: str) -> tuple[str, list[Any]] | None:
    """A search result as its heading and its entries, or ``None`` when it is not a list."""
    value, heading = parse_value(text), ""
    start = text.find("[")
    if value is None and start > 0 and text[:start].rstrip().endswith(":"):  # "Found 3: [..]"
        value, heading = parse_value(text[start:]), text[:start]
    if isinstance(value, dict):
        heading = message if isinstance(message := value.get("message"), str) else ""
        value = value.get("results", value.get("messages"))
    if isinstance(value, tuple) and value and isinstance(value[0], list):  # (results, count)
        value = value[0]
    return (heading.strip(), list(value)) if isinstance(value, list | tuple) else None


def as_text(value: Any) -> str:
    """A parsed value as text: strings as they are, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def short_date(entry: dict[str, Any]) -> str:
    """The entry's timestamp as ``2025-09-03 10:15`` (when ISO), else as given; or ``""``."""
    value = next((entry[key] for key in _DATE_KEYS if entry.get(key)), None)
    if value is None:
        return ""
    try:
        return datetime.fromisoformat(str(value)).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return one_line(as_text(value), 32)


def list_arg(item: ToolCallItem, name: str) -> str | None:
    """The argument ``name`` as :func:`arg` shows it, a list as ``a, b``."""
    value = (item.arguments or {}).get(name)
    if isinstance(value, list):
        return ", ".join(literal_text(as_text(entry)) for entry in value) or None
    return arg(item, name)


def search_summary(item: ToolCallItem, query: str,
                   filters: tuple[tuple[str, str], ...]) -> str:
    """``query``, then ``label value`` for each of the ``filters`` arguments given."""
    parts = [query, *(f"{label} {text}" for label, name in filters
                      if (text := list_arg(item, name)))]
    return one_line("  ".join(part for part in parts if part))


def entry_line(header: str, snippet: str, width: int) -> Content:
    """One result: a dim header, then about two lines of ``snippet`` (whitespace collapsed)."""
    room = max(2 * max(width, 40) - len(header) - 4, 20)
    return Content.assemble((f"{header}  " if header else "", MUTED),
                            one_line(" ".join(snippet.split()), room))


class ResultListRenderer(ResultRenderer):
    """A search whose result is a list: a heading, then one :meth:`entry` line per result."""

    def result(self, item: ToolCallItem, output: str, width: int) -> list[Content]:
        if (found := self.results(output)) is None:
            return output_block(output.rstrip("\n") or "(empty)", MUTED)
        heading, entries = found
        blocks = [Content.styled(one_line(heading), MUTED)] if heading else []
        blocks.extend(self.entry(entry, width) for entry in entries[:MAX_RESULTS])
        if len(entries) > MAX_RESULTS:
            blocks.append(more_note(len(entries) - MAX_RESULTS, "results"))
        if not entries and not heading:
            blocks.append(Content.styled("(nothing found)", MUTED))
        return blocks

    def results(self, output: str) -> tuple[str, list[Any]] | None:
        """The result's heading and entries; ``None`` shows it as text."""
        return listing(output)

    def entry(self, entry: Any, width: int) -> Content:
        """One result, on about two lines."""
        return entry_line("", as_text(entry), width)


@register
class ConversationSearchRenderer(ResultListRenderer):
    """``conversation_search``: past messages found by text and meaning."""

    names = ("conversation_search", "conversation_search_date")

    def summary(self, item: ToolCallItem) -> str:
        return search_summary(item, arg(item, "query") or "(any message)", _FILTERS)

    def entry(self, entry: Any, width: int) -> Content:
        """Date (and how long ago), role, and the message's text."""
        if isinstance(entry, str) and isinstance(packed := parse_json(entry), dict):
            entry = packed  # older servers listed the stored JSON of each message
        if not isinstance(entry, dict):
            return super().entry(entry, width)
        ago, role = entry.get("time_ago"), entry.get("role")
        parts = (short_date(entry), f"({as_text(ago)})" if ago else "",
                 as_text(role) if role else "")
        header = "  ".join(one_line(part, 32) for part in parts if part)
        text = next((entry[key] for key in _TEXT_KEYS if entry.get(key)), "")
        return entry_line(header, as_text(text), width)
