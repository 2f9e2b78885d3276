"""Textual's private API for painting: the lines a widget gave the compositor, given again
when nothing they are made of changed since (for :class:`~openletta.ui.textual_internals.
FrugalCompositor`)."""

from __future__ import annotations

from typing import NamedTuple
from weakref import WeakKeyDictionary

from textual.color import Color
from textual.dom import DOMNode
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

_TRANSPARENT = Color(0, 0, 0, 0)


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
        #: Each node's background and opacity, from the root down, during one paint.
        self._backgrounds: dict[DOMNode, tuple[Color, float]] = {}

    def begin_paint(self) -> None:
        """A paint begins: the backgrounds are worked out again (styles may have changed)."""
        self._backgrounds.clear()

    def _background(self, node: DOMNode) -> tuple[Color, float]:
        """``node.background_colors[1]`` (and the opacity so far), worked out as Textual does
        but from its parent's, once a paint: Textual walks every ancestor for each widget."""
        known = self._backgrounds.get(node)
        if known is None:
            parent = node._parent
            background, opacity = (self._background(parent) if isinstance(parent, DOMNode)
                                   else (_TRANSPARENT, 1.0))
            styles = node.styles
            opacity *= styles.opacity
            background += styles.background.tint(styles.background_tint).multiply_alpha(
                opacity)
            known = self._backgrounds[node] = (background, opacity)
        return known

    def render_lines(self, widget: Widget, lines: Region) -> list[Strip]:
        """The strips of ``lines`` (a region of ``widget``) as ``widget.render_lines`` gives."""
        if type(widget).render_lines is not Widget.render_lines:
            return widget.render_lines(lines)
        cache = widget._styles_cache
        filters = tuple(map(id, widget.get_line_filters()))
        key = (lines, widget.size, filters, filters and self._background(widget)[0],
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
