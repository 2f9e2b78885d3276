"""System items (system prompt, login and heartbeat notes): a dim, collapsed block."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from openletta.display import plain_text
from openletta.transcript import SystemItem
from openletta.ui.widgets.base import ItemWidget

_TITLES = {"system": "System prompt", "system_alert": "System alert"}


class SystemNote(ItemWidget):
    """A :class:`SystemItem`, shown only when the chat view shows internal items."""

    item: SystemItem

    def __init__(self, item: SystemItem) -> None:
        super().__init__()
        self.item = item
        self._shown: str | None = None
        self._text = Static(classes="system-text")

    def compose(self) -> ComposeResult:
        # Textual types ``title`` as ``str`` but hands it on as the label of its
        # ``CollapsibleTitle``, which takes any ``ContentText``; a ``str`` would be parsed as
        # markup, and the subtype comes from the server, so it goes as literal text.
        with Collapsible(title=plain_text(self._title())):  # type: ignore[arg-type]
            yield self._text

    def sync(self) -> None:
        if self.item.text != self._shown:
            self._shown = self.item.text
            self._text.update(plain_text(self.item.text))

    def _title(self) -> str:
        subtype = self.item.subtype
        return _TITLES.get(subtype, f"System note: {subtype.replace('_', ' ')}")
