"""Textual's private API for a widget's component styles, kept across repaints."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget


class KeptComponentStyles:
    """A widget's component classes as Rich styles, kept until the widget is styled anew.

    Textual keeps them only until the widget's next repaint (``refresh`` forgets them): a
    one-line widget repainted at each change (the status bar, a few times a turn) worked out
    each of its component styles every time, though they change only when the widget is
    styled again. That gives the widget new component styles (``_component_styles``, made
    afresh by every styling), which is what a kept style is checked against.
    """

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        self._kept: dict[str, tuple[object, Style]] = {}

    def rich_style(self, name: str) -> Style:
        """The Rich style of the component class ``name``."""
        source = self._widget._component_styles.get(name)
        kept = self._kept.get(name)
        if kept is not None and kept[0] is source:
            return kept[1]
        style = self._widget.get_component_rich_style(name)
        self._kept[name] = (source, style)
        return style
