"""Textual's private API for a view anchored to its bottom (the chat's scroller)."""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def anchor_holds(widget: Widget) -> bool:
    """Whether ``widget`` is anchored and the user has not scrolled away from its bottom.

    Such a widget shows its newest line at every layout; between two layouts its content may
    already have grown while its scroll has not moved yet. Textual keeps "the user scrolled
    away" (which ends the anchor's hold until the bottom is reached again) in a private flag.
    """
    return widget.is_anchored and not widget._anchor_released


def note_view_height(widget: Widget, height: int) -> None:
    """Give an anchored ``widget`` the ``height`` of its view (its scrollable region) as the
    layout arranging its children found it: call it from ``arrange``.

    Right after that arrangement, Textual's compositor scrolls an anchored widget to its
    bottom by its ``container_size``, which the layout updates only later
    (``_size_updated``): when the widget itself shrank or grew (a row shown below the chat,
    or gone), that scroll was off by as many lines until a second frame put it right. The
    size's height is the view's plus a horizontal scroll bar's, as Textual measures it.
    """
    if not anchor_holds(widget):
        return
    size = widget._container_size
    height += widget.scrollbar_size_horizontal
    if size.height != height:
        widget._container_size = Size(size.width, height)
