"""Reasoning: dim italic text while it streams, then one line that expands on click/Enter."""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual.content import Content
from textual.reactive import reactive
from textual.visual import VisualType

from openletta.display import StreamCleaner, counted, single_line
from openletta.transcript import ReasoningItem
from openletta.ui.widgets.base import TextItemWidget

#: Tokens per word, for the "~N tokens" estimate.
TOKENS_PER_WORD = 1.3
#: Cells the expanded text is indented under the summary line.
TEXT_INDENT = 2


def summary_line(item: ReasoningItem, *, expanded: bool) -> str:
    """``▸ Thought for 3 s · ~120 tokens`` (or the stub of hidden reasoning)."""
    if item.hidden:
        return f"Reasoning hidden by the provider ({single_line(item.state or 'hidden')})"
    arrow = "▾" if expanded else "▸"
    tokens = round(len(item.text.split()) * TOKENS_PER_WORD)
    if item.duration is None:
        thought = "Thought"
    elif item.duration < 1:
        thought = "Thought for <1 s"
    else:
        thought = f"Thought for {round(item.duration)} s"
    return f"{arrow} {thought} · ~{counted(tokens, 'token')}"


class ReasoningBlock(TextItemWidget, can_focus=True):
    """A :class:`ReasoningItem`: its text while it streams, then a summary line."""

    item: ReasoningItem
    expanded = reactive(False, toggle_class="-expanded")
    """Whether the finished reasoning shows its full text."""

    def __init__(self, item: ReasoningItem) -> None:
        self._cleaner = StreamCleaner()
        self._read = 0
        self._shown: list[str] = []
        super().__init__(item)

    def state(self) -> tuple[object, ...]:
        item = self.item
        if part := self._cleaner.feed(item.text_since(self._read), final=item.done):
            self._shown.append(part)
        self._read = item.text_length
        return self._read, item.done, item.hidden, item.duration, self.expanded

    def sync(self) -> None:
        item = self.item
        # Styled by ``:can-focus`` (a class set here would style the widget again each time).
        self.can_focus = item.done and not item.hidden
        super().sync()

    def draw(self) -> VisualType:
        item = self.item
        self._shown[:] = ["".join(self._shown)]
        text = self._shown[0].strip()
        if not item.done and not item.hidden:
            return Content.styled(text, "italic")
        summary = summary_line(item, expanded=self.expanded)
        if item.hidden:
            return Content.styled(summary, "italic")
        if not self.expanded:
            return Content(summary)
        return Group(summary, Padding(Text(text, style="italic"), (0, 0, 0, TEXT_INDENT)))

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self.sync()

    def can_fold(self) -> bool:
        return self.item.done and not self.item.hidden

    def on_click(self) -> None:
        self.toggle_fold()
