"""File reads: the path, then the content highlighted by extension, with line numbers (a
control character in a line shown as its picture, ``␍``, so that they are the file's)."""

from __future__ import annotations

import re

from textual.content import Content

from openletta.display import DisplayText, control_pictures
from openletta.transcript import ToolCallItem
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    ResultRenderer,
    arg,
    code_block,
    one_line,
)
from openletta.ui.renderers.languages import language_for

PATH_ARGS = ("path", "file_path", "filename", "file", "target_file")
_NUMBERED = re.compile(r"^\s*(\d+)\t(.*)$")
_START_ARGS = ("offset", "start_line", "line", "view_range")
#: The note before a page of a file (which lines, where to read on), as openletta's Read
#: puts it, where it reaches the agent whatever the length.
_PAGE_NOTE = re.compile(r"\A(\[Showing lines [^\n]*\])\n\n")


@register
class ReadFileRenderer(ResultRenderer):
    """``read_file`` and its aliases."""

    names = ("read_file", "open_file", "view_file", "read", "cat")
    subject_is_path = True

    def summary(self, item: ToolCallItem) -> str:
        return one_line(arg(item, *PATH_ARGS) or "")

    def result(self, item: ToolCallItem, output: str, width: int) -> list[Content]:
        path = arg(item, *PATH_ARGS)
        note = _PAGE_NOTE.match(output)
        text, start = without_line_numbers(output[note.end():] if note else output)
        # A file's lines as they are: a control character (a lone CR) shown as its picture
        # in the line, not breaking it, so that the numbers are the file's.
        code = code_block(control_pictures(text), language_for(path), line_numbers=True,
                          start=start or _first_line(item))
        return [Content.styled(DisplayText(note[1]), f"italic {MUTED}"), *code] if note else code


def without_line_numbers(output: str) -> tuple[str, int | None]:
    """A ``cat -n`` style result (``     1\tline``) as plain text and its first line number;
    other output as it is, with ``None``. Notes after the numbered lines are kept."""
    lines = output.split("\n")
    numbered = [_NUMBERED.match(line) for line in lines]
    count = next((index for index, match in enumerate(numbered) if match is None), len(lines))
    if count == 0:
        return output, None
    first = numbered[0]
    assert first is not None
    body = [match[2] for match in numbered[:count] if match is not None]
    return "\n".join([*body, *lines[count:]]), int(first[1])


def _first_line(item: ToolCallItem) -> int:
    """The number of the first line shown: from an offset or range argument, else 1."""
    value = next(((item.arguments or {}).get(name) for name in _START_ARGS
                  if (item.arguments or {}).get(name) is not None), None)
    if isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, int) and value > 0 else 1
