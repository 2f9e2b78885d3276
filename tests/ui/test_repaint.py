"""A layout repaints only what it moved, and the terminal still shows what a full repaint would.

:func:`~openletta.ui.repaint.moved_regions` decides what a layout repaints; the chat removes
the widgets it hid without a repaint (``remove_hidden``). The unit tests pin the rule on
made-up maps; the chat tests replay every update the screen sends into a grid of cells, as a
terminal would, and compare it with a full render of the screen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from chat_helpers import demo_chat, laid_out, send
from rich.cells import cell_len
from rich.style import Style
from test_chat_view import ViewApp, add_turns, settled
from textual import events
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual._styles_cache import StylesCache
from textual.app import App
from textual.geometry import Region, Spacing
from textual.map_geometry import MapGeometry
from textual.pilot import Pilot
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from waiting import wait_until

from openletta.transcript import Transcript
from openletta.ui.chat_view import ChatView
from openletta.ui.repaint import moved_regions
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.textual_internals import FrugalCompositor, FrugalScreen
from openletta.ui.widgets import ItemWidget

SCREEN = Region(0, 0, 80, 24)
Cell = tuple[str, Style | None]


def geometry(region: Region, order: int, clip: Region = SCREEN) -> MapGeometry:
    return MapGeometry(region, ((0, 0, 0), (0, 0, order)), clip, region.size, region.size,
                       region, Spacing())


def test_widgets_that_only_paint_later_in_the_order_are_not_repainted() -> None:
    """What hiding a widget above the view does to the widgets after it: each paints one
    place later in the order, and one row higher in its container, but on the same cells."""
    old = {"gone": geometry(Region(0, -5, 80, 3), 9, SCREEN),
           "a": geometry(Region(0, 0, 80, 10), 8), "b": geometry(Region(0, 10, 80, 10), 7)}
    new = {"a": old["a"]._replace(order=((0, 0, 0), (0, 0, 9)),
                                  virtual_region=Region(0, 1, 80, 10)),
           "b": old["b"]._replace(order=((0, 0, 0), (0, 0, 8)))}
    assert moved_regions(old, new) == set()


def test_a_widget_that_moved_repaints_where_it_was_and_where_it_is() -> None:
    old = {"a": geometry(Region(0, 0, 80, 10), 1)}
    new = {"a": geometry(Region(0, 2, 80, 10), 1), "new": geometry(Region(0, 12, 80, 1), 2)}
    assert moved_regions(old, new) == {Region(0, 0, 80, 10), Region(0, 2, 80, 10),
                                       Region(0, 12, 80, 1)}


def test_a_widget_gone_repaints_its_visible_part_only() -> None:
    old = {"half": geometry(Region(0, 20, 80, 8), 1), "above": geometry(Region(0, -9, 80, 8), 2)}
    assert moved_regions(old, {}) == {Region(0, 20, 80, 4)}


def test_two_widgets_that_swap_painting_order_are_repainted() -> None:
    """Overlapping widgets (a menu over the chat) whose order turns around change cells
    without moving: their regions are repainted."""
    under, over = Region(0, 0, 80, 10), Region(10, 5, 20, 3)
    old = {"chat": geometry(under, 1), "menu": geometry(over, 2)}
    new = {"chat": geometry(under, 2), "menu": geometry(over, 1)}
    assert moved_regions(old, new) == {under, over}


class FrugalViewApp(ViewApp):
    """The chat view on the screen the chat uses."""

    def get_default_screen(self) -> Screen[object]:
        return FrugalScreen()


class Terminal:
    """The cells a terminal shows after the updates a compositor sent to it."""

    def __init__(self, compositor: Compositor, app: App[object] | None = None) -> None:
        """``app``: an update it renders while it holds its updates (``App.batch_update``)
        never reaches the terminal, as ``App._display`` drops it."""
        self.compositor = compositor
        self.rows = [cells(strip) for strip in compositor.render_strips()]
        #: Rows written by each update since :meth:`watch` began (none for a frame that
        #: painted nothing), and whether it changed a cell.
        self.updated: list[set[int]] = []
        self.changed: list[bool] = []
        render_update = compositor.render_update

        def recorded(*args: object, **kwargs: object) -> object:
            update = render_update(*args, **kwargs)  # type: ignore[arg-type]
            if app is None or not app._batch_count:
                self.apply(update)
            return update

        compositor.render_update = recorded  # type: ignore[method-assign]

    def apply(self, update: object) -> None:
        """Write ``update`` as Textual's driver writes it (``render_segments``)."""
        written: set[int] = set()
        before = [row.copy() for row in self.rows]
        if isinstance(update, LayoutUpdate):
            for y, strips in enumerate(update.strips):
                self.write(y, 0, Strip.join(strips))
                written.add(y)
        elif isinstance(update, ChopsUpdate):
            for y, x1, x2 in update.spans:
                for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(),
                                           strict=False):
                    if strip is None or x > x2 or end <= x1:
                        continue
                    inside = x2 > x >= x1 and end <= x2
                    self.write(y, x, strip if inside else strip.crop(0, min(end, x2) - x))
                    written.add(y)
        self.updated.append(written)
        self.changed.append(self.rows != before)

    def write(self, y: int, x: int, strip: Strip) -> None:
        for offset, cell in enumerate(cells(strip)):
            self.rows[y][x + offset] = cell

    def matches_a_full_render(self) -> bool:
        return self.rows == [cells(strip) for strip in self.compositor.render_strips()]


