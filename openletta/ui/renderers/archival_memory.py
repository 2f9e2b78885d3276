"""Archival memory: searches (passages found, with date and tags) and inserts (the text kept).

Letta 0.16 returns a search's passages as a list, ``[{"id": …, "timestamp": …, "content": …,
"tags": […]}, …]``, shown with Python's ``str()``; an insert returns ``None``.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    OK,
    ToolRenderer,
    arg,
    error_block,
    finished_output,
    labelled,
    one_line,
    output_block,
    without_error_prefix,
)
from openletta.ui.renderers.conversation_search import (
    ResultListRenderer,
    as_text,
    entry_line,
    list_arg,
    search_summary,
    short_date,
)
from openletta.ui.renderers.send_message import QUIET_RESULTS

#: Lines of inserted text shown.
PREVIEW_LINES = 40
_FILTERS = (("tags:", "tags"), ("top", "top_k"), ("from", "start_datetime"),
            ("to", "end_datetime"))


@register
class ArchivalSearchRenderer(ResultListRenderer):
    """``archival_memory_search``: passages found by meaning."""

    names = ("archival_memory_search",)

    def summary(self, item: ToolCallItem) -> str:
        return search_summary(item, arg(item, "query") or "", _FILTERS)

    def entry(self, entry: Any, width: int) -> Content:
        """Date, tags and the passage's text."""
        if not isinstance(entry, dict):
            return super().entry(entry, width)
        tags = entry.get("tags")
        tags_text = ", ".join(map(as_text, tags)) if isinstance(tags, list) else as_text(tags)
        header = "  ".join(part for part in (
            short_date(entry), one_line(f"tags: {tags_text}", 40) if tags else "") if part)
        return entry_line(header, as_text(entry.get("content") or entry.get("text") or ""),
                          width)


@register
class ArchivalInsertRenderer(ToolRenderer):
    """``archival_memory_insert``: the text kept, its tags, and whether it went in."""

    names = ("archival_memory_insert",)

    def summary(self, item: ToolCallItem) -> str:
        content = one_line(arg(item, "content") or "", 60)
        return search_summary(item, content, (("tags:", "tags"),))

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        content = arg(item, "content")
        blocks = output_block(content, limit=PREVIEW_LINES, both_ends=False) if content else []
        if tags := list_arg(item, "tags"):
            blocks.append(labelled("tags:", tags))
        output = finished_output(item)
        if output is not None and item.status is ToolStatus.ERROR:
            blocks.append(error_block(without_error_prefix(output)))
        elif output is not None:
            said = output.strip()
            blocks.append(Content.assemble(
                ("✓ ", OK), ("inserted" if said in QUIET_RESULTS else one_line(said), MUTED)))
        return blocks
