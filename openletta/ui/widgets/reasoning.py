"""Reasoning: dim italic text while it streams, then one line that expands on click/Enter."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Static

from openletta.transcript import ReasoningItem
from openletta.ui.sanitize import plain_text
from openletta.ui.widgets.base import ItemWidget

#: Tokens per word, for the "~N tokens" estimate.
TOKENS_PER_WORD = 1.3


def summary_line(item: ReasoningItem, *, expanded: bool) -> str:
    """``▸ Thought for 3 s · ~120 tokens`` (or the stub of hidden reasoning)."""
    if item.hidden:
        return f"Reasoning hidden by the provider ({item.state or 'hidden'})"
    arrow = "▾" if expanded else "▸"
    tokens = round(len(item.text.split()) * TOKENS_PER_WORD)
    if item.duration is None:
        thought = "Thought"
    elif item.duration < 1:
        thought = "Thought for <1 s"
    else:
        thought = f"Thought for {round(item.duration)} s"
    return f"{arrow} {thought} · ~{tokens:,} token{'' if tokens == 1 else 's'}"


class ReasoningBlock(ItemWidget, can_focus=True):
    """A :class:`ReasoningItem`."""

    item: ReasoningItem
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Expand", show=False, id="reasoning.toggle"),
    ]

    expanded = reactive(False, toggle_class="-expanded")
    """Whether the finished reasoning shows its full text."""

    def __init__(self, item: ReasoningItem) -> None:
        super().__init__(item)
        self._shown: tuple[object, ...] | None = None
        self._summary = Static(classes="reasoning-summary")
        self._text = Static(classes="reasoning-text")

    def compose(self) -> ComposeResult:
        yield self._summary
        yield self._text

    def sync(self) -> None:
        item = self.item
        state = (item.text, item.done, item.hidden, item.duration, self.expanded)
        if state == self._shown:
            return
        text_changed = self._shown is None or self._shown[0] != item.text
        self._shown = state
        self.set_class(not item.done, "-streaming")
        self.set_class(item.hidden, "-hidden")
        self.can_focus = item.done and not item.hidden
        self._summary.update(plain_text(summary_line(item, expanded=self.expanded)))
        if text_changed and not item.hidden:
            self._text.update(plain_text(item.text.strip()))

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self.sync()

    def action_toggle(self) -> None:
        """Expand or collapse the finished reasoning."""
        if self.item.done and not self.item.hidden:
            self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle()
