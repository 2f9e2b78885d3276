"""A scrolling view that follows its bottom goes on following it when its own height changes."""

from __future__ import annotations

from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from openletta.ui.textual_internals import note_view_height


class KeptAtBottom(Widget):
    """Keeps an anchored view at its bottom, in the same frame, when the view itself grows or
    shrinks (a row shown below it: a queued message's). Textual's anchor placed it by its old
    height, a line or more short, and a second frame put it right
    (:func:`~openletta.ui.textual_internals.note_view_height`). List it after the scroller's
    class among the bases: Textual takes CSS from the first one."""

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        if not optimal:  # (the layout's own arrangement, in the view's new size)
            note_view_height(self, size.height)
        return super().arrange(size, optimal)
