"""The chat's scroll bar, styled per kind of row (reaches into Textual's ``StylesCache``)."""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget


class RowScrollBar(ScrollBar):
    """A vertical scroll bar that styles each kind of row once.

    A scroll bar's rows are of a few kinds (the track above the thumb, the thumb, its two
    ends, the track below), and Textual styles every row on its own (``StylesCache``): a
    bar the height of the chat cost a few milliseconds each time the thumb moved, which is
    at every layout of a chat that grows. Rows are alike when their content is, as long
    as the bar has no border, padding or outline (the rows at its edges would differ). The
    rows styled are kept for the next paints (the thumb moves, the kinds stay), and a row's
    content is taken from the bar's own arithmetic (``ScrollBarRender.render_bar``), without
    rendering the bar through Rich, as long as every row is a kind styled before."""

    #: Rows styled, by content and what else styles them (:meth:`_row_key`).
    _styled: dict[tuple[object, ...], Strip] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        styles = self.styles
        if styles.gutter or any(edge for edge, _color in styles.outline):
            return super().render_lines(crop)
        if self._styled is None or len(self._styled) > STYLED_ROWS:
            self._styled = {}
        styled, rows = self._styled, self._rows()
        common = self._row_key(crop)
        strips = []
        for y in crop.line_range:
            content = (rows[y],) if rows is not None and y < len(rows) else tuple(
                self.render_line(y))
            strip = styled.get((content, common))
            if strip is None:
                strip = styled[content, common] = super().render_lines(crop.intersection(
                    Region(crop.x, y, crop.width, 1)))[0]
            strips.append(strip)
        self._styles_cache._dirty_lines.difference_update(crop.line_range)
        return strips

    def _row_key(self, crop: Region) -> tuple[object, ...]:
        """What a row's look depends on besides its content."""
        parent = self.parent
        return (crop.x, crop.width, self.size, self.styles._cache_key,
                parent.styles._cache_key if isinstance(parent, Widget) else None,
                self.background_colors, tuple(map(id, self.get_line_filters())))

    def _rows(self) -> list[Segment] | None:
        """Each row's content as Textual's bar renders it (``None`` if it renders otherwise)."""
        bar = self.render()
        if not isinstance(bar, ScrollBarRender) or not bar.vertical or not isinstance(
                bar.style, Style):
            return None
        segments = bar.render_bar(
            size=self.size.height, virtual_size=bar.virtual_size, window_size=bar.window_size,
            position=bar.position, thickness=self.size.width, vertical=True,
            back_color=bar.style.bgcolor or _TRACK, bar_color=bar.style.color or _THUMB)
        return list(segments.segments)


#: The most kinds of rows a scroll bar keeps styled (a thumb's ends take eight glyphs each).
STYLED_ROWS = 64
#: The colours Textual's bar falls back to.
_TRACK, _THUMB = RichColor.parse("#555555"), RichColor.parse("bright_magenta")
