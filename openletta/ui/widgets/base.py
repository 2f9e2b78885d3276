"""The base class of the widgets that show transcript items."""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.visual import VisualType
from textual.widget import Widget

from openletta.transcript import Item
from openletta.ui.clipboard import copy_text, copy_to_clipboard


class ItemWidget(Widget):
    """Shows one transcript item; :meth:`sync` brings the display up to date with it.

    The chat view mutates nothing: the accumulator mutates ``item`` and the view calls
    :meth:`sync` (coalesced, at most ~30 times a second, and once more when the item is
    final). ``sync`` must be cheap and idempotent and must never block.

    A subclass sets ``item`` in its constructor. Find item widgets with ``isinstance``, not
    a CSS type query: :class:`AssistantMessage` takes its CSS type from ``Markdown``.
    """

    item: Item

    DEFAULT_CSS = "ItemWidget { height: auto; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy", id="item.copy"),
    ]

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


class TextItemWidget(ItemWidget):
    """An item drawn by the widget itself as one block of text, with no child widgets.

    Nothing to compose, style or lay out but the widget, and its text is ready before it
    mounts (mounting takes one layout): a long history mounts many of these. Subclasses say
    what the text depends on (:meth:`state`) and draw it (:meth:`draw`).
    """

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self._state: Hashable = None
        self._drawn: VisualType = ""
        self.sync()

    def state(self) -> Hashable:
        """What the text depends on; it is drawn again only when this changes."""
        raise NotImplementedError

    def draw(self) -> VisualType:
        """The text for the current state (server text made safe: never markup)."""
        raise NotImplementedError

    def sync(self) -> None:
        state = self.state()
        if state != self._state:
            self._state = state
            self._drawn = self.draw()
            self.refresh(layout=True)

    def render(self) -> VisualType:
        return self._drawn
