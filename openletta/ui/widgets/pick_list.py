"""Lists to pick rows from, whose arrows stop at their ends.

Textual's :class:`~textual.widgets.OptionList` (and so its
:class:`~textual.widgets.SelectionList`) wraps around: ↓ on the last row highlights the
first. In a short list that looks like a row picked by pressing ↓ "to be sure", and Enter
then picks the other end (an agent made on a model the server cannot run, an approval
answered the other way). Here ↓ on the last row and ↑ on the first stay put.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.widgets import OptionList, SelectionList

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


class PickSelectionList(StopsAtEnds, SelectionList[Value]):
    """A :class:`SelectionList` without wrap-around (see the module)."""
