"""The stand-in for an item whose widget failed: says so and shows what the item holds."""

from __future__ import annotations

import json

from textual.content import Content

from openletta.display import DisplayText
from openletta.transcript import Item
from openletta.ui.widgets.base import TextItemWidget

#: Characters of the item's raw content shown.
RAW_LIMIT = 800


def raw_content(item: Item) -> str:
    """What ``item`` holds, as JSON when it can say, cut at :data:`RAW_LIMIT` characters."""
    try:
        raw = json.dumps(item.to_json(), indent=1, ensure_ascii=False, default=str)
    except Exception:  # the item itself may be what is broken
        raw = repr(item)
    return raw if len(raw) <= RAW_LIMIT else f"{raw[:RAW_LIMIT]} … ({len(raw):,} characters)"


class UndisplayableItem(TextItemWidget):
    """An item that openletta failed to show, its error and its raw content (escaped)."""

    def __init__(self, item: Item, error: Exception) -> None:
        self.error = error
        super().__init__(item)

    def state(self) -> str:
        return raw_content(self.item)

    def draw(self) -> Content:
        problem = DisplayText(f"{type(self.error).__name__}: {self.error}")
        return Content.assemble(
            (f"⚠ openletta could not display this {self.item.kind} item ({problem[:200]}). "
             "It holds:\n", "bold $text-warning"),
            (DisplayText(self.state()), "$text 60%"),
        )
