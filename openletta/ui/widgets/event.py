"""Events (compaction, interruption, summaries): a thin divider line with the text."""

from __future__ import annotations

from rich.rule import Rule
from textual.app import ComposeResult
from textual.widgets import Static

from openletta.display import DisplayText, plain_text
from openletta.transcript import EventItem
from openletta.ui.widgets.base import ItemWidget

#: Longest text that goes on the divider itself; longer text (a summary) goes below it.
LABEL_WIDTH = 60


class EventDivider(ItemWidget):
    """An :class:`EventItem`: ``──── Compacting context ────``; a summary (or any long
    text) goes under the line, which names the event."""

    item: EventItem

    def __init__(self, item: EventItem) -> None:
        super().__init__()
        self.item = item
        self._shown: str | None = None
        self._line = Static(classes="event-line")
        self._text = Static(classes="event-text")

    def compose(self) -> ComposeResult:
        yield self._line
        yield self._text

    def sync(self) -> None:
        text = DisplayText(self.item.text).strip()
        if text == self._shown:
            return
        self._shown = text
        title = self.item.event_type.replace("_", " ").capitalize()
        short = not self.item.is_summary and "\n" not in text and len(text) <= LABEL_WIDTH
        label = (text if short else "") or title
        self._line.update(Rule(plain_text(label), style=""))
        self._text.update(plain_text("" if short else text))
        self._text.display = not short
