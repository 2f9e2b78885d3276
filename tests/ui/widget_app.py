"""A tiny app that shows transcript items with the real item widgets (for tests and snapshots)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget

from openletta.transcript import Item
from openletta.ui.themes import ThemeVariables
from openletta.ui.widgets import WIDGETS_CSS_PATH, ItemWidget, make_item_widget


class ItemsApp(ThemeVariables, App[None]):
    """Mounts one widget per item, in order, in a scroller."""

    CSS_PATH = WIDGETS_CSS_PATH
    CSS = "VerticalScroll { padding: 0 1; }"

    def __init__(self, items: Iterable[Item] = ()) -> None:
        super().__init__()
        self.items = list(items)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield from (make_item_widget(item) for item in self.items)

    def widget_of(self, item: Item) -> ItemWidget:
        """The widget showing ``item``."""
        return next(widget for widget in self.query("*")
                    if isinstance(widget, ItemWidget) and widget.item is item)

    async def add(self, item: Item) -> ItemWidget:
        """Mount a widget for ``item`` at the end."""
        self.items.append(item)
        widget = make_item_widget(item)
        await self.query_one(VerticalScroll).mount(widget)
        return widget


def shown_text(widget: Widget) -> str:
    """The text on screen where ``widget`` is (what is visible of it), trailing spaces removed.

    Reads the screen's composed lines, so clipping, folding and ``display: none`` count.
    """
    screen = widget.screen
    visible = screen.find_widget(widget).visible_region
    strips = screen._compositor.render_strips()  # the composed screen, line by line
    lines = [strip.crop(visible.x, visible.right).text.rstrip()
             for strip in strips[visible.y:visible.bottom]]
    return "\n".join(line for line in lines if line)


def backgrounds(app: App[None], widget: Widget, block: Widget) -> tuple[object, object]:
    """The background on screen of ``widget``'s first column (its padding) and of the first
    text ``block`` (inside it) draws on its first line, past a bullet's columns."""
    line = app.screen._compositor.render_strips()[block.region.y]
    padding = line.crop(widget.region.x, widget.region.x + 1)
    text = line.crop(block.region.x + 2, block.region.x + 6)
    return (next(segment.style.bgcolor for segment in padding),
            next(segment.style.bgcolor for segment in text))
