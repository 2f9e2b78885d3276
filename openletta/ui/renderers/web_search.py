"""Web searches: the query, then each page found (title, URL, date and a snippet).

Letta 0.16 (Exa) returns ``{"query": …, "results": [{"title", "url", "published_date",
"author", "highlights": […], "summary", "text"?}, …]}`` or ``{"query": …, "error": …}``;
before 0.12 (Firecrawl) ``{"results": {query: {"sources": [{"title", "url", "description",
"citations": [{"text"}]}]}}}``, one entry per query.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from openletta.display import literal_text
from openletta.transcript import ToolCallItem
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    arg,
    error_block,
    finished_output,
    one_line,
    parse_json,
)
from openletta.ui.renderers.conversation_search import (
    ResultListRenderer,
    as_text,
    entry_line,
    listing,
    search_summary,
    short_date,
)

_FILTERS = (("category", "category"), ("results", "num_results"),
            ("sites:", "include_domains"))
#: Characters of a URL shown (a longer one is cut with "…").
_URL_WIDTH = 300
#: Where a result's snippet is looked for, best first.
_SNIPPET_KEYS = ("summary", "highlights", "description", "citations", "text", "content")


@register
class WebSearchRenderer(ResultListRenderer):
    """``web_search``: pages found on the web."""

    names = ("web_search", "websearch")

    def summary(self, item: ToolCallItem) -> str:
        tasks = (item.arguments or {}).get("tasks")
        query = arg(item, "query") or ("; ".join(
            literal_text(as_text(task.get("query", ""))) for task in tasks
            if isinstance(task, dict)) if isinstance(tasks, list) else "")
        return search_summary(item, query, _FILTERS)

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        data = parse_json(finished_output(item))
        if isinstance(data, dict) and data.get("error") and not data.get("results"):
            return [error_block(as_text(data["error"]))]
        return super().body(item, width)

    def results(self, output: str) -> tuple[str, list[Any]] | None:
        data = parse_json(output)
        if isinstance(data, dict) and isinstance(data.get("results"), dict):  # per query
            tasks = [task for task in data["results"].values() if isinstance(task, dict)]
            return "", [source for task in tasks if isinstance(task.get("sources"), list)
                        for source in task["sources"]]
        return listing(output)

    def entry(self, entry: Any, width: int) -> Content:
        """The title, the URL and date, then about two lines of snippet."""
        if not isinstance(entry, dict):
            return super().entry(entry, width)
        title = as_text(entry.get("title") or entry.get("url") or "(untitled)")
        where = "  ".join(part for part in (
            one_line(as_text(entry.get("url") or ""), _URL_WIDTH), short_date(entry)) if part)
        lines = [Content.styled(one_line(title, max(width, 40)), "bold")]
        if where:
            lines.append(Content.styled(where, MUTED))
        if snippet := _snippet(entry):
            lines.append(entry_line("", snippet, width))
        return Content("\n").join(lines)


def _snippet(entry: dict[str, Any]) -> str:
    """The result's summary, highlights, description or citations, whichever comes first."""
    for key in _SNIPPET_KEYS:
        value = entry.get(key)
        if isinstance(value, list):
            value = " … ".join(as_text(part.get("text", part) if isinstance(part, dict) else part)
                               for part in value)
        if value:
            return as_text(value)
    return ""