def cells(strip: Strip) -> list[Cell]:
    """One ``(character, style)`` per cell (a wide character's second cell is empty)."""
    row: list[Cell] = []
    for segment in strip:
        if segment.control:
            continue
        for character in segment.text:
            row.append((character, segment.style))
            row.extend([("", segment.style)] * (cell_len(character) - 1))
    return row


@asynccontextmanager
async def watched_chat() -> AsyncIterator[tuple[Pilot[None], ChatView, Transcript, Terminal]]:
    """The end of a long chat at 80x24, every update to its screen written to a terminal."""
    app = FrugalViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 60)
        await settled(pilot, view)
        yield pilot, view, transcript, Terminal(app.screen._compositor)


async def test_hiding_and_removing_items_above_the_view_repaints_no_row_of_the_chat() -> None:
    """The point: Textual repainted every row of the chat when one far above it went."""
    async with watched_chat() as (pilot, view, _transcript, terminal):
        oldest = [widget for widget in view.scroll.children
                  if isinstance(widget, ItemWidget) and widget.display][:4]
        assert all(widget.region.bottom <= view.scroll.region.y for widget in oldest)
        view.scroll.retire(oldest)
        view.scroll.remove_retired()
        await wait_until(pilot, lambda: not any(widget.is_attached for widget in oldest),
                         what="the hidden items removed")
        await settled(pilot, view)
        chat_rows = set(range(view.scroll.region.y, view.scroll.region.bottom))
        assert not chat_rows & set().union(*terminal.updated)
        assert terminal.matches_a_full_render()


async def test_the_terminal_shows_a_full_render_after_turns_that_prune_the_chat() -> None:
    async with watched_chat() as (pilot, view, transcript, terminal):
        first = view.mounted_items[0]
        for _ in range(12):
            add_turns(view, transcript, 1)
            await settled(pilot, view)
        assert first not in view.mounted_items  # old items were hidden and removed
        assert len(terminal.updated) > 12
        assert terminal.matches_a_full_render()
        view.scroll.scroll_relative(y=-30, animate=False)
        await settled(pilot, view)
        assert terminal.matches_a_full_render()


@asynccontextmanager
async def taller_demo_chat(demo_server, make_app
                           ) -> AsyncIterator[tuple[Pilot[None], ChatScreen]]:
    """The demo app's chat at 120x40, after enough turns for it to be taller than the view
    (each turn then scrolls it)."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(120, 40)) as (
            _app, pilot, screen):
        while screen.view.scroll.max_scroll_y <= 0:
            await send(pilot, screen, "hello", wait_until)
            await laid_out(pilot, screen.view)
        yield pilot, screen


def styled_rows(monkeypatch) -> list[tuple[object, int]]:
    """From now on, each widget Textual styles lines of, with how many lines (``StylesCache``:
    what a widget's lines given again skip)."""
    styled: list[tuple[object, int]] = []
    render_widget = StylesCache.render_widget

    def counted(cache: StylesCache, widget: object, crop: Region) -> list[Strip]:
        styled.append((widget, crop.height))
        return render_widget(cache, widget, crop)  # type: ignore[arg-type]

    monkeypatch.setattr(StylesCache, "render_widget", counted)
    return styled


async def test_a_layout_gives_the_lines_of_items_that_only_moved_as_they_were(
        demo_server, make_app, monkeypatch) -> None:
    """A turn added at the bottom moves every item in view up: their lines are the ones
    painted before (Textual worked out each one's colours, filters and crop again)."""
    async with taller_demo_chat(demo_server, make_app) as (pilot, screen):
        scroll = screen.view.scroll
        terminal = Terminal(screen._compositor)
        before = {widget for widget in scroll.children if scroll.shows(widget)}
        styled = styled_rows(monkeypatch)
        await send(pilot, screen, "hello", wait_until)
        await laid_out(pilot, screen.view)
        moved = {widget for widget in before if scroll.shows(widget)}
        assert len(moved) > 3 and not moved & {widget for widget, _rows in styled}
        assert terminal.matches_a_full_render()


async def test_the_rows_under_the_chat_are_styled_once_for_all_rows_alike(
        demo_server, make_app, monkeypatch) -> None:
    """The screen, the chat's view and its scroller show only their background (under and
    between the messages): a turn that moves the chat styled each of their rows in view
    again, one by one, at every layout. One row stands for all the rows of its kind."""
    async with taller_demo_chat(demo_server, make_app) as (pilot, screen):
        terminal = Terminal(screen._compositor)
        styled = styled_rows(monkeypatch)
        pending = screen.view.query_one("#pending")
        shown: list[tuple[str, str]]
        for shown in ([("queued", "later")], []):  # the chat's height changes: it repaints
            screen.view.set_pending(shown)
            await wait_until(pilot, lambda shown=shown: pending.size.height == len(shown),
                             what="the queued row")
            await laid_out(pilot, screen.view)
        await send(pilot, screen, "hello", wait_until)
        await laid_out(pilot, screen.view)
        boxes: dict[object, int] = {screen: 0, screen.view: 0, screen.view.scroll: 0}
        for widget, rows in styled:
            if widget in boxes:
                boxes[widget] += rows
        assert all(rows <= 3 for rows in boxes.values()), boxes
        assert terminal.matches_a_full_render()


async def test_a_thumb_that_a_layout_moves_is_repainted() -> None:
    """An anchored scroller's layout puts it at its bottom and moves its scroll bar's thumb
    without the repaint that moving it asks for otherwise: Textual left the old thumb on
    screen (seen when a narrower window wraps the chat and it grows)."""
    async with watched_chat() as (_pilot, view, _transcript, _terminal):
        screen, bar = view.screen, view.scroll.vertical_scrollbar
        compositor = FrugalCompositor()
        compositor.reflow(screen, screen.outer_size)
        bottom = bar.position
        assert bottom and view.scroll.is_anchored
        bar.set_reactive(ScrollBar.position, 0.0)  # as the thumb was before the content grew
        compositor._dirty_regions.clear()
        compositor.reflow(screen, screen.outer_size)
        assert bar.position == bottom
        thumb = compositor.find_widget(bar).visible_region
        assert any(region.contains_region(thumb) for region in compositor._dirty_regions)


async def test_a_prompt_grown_by_a_redo_after_a_scroll_is_repainted(demo_server,
                                                                    make_app) -> None:
    """Undo of a long paste shrinks the prompt and scrolls the chat (which leaves the
    compositor's full map stale); redo grows it again, and the question about a region its
    scroll bar asks arranged that map with the prompt already grown: the layout after it
    found nothing moved, and the prompt was left drawn over the chat, one row of it, until
    the next key."""
    pasted = "\n".join(f"plain line {number}" for number in range(1, 301))
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(120, 40)) as (
            app, pilot, screen):
        await send(pilot, screen, "long", wait_until)  # a chat taller than the view
        prompt, compositor = screen.prompt, screen._compositor
        terminal = Terminal(compositor)
        app.post_message(events.Paste(pasted))
        await wait_until(pilot, lambda: prompt.show_vertical_scrollbar, what="the paste")
        tallest = prompt.region.height
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: prompt.region.height < tallest, what="the undo")
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: prompt.region.height == tallest and not (
            compositor._dirty_regions or screen._layout_widgets), what="the redo laid out")
        assert prompt.text == pasted
        assert terminal.matches_a_full_render()


