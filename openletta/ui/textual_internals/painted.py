"""Textual's private API for painting: the lines a widget gave the compositor, given again
when nothing they are made of changed since (for :class:`~openletta.ui.textual_internals.
FrugalCompositor`)."""

from __future__ import annotations

from typing import NamedTuple
from weakref import WeakKeyDictionary

from textual.color import Color
from textual.dom import DOMNode
from textual.geometry import Region, Size
from textual.screen import Screen
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
    A plain box (:func:`plain_box`: the screen, the chat's view and scroller) has one row of
    each kind styled, which stands for all its rows of that kind.
    """

    def __init__(self) -> None:
        self._painted: WeakKeyDictionary[Widget, _Painted] = WeakKeyDictionary()
        #: Per plain box (:func:`plain_box`): what its rows depend on, and a row of each kind.
        self._box_rows: WeakKeyDictionary[Widget, tuple[tuple[object, ...], dict[int, Strip]]
                                          ] = WeakKeyDictionary()
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

    def render_lines(self, widget: Widget, lines: Region, size: Size) -> list[Strip]:
        """The strips of ``lines`` (a region of ``widget``, whose outer ``size`` the caller
        knows: ``widget.size`` looks the widget up in the screen's map) as
        ``widget.render_lines`` gives."""
        if type(widget).render_lines is not Widget.render_lines:
            return widget.render_lines(lines)
        if plain_box(widget):
            return self._plain_rows(widget, lines, size)
        cache = widget._styles_cache
        filters = tuple(map(id, widget.get_line_filters()))
        key = (lines, size, filters, filters and self._background(widget)[0],
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

    def _plain_rows(self, widget: Widget, lines: Region, size: Size) -> list[Strip]:
        """The rows of a plain box: one of each kind rendered (top padding, content, bottom
        padding), given again for every row of its kind, until what they are made of changes:
        the columns asked for, the box's width and styles, the backgrounds under it, the line
        filters and the ANSI theme."""
        filters = tuple(map(id, widget.get_line_filters()))
        parent = widget._parent
        key = (lines.x, lines.width, size.width, widget.styles._cache_key,
               self._background(widget), self._background(parent)
               if isinstance(parent, DOMNode) else None, filters, id(widget.app.ansi_theme))
        kept = self._box_rows.get(widget)
        if kept is None or kept[0] != key:
            kept = self._box_rows[widget] = (key, {})
        rows = kept[1]
        top, _right, bottom, _left = widget.styles.padding
        first_bottom = size.height - bottom
        strips = []
        for y in lines.line_range:
            kind = 0 if y < top else 2 if y >= first_bottom else 1
            strip = rows.get(kind)
            if strip is None:
                strip = rows[kind] = widget.render_lines(Region(lines.x, y, lines.width, 1))[0]
            strips.append(strip)
        return strips


def plain_box(widget: Widget) -> bool:
    """Whether ``widget`` is a box whose rows of a kind all look alike: a container with no
    content of its own (Textual's blank, or an opaque screen's), and no border, outline,
    keyline or hatch. The chat's scroller, its view and the screen are: their rows (under
    and between the messages) were rendered again, one by one, whenever the chat moved."""
    if not widget.is_container:
        return False
    styles = widget.styles
    render = type(widget).render
    if render is not Widget.render and not (render is Screen.render
                                            and styles.background.a == 1):
        return False
    return (not any(edge for edge, _color in styles.border)
            and not any(edge for edge, _color in styles.outline)
            and str(styles.keyline[0]) == "none"
            and not (styles.has_rule("hatch") and styles.hatch != "none"))
