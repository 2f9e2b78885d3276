"""A Markdown table drawn by one widget.

Textual draws a table as a grid of one widget per cell: a reply with a few tables mounted,
styled and laid out hundreds of widgets, which cost more than the rest of the reply. Here a
table is one :class:`TableVisual`, which lays its columns out for the width it is given:
each column as wide as its widest cell, the spare width shared in proportion, and in a
narrow window the widest columns give way first (their cells wrap).
"""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from openletta.ui.textual_internals import CellTable

#: Cells have a space on each side, within the lines between them.
PADDING = 2
#: No column gets narrower than one character and its padding.
NARROWEST = 1 + PADDING

Row = list[Content]


def column_widths(natural: list[int], least: list[int], space: int) -> list[int]:
    """Widths of columns whose cells want ``natural`` cells and wrap no narrower than
    ``least``, in ``space`` cells: wider in proportion when there is room; else the widest
    column gives up a cell at a time, down to its least (the table may then overflow)."""
    total = sum(natural)
    if not total or total == space:
        return list(natural)
    if total < space:
        exact = [width * space / total for width in natural]
        widths = [int(value) for value in exact]
        by_remainder = sorted(range(len(widths)), key=lambda index: widths[index] - exact[index])
        for index in by_remainder[:space - sum(widths)]:
            widths[index] += 1
        return widths
    widths = list(natural)
    for _ in range(total - space):
        widest = max(range(len(widths)), key=lambda index: widths[index] - least[index])
        if widths[widest] <= least[widest]:
            break
        widths[widest] -= 1
    return widths


class TableVisual(Visual):
    """A table of Markdown cells, the header (if any) first, with thin lines around and
    between the cells; each width it is drawn at is kept."""

    def __init__(self, headers: Row, rows: list[Row], header: Style, lines: Style) -> None:
        count = max([len(headers), *(len(row) for row in rows)])
        self._cells = [row + [Content()] * (count - len(row))
                       for row in ([headers] if headers else []) + rows]
        self._has_header = bool(headers)
        self._header_style, self._line_style = header, lines
        columns = list(zip(*self._cells, strict=True))
        self._natural = [max(cell.cell_length for cell in column) + PADDING for column in columns]
        self._least = [max([NARROWEST, *(_longest_word(cell) + PADDING for cell in column)])
                       for column in columns]
        self._drawn: dict[int, list[Content]] = {}

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return sum(self._natural) + len(self._natural) + 1

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.draw(width))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        # Textual renders the lines: it resolves their styles (inline code, links) as the
        # widget's, and draws a text selection over them.
        return Content("\n").join(self.draw(width)).render_strips(width, height, style, options)

    def draw(self, width: int) -> list[Content]:
        """The table's lines, ``width`` cells wide (wider if its columns cannot fit)."""
        if width not in self._drawn:
            self._drawn[width] = self._draw(width) if self._cells else []
        return self._drawn[width]

    def _draw(self, width: int) -> list[Content]:
        widths = column_widths(self._natural, self._least, width - len(self._natural) - 1)
        lines = [self._rule("┌", "┬", "┐", widths)]
        for index, row in enumerate(self._cells):
            if index:
                lines.append(self._rule("├", "┼", "┤", widths))
            lines += self._row(row, widths, header=self._has_header and not index)
        lines.append(self._rule("└", "┴", "┘", widths))
        return lines

    def _rule(self, left: str, middle: str, right: str, widths: list[int]) -> Content:
        line = left + middle.join("─" * width for width in widths) + right
        return Content.styled(line, self._line_style)

    def _row(self, row: Row, widths: list[int], *, header: bool) -> list[Content]:
        cells = [cell.wrap(max(1, width - PADDING)) or [Content()]
                 for cell, width in zip(row, widths, strict=True)]
        height = max(len(lines) for lines in cells)
        if header:  # a header's cells sit on its last line, and stand out
            cells = [[Content()] * (height - len(lines))
                     + [line.stylize_before(self._header_style) for line in lines]
                     for lines in cells]
        bar = Content.styled("│", self._line_style)
        return [Content("").join([bar, *(_padded(lines[y] if y < len(lines) else Content(),
                                                 width) + bar
                                         for lines, width in zip(cells, widths, strict=True))])
                for y in range(height)]


def _padded(text: Content, width: int) -> Content:
    """``text`` with a space before it, and spaces after it up to ``width`` cells."""
    return Content(" ") + text + Content(" " * max(1, width - 1 - text.cell_length))


def _longest_word(cell: Content) -> int:
    return max((len(word) for word in cell.plain.split()), default=0)


class ReplyTable(CellTable):
    """A Markdown table of a reply, drawn by one widget (a :class:`TableVisual`)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"reply-table--header", "reply-table--lines"}

    _table_cells: tuple[Row, list[Row]] = ([], [])
    _table_visual: TableVisual | None = None

    def cells_changed(self, headers: Row, rows: list[Row]) -> None:
        self._table_cells, self._table_visual = (headers, rows), None
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._table_visual = None  # a new theme, perhaps: draw in its colours

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text of the table as it is drawn (Textual reads a selection only
        from text and content it renders)."""
        lines = self._table_visual.draw(self.content_size.width) if self._table_visual else []
        return selection.extract("\n".join(line.plain for line in lines)), "\n"

    def render(self) -> Visual:
        if self._table_visual is None:
            self._table_visual = TableVisual(
                *self._table_cells, self.get_visual_style("reply-table--header", partial=True),
                self.get_visual_style("reply-table--lines", partial=True))
        return self._table_visual