async def test_a_scroll_after_a_layout_repaints_the_chat_not_the_whole_screen(
        demo_server, make_app) -> None:
    """Textual compares a scroll's arrangement with the last scroll's, which every layout
    forgets: the first scroll after a layout (once a turn, as the chat follows its newest
    line) repainted every row of the screen, the prompt and the bars with it."""
    async with taller_demo_chat(demo_server, make_app) as (pilot, screen):
        scroll = screen.view.scroll
        size = screen.outer_size
        textuals, ours = Compositor(), FrugalCompositor()
        for compositor in (textuals, ours):
            compositor.reflow(screen, size)
            compositor._dirty_regions.clear()
            compositor.reflow_visible(screen, size)  # nothing scrolled since the layout
        assert size.region in textuals._dirty_regions
        assert ours._dirty_regions == set()

        terminal = Terminal(screen._compositor)
        scroll.refresh(layout=True)
        await laid_out(pilot, screen.view)
        scroll.scroll_relative(y=-3, animate=False)
        await wait_until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y - 3,
                         what="the chat scrolled")
        await laid_out(pilot, screen.view)
        chat_rows = set(range(scroll.region.y, scroll.region.bottom))
        assert terminal.updated and set().union(*terminal.updated) <= chat_rows
        assert terminal.matches_a_full_render()


async def test_a_focus_change_renders_what_it_changes_not_the_whole_screen(
        demo_server, make_app, monkeypatch) -> None:
    """Textual repaints the whole screen whenever the focus moves: every widget in view was
    rendered again to focus a message (and again for the prompt). The other messages in view
    look no different, and are not; the terminal shows what a full render shows."""
    async with taller_demo_chat(demo_server, make_app) as (pilot, screen):
        scroll = screen.view.scroll
        shown = [item for item in scroll.children
                 if isinstance(item, ItemWidget) and scroll.shows(item)]
        focused = shown[-1]
        others = {widget for item in shown if item is not focused
                  for widget in (item, *item.query("*"))}
        terminal = Terminal(screen._compositor)
        styled = styled_rows(monkeypatch)
        for target in (focused, screen.prompt):
            target.focus(scroll_visible=False)
            await wait_until(pilot, lambda target=target: target.has_focus, what="the focus")
            await laid_out(pilot, screen.view)
        rendered = {widget for widget, _rows in styled}
        assert focused in rendered  # (tinted, then not)
        assert len(others) > 3 and rendered.isdisjoint(others)
        assert terminal.matches_a_full_render()
