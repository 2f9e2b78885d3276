"""A scrolling view that follows its bottom goes on following it when its own height changes."""

from __future__ import annotations

from textual import events
from textual.widget import Widget

from openletta.ui.textual_internals import anchor_holds


class KeptAtBottom(Widget):
    """Keeps an anchored view at its bottom when the view itself grows or shrinks (a row
    shown below it: a queued message's). The layout that resized it placed it by its old
    height, a line or more short, and the chat's screen asks for no second layout that
    would put it right (:class:`~openletta.ui.textual_internals.FrugalScreen`). List it
    after the scroller's class among the bases: Textual takes CSS from the first one."""

    #: The view's height at its last resize (0: not laid out yet).
    _view_height = 0

    def on_resize(self, event: events.Resize) -> None:
        before, self._view_height = self._view_height, event.size.height
        if before in (0, event.size.height) or not anchor_holds(self):
            return  # (content that grew moved it already)
        if self.scroll_y < self.max_scroll_y:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True,
                           release_anchor=False)
