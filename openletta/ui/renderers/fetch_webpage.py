"""Fetched web pages: the URL, then the page's title and the start of its text.

Letta 0.16 returns ``{"title": …, "published_date": …, "author": …, "text": …}`` when it
fetched with Exa, else the page as Markdown text.
"""

from __future__ import annotations

from textual.content import Content

from openletta.transcript import ToolCallItem
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    ResultRenderer,
    arg,
    one_line,
    output_block,
    parse_json,
)
from openletta.ui.renderers.conversation_search import as_text, short_date

#: Lines of the page's text shown.
EXCERPT_LINES = 30


@register
class FetchWebpageRenderer(ResultRenderer):
    """``fetch_webpage`` and its kin: one page read from the web."""

    names = ("fetch_webpage", "fetch_web_page", "webfetch", "web_fetch")

    def summary(self, item: ToolCallItem) -> str:
        return one_line(arg(item, "url") or "")

    def result(self, item: ToolCallItem, output: str, width: int) -> list[Content]:
        page = parse_json(output)
        if not isinstance(page, dict) or "text" not in page:
            return output_block(output.strip("\n") or "(empty page)", limit=EXCERPT_LINES,
                                both_ends=False)
        blocks = []
        if page.get("title"):
            blocks.append(Content.styled(one_line(as_text(page["title"]), max(width, 40)), "bold"))
        byline = "  ".join(part for part in (
            short_date(page), one_line(as_text(page.get("author") or ""), 40)) if part)
        if byline:
            blocks.append(Content.styled(byline, MUTED))
        text = as_text(page["text"] or "").strip("\n")
        blocks.extend(output_block(text or "(no text)", limit=EXCERPT_LINES, both_ends=False))
        return blocks
