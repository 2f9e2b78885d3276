"""The scrolling body of a dialog or view read over the chat (help, ``/context``, ``/run``)."""

from __future__ import annotations

from textual.actions import SkipAction
from textual.containers import VerticalScroll


class ReadingScroll(VerticalScroll):
    """Scrolls like :class:`VerticalScroll`, but Home and End jump at once: an animated
    scroll is still short of its end for most of its second, read as stopping there."""

    def action_scroll_home(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_end(animate=False)
