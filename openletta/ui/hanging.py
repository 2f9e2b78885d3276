"""Rows with a hanging indent: a head (keys, a name, a bullet, a step's number) then text
that, too long for the line, wraps under itself rather than under the head."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.content import Content


class Hanging:
    """Lines of ``(head, body)``: each body wraps under itself, right of its head (a head
    wider than half the line wraps with its body, as plain text). Its ``str`` and
    :attr:`plain` are the lines as plain text."""

    def __init__(self, *lines: tuple[Text, Text]) -> None:
        self.lines = lines

    @property
    def plain(self) -> str:
        return "\n".join(head.plain + body.plain for head, body in self.lines)

    def __str__(self) -> str:
        return self.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for head, body in self.lines:
            if head.cell_len > options.max_width // 2:
                yield Text.assemble(head, body)
                continue
            grid = Table.grid()
            grid.add_column(width=head.cell_len, no_wrap=True)
            grid.add_column(ratio=1)
            grid.add_row(head, body)
            yield grid


def hanging_content(head: Content, body: Content, width: int) -> Content:
    """``head`` then ``body`` wrapped under itself at ``width`` cells (as :class:`Hanging`
    does, for Textual's content); unwrapped when ``width`` is 0 or the head takes more than
    half of it."""
    room = width - head.cell_length
    if width <= 0 or room < width // 2:
        return head + body
    first, *rest = body.wrap(room) or [Content()]
    indent = Content(" " * head.cell_length)
    return Content("\n").join([head + first, *(indent + line for line in rest)])
