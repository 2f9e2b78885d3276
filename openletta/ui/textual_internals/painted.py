"""Textual's private API for painting: the lines a widget gave the compositor, given again
when nothing they are made of changed since (for :class:`~openletta.ui.textual_internals.
FrugalCompositor`)."""

from __future__ import annotations

from typing import NamedTuple
from weakref import WeakKeyDictionary

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class _Painted(NamedTuple):
    #: What else the lines depend on: the rows and columns asked for, the widget's size,
    #: the line filters (the ANSI colour theme) and the background they see, and the link
    #: the mouse is over.
    key: tuple[object, ...]
    #: The lines of the widget's styles cache the strips were made from, row by row.
    source: list[Strip | None]
    strips: list[Strip]


class PaintedLines:
    """``widget.render_lines(lines)``, or the strips it gave last time when nothing they are
    made of changed.

    A layout that moves the chat up repaints every widget in view, though most only moved:
    Textual's ``render_widget`` works out each one's colours, filters and crop again, about
    0.1 ms a widget, to find every line in its cache. Here the strips given last time come
    back when the rows asked for are the same and the styles cache holds the same lines for
    them, none to render anew (any change to a widget's look or content marks its lines
    dirty or clears that cache, as Textual's own line cache needs). Only widgets that paint
    through Textual's ``Widget.render_lines`` are kept (not a text area, nor a scroll bar).
    """

    def __init__(self) -> None:
        self._painted: WeakKeyDictionary[Widget, _Painted] = WeakKeyDictionary()

    def render_lines(self, widget: Widget, lines: Region) -> list[Strip]:
        """The strips of ``lines`` (a region of ``widget``) as ``widget.render_lines`` gives."""
        if type(widget).render_lines is not Widget.render_lines:
            return widget.render_lines(lines)
        cache = widget._styles_cache
        filters = tuple(map(id, widget.get_line_filters()))
        key = (lines, widget.size, filters, filters and widget.background_colors[1],
               widget.auto_links and widget.hover_style)
        painted = self._painted.get(widget)
        rows = lines.line_range
        if (painted is not None and painted.key == key and not cache._dirty_lines
                and all(cache._cache.get(y) is line for y, line in zip(rows, painted.source,
                                                                       strict=True))):
            return painted.strips
        strips = widget.render_lines(lines)
        self._painted[widget] = _Painted(key, [cache._cache.get(y) for y in rows], strips)
        return strips
