"""Errors: a distinct block with the error type as its title, the message, dim details."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from openletta.transcript import ErrorItem
from openletta.ui.sanitize import plain_text
from openletta.ui.widgets.base import ItemWidget


class ErrorBlock(ItemWidget):
    """An :class:`ErrorItem`; the detail (often a traceback) is collapsed."""

    item: ErrorItem

    def compose(self) -> ComposeResult:
        item = self.item
        title = item.error_type.replace("_", " ").capitalize() or "Error"
        yield Static(plain_text(f"✗ {title}"), classes="error-title")
        yield Static(plain_text(item.message), classes="error-message")
        if item.detail:
            with Collapsible(title=plain_text("Details"), classes="error-detail"):
                yield Static(plain_text(item.detail))
