"""Lists to pick rows from, whose arrows stop at their ends.

Textual's :class:`~textual.widgets.OptionList` (and so its
:class:`~textual.widgets.SelectionList`) wraps around: ↓ on the last row highlights the
first. In a short list that looks like a row picked by pressing ↓ "to be sure", and Enter
then picks the other end (an agent made on a model the server cannot run, an approval
answered the other way). Here ↓ on the last row and ↑ on the first stay put.

A selection list's unchecked box is empty (``▐ ▌``), not an ``X`` told apart from a checked
one by its colour only (lost without colour, or to a reader who cannot tell them apart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, OptionList, SelectionList

Value = TypeVar("Value")

if TYPE_CHECKING:
    _ListBase = OptionList
else:
    _ListBase = object


def at_end(options: OptionList, step: int) -> bool:
    """Whether no row that can be highlighted lies beyond the highlighted one of
    ``options``, towards ``step`` (nothing highlighted: an arrow goes to the first or last
    row)."""
    index = options.highlighted
    if index is None:
        return False
    beyond = options.options[index + 1:] if step > 0 else options.options[:index]
    return all(option.disabled for option in beyond)


class StopsAtEnds(_ListBase):
    """Arrows that stop at the list's ends: put first among the bases of a list class (a
    plain mixin at run time, which Textual skips when it looks for the CSS type names)."""

    def action_cursor_down(self) -> None:
        if not at_end(self, 1):
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if not at_end(self, -1):
            super().action_cursor_up()


class PickList(StopsAtEnds, OptionList):
    """An :class:`OptionList` without wrap-around (see the module)."""


#: What the box of a row not selected holds.
UNCHECKED = " "


class PickSelectionList(StopsAtEnds, SelectionList[Value]):
    """A :class:`SelectionList` without wrap-around, its unchecked boxes empty (see the
    module)."""

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        index = self.scroll_offset.y + y
        if not 0 <= index < self.option_count:
            return line
        if self.get_option_at_index(index).value in self.selected:
            return line
        segments = list(line)
        if len(segments) < 2 or segments[1].text != Checkbox.BUTTON_INNER:
            return line
        segments[1] = Segment(UNCHECKED, segments[1].style)
        return Strip(segments, line.cell_length)
