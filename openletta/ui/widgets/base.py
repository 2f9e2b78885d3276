"""The base class of the widgets that show transcript items."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widget import Widget

from openletta.transcript import Item
from openletta.ui.clipboard import copy_text, copy_to_clipboard


class ItemWidget(Widget):
    """Shows one transcript item; :meth:`sync` brings the display up to date with it.

    The chat view mutates nothing: the accumulator mutates ``item`` and the view calls
    :meth:`sync` (coalesced, at most ~30 times a second, and once more when the item is
    final). ``sync`` must be cheap and idempotent and must never block.
    """

    DEFAULT_CSS = "ItemWidget { height: auto; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy", id="item.copy"),
    ]

    def __init__(self, item: Item, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.item = item

    @property
    def busy(self) -> bool:
        """True while the widget holds something the user is working with (kept mounted)."""
        return False

    def on_mount(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Re-read ``self.item`` and update what is shown (only what changed)."""

    def action_copy(self) -> None:
        """Copy what this item says (the reply, the tool output, …) to the clipboard."""
        found = copy_text(self.item)
        if found is None:
            self.notify("Nothing to copy here yet.", title="Copy", severity="warning")
        else:
            copy_to_clipboard(self, *found)
