"""Textual's private API for layout and painting: the chat's screen and compositor, a
``virtual_size`` that asks for no layout, the scroller's anchor, and removing hidden widgets."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Self

from textual import events, messages
from textual._compositor import Compositor, CompositorMap, LayoutUpdate, ReflowResult
from textual.await_remove import AwaitRemove
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive
from textual.screen import Screen, ScreenResultType
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from openletta.ui.repaint import moved_regions
from openletta.ui.textual_internals.painted import PaintedLines
from openletta.ui.textual_internals.scrollbar import RowScrollBar

# --- layout (openletta.ui.widgets.base) -------------------------------------------------------


def size_without_relayout() -> Reactive[Size]:
    """A ``virtual_size`` reactive that asks for no layout of the screen when it changes.

    Textual sets every widget's virtual size *during* a screen layout (``_size_updated``) and
    its ``virtual_size`` reactive then asks for another layout of the whole screen, which
    finds what the first found, whenever a widget's size changed. A widget that does not scroll
    has nothing to update then; one that scrolls vertically has its scroll bar updated by
    ``_size_updated`` itself (``_scroll_update``), its anchor kept by the compositor, and a
    scroll bar that appears or goes asks for its own layout (``show_vertical_scrollbar``).
    Nor does it repaint the widget: the layout that set the size painted what it moved, and a
    repaint of the chat's scroller renders every widget in view a second time.
    """
    return Reactive(Size(0, 0), layout=False, repaint=False)


class FrugalCompositor(Compositor):
    """Textual's compositor, minus three kinds of work a frame does for nothing.

    * **A second arrangement.** ``reflow`` arranges every widget (the full map) but leaves
      the map marked stale when a new or off-screen widget was refreshed before it
      (``update_widgets``); the first question about a widget's region after the layout
      (asked while the frame is painted) then arranged the whole screen again, and so did
      one asked *during* it: a scroll bar whose window the arrangement changes repaints
      itself, which asks for its size (the chat's bar, when a row shows below the chat).
      Here the map is not stale from the start of the layout: a widget asked about while
      it runs finds its place in the map being replaced.
    * **Repainting what a layout did not move** (:func:`~openletta.ui.repaint.moved_regions`).

    * **Painting what did not change.** For a partial update, ``_get_renders`` rendered every
      widget whose *clip* overlaps the changed region, all of its visible lines: a word added
      to a paragraph rendered every widget in the chat (their clip is the whole scroller).
      Here only the widgets whose visible part meets the changed region are rendered, and
      only its rows (also when the changes span the screen, as a layout of the chat and a
      key of the key bar do at a turn's end), and a widget that only moved gives the lines
      it gave before (:class:`~openletta.ui.textual_internals.painted.PaintedLines`).
      Textual writes only the changed spans, and every widget that covers a cell of them is
      still rendered for its rows (``tests/ui/test_frugal_compositor.py`` compares the two,
      frame by frame).

    And it paints two things Textual's leaves stale: a scroll bar whose thumb the layout
    moved, keeping an anchored scroller at its bottom (it sets the bar's position without the
    repaint that setting it otherwise asks for), as when a narrower window wraps the chat;
    and what moved when the full map was arranged again after a scroll (:attr:`full_map`).
    """

    def __init__(self) -> None:
        super().__init__()
        self._painted_lines = PaintedLines()
        #: True while the whole screen renders, as Textual renders it (:meth:`_whole_screen`).
        self._whole = False

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        dirty, old_map = set(self._dirty_regions), self._full_map
        thumbs = {bar: bar.position for bar in old_map if isinstance(bar, ScrollBar)}
        # (also while arranging: see the class)
        self._full_map_invalidated = False
        result = super().reflow(parent, size)
        if size.region not in self._dirty_regions:
            self._dirty_regions = dirty | moved_regions(old_map, self._full_map)
        for bar, geometry in self._full_map.items():  # a thumb moved unseen (the docstring)
            if bar in thumbs and bar.position != thumbs[bar] and geometry.visible_region:
                bar.refresh()
                self._dirty_regions.add(geometry.visible_region)
        return result

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        """Arrange the widgets in view after a scroll; repaint only what moved on screen.

        Textual compares the new arrangement with the last scroll's, which every layout
        forgets: the first scroll after a layout (the chat following its newest line, once
        a turn) found every widget new and repainted the whole screen, prompt and bars."""
        dirty = set(self._dirty_regions)
        shown = self._visible_map if self._visible_map is not None else self._full_map
        exposed = super().reflow_visible(parent, size)
        if size.region not in dirty and self._visible_map is not None:
            self._dirty_regions = dirty | moved_regions(shown, self._visible_map)
        return exposed

    @property
    def full_map(self) -> CompositorMap:
        """The map of every widget, arranged again if it is stale; what that moves on screen
        is repainted (see the class).

        A scroll arranges only the widgets in view (``reflow_visible``) and marks the full
        map stale (as does a refresh of a widget not in view); the next question about a
        widget's region arranges it with the sizes the widgets have *then*. A field that grew
        in between (text added, its scroll bar shown) is already in its new place there, and
        the layout it asked for finds nothing moved: it was never repainted (the prompt after
        a redo of a long paste, drawn over the chat until the next key). Here what the new map
        moved from what the screen shows (the map last painted from) is marked for repainting
        at once."""
        if not self._full_map_invalidated or self.root is None:
            return super().full_map
        shown = self._visible_map if self._visible_map is not None else self._full_map
        arranged = super().full_map
        self._dirty_regions |= moved_regions(shown, arranged)
        return arranged

    def forget_painted(self, painted: Collection[Region]) -> None:
        """Forget the repaints widgets asked for that an update painting ``painted`` (screen
        regions) has just painted, with their lines rendered anew.

        A widget asks for a repaint and the screen hears of it later (``messages.Update``,
        posted when the widget is next idle). A layout paints what it moved at once, and
        with it what the widgets it moved or resized (a new item, the scroll bar whose thumb
        the layout moved) asked for meanwhile; the screen then painted it all again in a
        frame of its own. Their pending repaints cleared, the late ``Update`` finds nothing
        to paint (:meth:`FrugalScreen._on_update`). A widget with lines still to render
        anew (asked for while it was painted, or out of view) keeps its repaint."""
        for widget, (region, clip) in self.visible_widgets.items():
            pending = widget._repaint_regions
            if pending and not widget._styles_cache._dirty_lines and all(
                    _inside(dirty.translate(region.offset).intersection(clip), painted)
                    for dirty in pending):
                pending.clear()

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        with self._whole_screen():
            return super().render_full_update(simplify)

    def render_strips(self, size: Size | None = None) -> list[Strip]:
        with self._whole_screen():
            return super().render_strips(size)

    @contextmanager
    def _whole_screen(self) -> Iterator[None]:
        """Render the screen as Textual does while inside (a full update, a screenshot)."""
        self._whole = True
        try:
            yield
        finally:
            self._whole = False

    def _get_renders(self, crop: Region | None = None
                     ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None or self._whole:
            yield from super()._get_renders(crop)
            return
        self._painted_lines.begin_paint()
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region.intersection(clip)
            changed = visible.intersection(crop)
            if not changed:
                continue
            rows = Region(visible.x, changed.y, visible.width, changed.height)
            lines = rows.translate(-region.offset)
            yield region, rows, self._painted_lines.render_lines(widget, lines, region.size)


_VIRTUAL_SIZE: Reactive[Size] = Widget.virtual_size


class FrugalScroll(VerticalScroll):
    """A vertical scroll of widgets that come and go (the chat's) that lays out and paints no
    more than they need.

    Its height changes with every child mounted and every one that grows a line; the layout
    that changed it placed its scroll bar already and kept it at the bottom: its
    ``virtual_size`` asks for no layout (:func:`size_without_relayout`).

    And its own lines (its background, between and around its children) are kept when only
    its children change. A child mounted or removed asks its parent for a layout *and* a repaint
    (``refresh(layout=True)``), and the repaint throws away the lines the parent rendered
    before (its styles cache): each item added to the chat rendered every row of the chat's
    background again, though not one of them changed. Here such a refresh only lays out (the
    layout repaints what moved, :class:`FrugalCompositor`), unless what the lines are made
    of changed since they were rendered: the container's styles (``_cache_key``, which moves
    with every rule set), the backgrounds under it, or the size of its content.
    """

    virtual_size = size_without_relayout()
    _drawn_with: tuple[object, ...] | None = None

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Its vertical scroll bar (made when first asked for, as Textual's), a
        :class:`RowScrollBar`."""
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = bar = RowScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if layout and repaint and not regions and not recompose and self.is_mounted:
            drawn_with = (self.styles._cache_key, self.background_colors,
                          self.content_region.size, self.app.ansi_theme)
            if drawn_with == self._drawn_with:
                repaint = False
            self._drawn_with = drawn_with
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class FrugalScreen(Screen[ScreenResultType]):
    """A screen drawn by a :class:`FrugalCompositor`, whose layouts ask for no second layout.

    Textual's layout sets the virtual size of every widget it resized, and Textual's
    ``virtual_size`` reactive then asks for a layout of the whole screen in the next frame,
    which finds what the first one found. Every widget of a new reply (each heading, table
    cell, code block and list) asked for it, so each reply was laid out twice: about 200 ms
    more for a long one in a full chat. Here the virtual sizes the layout itself sets ask for
    no layout; anything else that changes one still does. A widget that scrolls has its
    scroll bars placed by ``_size_updated``, and one that appears or goes asks for its own
    layout (``show_vertical_scrollbar``).
    """

    #: The focused widget. Textual's asks for a repaint of the whole screen as it changes:
    #: every widget in view rendered again for a focus change (about 20 ms beside a long
    #: reply, more on a slower machine), though only the widgets whose styles the focus
    #: changes (the focused and blurred ones, and those styled by ``:focus-within``) look
    #: different, and they are styled again and repaint themselves.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name, id, classes)
        self._compositor = FrugalCompositor()
        self._shown_before = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first time it shows, the screen is not styled again: it was as it mounted.

        (Textual's own handler, which runs after this one, styles every widget of a screen
        that resumes anew, for what changed while it was covered: for a screen shown for the
        first time, a second styling of all it just mounted, before its first frame.)"""
        if not self._shown_before:
            self._shown_before = True
            event.refresh_styles = False

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        asks_for_layout, _VIRTUAL_SIZE._layout = _VIRTUAL_SIZE._layout, False
        try:
            super()._refresh_layout(size, scroll)
        finally:
            _VIRTUAL_SIZE._layout = asks_for_layout

    def _compositor_refresh(self) -> None:
        """Paint what changed, then forget the repaints it painted
        (:meth:`FrugalCompositor.forget_painted`); while the app holds its updates
        (``App.batch_update``), paint nothing and keep what changed for the first frame after.

        Textual renders the update while updates are held and its ``App._display`` drops it,
        and with it what it painted: the screen's regions to repaint were cleared for a frame
        never shown. A chat opening onto its history showed its first frame without its prompt
        and status bar (drawn in a frame dropped while the history mounted) until the next
        layout painted the whole screen again."""
        app, compositor = self.app, self._compositor
        on_top = self is app.screen and not app.is_inline
        if on_top and app._batch_count:
            return
        painted = set(compositor._dirty_regions)
        super()._compositor_refresh()
        if on_top and isinstance(compositor, FrugalCompositor):
            compositor.forget_painted(painted)

    async def _on_update(self, message: messages.Update) -> None:
        """A widget asked for a repaint: paint it in the next frame, unless what it asked
        for was painted since (:meth:`FrugalCompositor.forget_painted`), or it asked before
        it was mounted (mounting lays it out, which paints it): a frame then paints nothing
        new (three frames of each turn of the chat did)."""
        widget = message.widget
        if isinstance(widget, Widget) and not widget._repaint_regions:
            message.stop()
            message.prevent_default()
            return
        await super()._on_update(message)

    def post_message(self, message: Message) -> bool:
        """A widget's request for a layout (``messages.Layout``) is noted as it is posted
        (:meth:`_note_layout`), not when the screen comes to it in its queue.

        A widget posts it as it idles, and the screen's layout, run by a timer, could come
        first: it arranged the widget anew all the same (a reply's document that had just
        mounted its first paragraph), and the request, heard after it, laid out the whole
        screen again for nothing, once a turn and at every heading of a long reply. A
        request is in the first layout that runs after it. And none is lost: Textual drops a
        queued ``Layout`` when another comes right after it (``can_replace``), though each
        names the widget it is for."""
        if isinstance(message, messages.Layout) and not (self._closing or self._closed):
            self._note_layout(message.widget)
            return True
        return super().post_message(message)

    def _note_layout(self, widget: Widget) -> None:
        """Note, for each container up to the first of a fixed size, the child of it that
        holds ``widget``, which asked for a layout; the next layout of the screen follows.

        A ``stream`` layout (the chat's) places again only from the first child noted and
        keeps the places above it. Textual's handler checks each child against the
        containers already noted instead of the container's own children: a card whose body
        grew was never noted in the chat, and kept its old height whenever a widget below it
        asked for a layout in the same frame (a call's "not run" reason, shown as the
        turn's reply came, was cut off).
        """
        noted = False
        for ancestor in widget.ancestors:
            if not isinstance(ancestor, Widget):
                break
            asked = self._layout_widgets.setdefault(ancestor, set())
            if widget not in asked:
                asked.add(widget)
                noted = True
            if not ancestor.styles.auto_dimensions:
                break
            widget = ancestor
        if noted and not self._layout_required:
            self._layout_required = True
            self.check_idle()


def _inside(region: Region, painted: Collection[Region]) -> bool:
    """Whether ``region`` is empty or inside one of ``painted``."""
    return not region or any(area.contains_region(region) for area in painted)


# --- scrolling (openletta.ui.chat_scroll) -----------------------------------------------------


def remove_hidden(widgets: Sequence[Widget]) -> AwaitRemove:
    """Remove ``widgets``, each hidden, without ``remove_children``'s layout and repaint of
    all of their parent (every widget in the chat's view), though nothing on screen changes.
    The parent is arranged again when next needed (its arrangement is kept per children)."""
    return widgets[0].app._prune(*widgets, parent=None) if widgets else AwaitRemove([])
