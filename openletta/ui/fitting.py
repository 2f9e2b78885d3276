"""Fitting a dialog's scrolling lists to a short screen: the rows its other parts take."""

from __future__ import annotations

from textual.widget import Widget


def outer_rows(widget: Widget) -> int:
    """The rows ``widget`` takes, its margins included."""
    margin = widget.styles.margin
    return widget.outer_size.height + margin.top + margin.bottom
