"""Events (compaction, interruption, summaries): a thin divider line with the text; a long
summary folds to its first lines until Enter or a click opens it."""

from __future__ import annotations

from rich.rule import Rule
from textual import events
from textual.app import ComposeResult
from textual.reactive import var
from textual.widgets import Static

from openletta.display import DisplayText, plain_text
from openletta.transcript import EventItem
from openletta.ui.widgets.base import ItemWidget
from openletta.ui.widgets.folding import folded, folds


class EventDivider(ItemWidget, can_focus=True):
    """An :class:`EventItem`: ``──── Compacting context ────``; a summary (or any long
    text) goes under the line, which names the event."""

    item: EventItem
    expanded = var(False)
    """Whether a long summary is shown in full."""

    def __init__(self, item: EventItem) -> None:
        super().__init__()
        self.item = item
        self._shown: tuple[str, str, bool] | None = None
        self._line = Static(classes="event-line")
        self._text = Static(classes="event-text")

    def compose(self) -> ComposeResult:
        yield self._line
        yield self._text

    def sync(self) -> None:
        label, text = self.item.divider()
        if (label, text, self.expanded) == self._shown:
            return
        self._shown = label, text, self.expanded
        self._line.update(Rule(plain_text(DisplayText(label)), style=""))
        lines = DisplayText(text).split("\n") if text else []
        self._text.update(folded(lines, expanded=self.expanded))
        self._text.display = bool(text)

    def watch_expanded(self) -> None:
        self.sync()

    def on_click(self, event: events.Click) -> None:
        self.toggle_fold()

    def can_fold(self) -> bool:
        return folds(DisplayText(self.item.text).strip().split("\n"))
