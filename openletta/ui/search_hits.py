"""Where a query is drawn inside a mounted widget: the widget and row of each occurrence.

Search finds the items that mention a query; this finds where, in an item's widget, the
words are drawn, so that the view can go to their line and select them. It reads what each
widget draws (its rendered lines) and the text a selection copies from it, the same way for
every widget: a reply's Markdown blocks, a card's output, a user's message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from openletta.transcript.search import query_pattern

#: A selection of all of a widget's text.
EVERYTHING = Selection(None, None)


@dataclass(frozen=True)
class Hit:
    """One place the query is drawn."""

    widget: Widget
    """The innermost widget that draws it."""
    row: int
    """The row of :attr:`widget`, from its top edge, that the match starts on."""
    selection: Selection | None
    """The match in the widget's text, to select it (``None``: the text is not selectable)."""

    def row_in(self, outer: Widget) -> int:
        """The row of ``outer`` (an ancestor of :attr:`widget`) that the match is on."""
        return self.widget.region.y - outer.region.y + self.row


def find_hits(root: Widget, query: str) -> list[Hit]:
    """Every place ``query`` (ignoring case) is drawn in ``root`` as last laid out, top to
    bottom; nothing where it is cut by the end of a line or not drawn (folded, or the
    address of a link)."""
    pattern = query_pattern(query)
    if pattern is None:
        return []
    hits = [hit for widget in drawing_widgets(root) for hit in widget_hits(widget, pattern)]
    return sorted(hits, key=lambda hit: (hit.widget.region.y + hit.row, hit.widget.region.x))


def drawing_widgets(root: Widget) -> Iterator[Widget]:
    """``root`` and its descendants that draw text of their own (not containers) and have a
    place on screen (scrolled into view or not)."""
    for widget in (root, *root.query("*")):
        if not widget.is_container and widget.region.area:
            yield widget


def widget_hits(widget: Widget, pattern: re.Pattern[str]) -> list[Hit]:
    """The matches of ``pattern`` that ``widget`` draws: found in its text, and placed on the
    row that draws them; in the rows' own text where the widget's text is not selectable."""
    rows = widget.render_lines(Region(0, 0, *widget.region.size))  # padding too, as drawn
    spans = [drawn_span(row) for row in rows]
    found = widget.get_selection(EVERYTHING)
    if found is None or all(span is None for span in spans):
        return [Hit(widget, number, None)
                for number, row in enumerate(rows) for _ in pattern.finditer(row.text)]
    text = found[0]
    hits = []
    for match in pattern.finditer(text):
        line = text.count("\n", 0, match.start())
        column = match.start() - text.rfind("\n", 0, match.start()) - 1
        row = row_of(spans, line, column)
        if row is not None:
            selection = Selection(Offset(column, line), Offset(column + len(match[0]), line))
            hits.append(Hit(widget, row, selection))
    return hits


#: The line of a widget's text that a row draws, and the columns of it it draws (from, to).
Span = tuple[int, int, int]


def drawn_span(row: Strip) -> Span | None:
    """What ``row`` draws of the widget's text (``None``: none of it), read from the offsets
    Textual gives what it renders, for text selection."""
    placed = [(offset, len(segment.text)) for segment in row if segment.style is not None
              and (offset := segment.style.meta.get("offset")) is not None]
    if not placed:
        return None
    (first, line), _ = placed[0]
    (last, _), length = placed[-1]
    return line, first, last + length


def row_of(spans: list[Span | None], line: int, column: int) -> int | None:
    """The row that draws ``column`` of ``line`` (``None``: no row does)."""
    return next((number for number, span in enumerate(spans) if span is not None
                 and span[0] == line and span[1] <= column < span[2]), None)
