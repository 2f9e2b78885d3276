"""Errors: a distinct block with the error type as its title, the message, dim details."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from openletta.display import plain_text
from openletta.transcript import ErrorItem
from openletta.ui.widgets.base import ItemWidget

#: Words that stay upper case in an error title.
ACRONYMS = frozenset({"llm", "api", "http", "sse"})


def error_title(error_type: str) -> str:
    """``"llm_api_error"`` → ``"LLM API error"``."""
    words = [word.upper() if word in ACRONYMS else word for word in error_type.split("_") if word]
    if not words:
        return "Error"
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


class ErrorBlock(ItemWidget, can_focus=True):
    """An :class:`ErrorItem`; the detail (often a traceback) is collapsed."""

    item: ErrorItem

    def __init__(self, item: ErrorItem) -> None:
        super().__init__()
        self.item = item

    def compose(self) -> ComposeResult:
        item = self.item
        yield Static(plain_text(f"✗ {error_title(item.error_type)}"), classes="error-title")
        yield Static(plain_text(item.message), classes="error-message")
        if item.detail:
            with Collapsible(title="Details", classes="error-detail"):
                yield Static(plain_text(item.detail))

    def on_mount(self) -> None:
        """The block keeps the focus (Enter opens the detail, and the key bar says so), not
        the detail's title."""
        for title in self.query("CollapsibleTitle"):
            title.can_focus = False

    @property
    def expanded(self) -> bool:
        """Whether the detail shows."""
        return any(not detail.collapsed for detail in self.query(Collapsible))

    @expanded.setter
    def expanded(self, shown: bool) -> None:
        for detail in self.query(Collapsible):
            detail.collapsed = not shown

    def can_fold(self) -> bool:
        return bool(self.item.detail)
