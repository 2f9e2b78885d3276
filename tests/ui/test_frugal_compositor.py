"""The chat screen's compositor paints less than Textual's and writes exactly what it writes.

:class:`~openletta.ui.textual_internals.FrugalCompositor` renders, for a partial update, only
the widgets whose visible part meets the changed region, and only its rows. These tests lay
a busy chat screen out with both compositors and compare, for many changed regions, the
bytes each update would send to the terminal.
"""

from __future__ import annotations

import random

from chat_helpers import open_chat, send
from textual._compositor import Compositor
from textual.dom import DOMNode
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from openletta.ui.chat_scroll import ChatScroll
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.textual_internals import FrugalCompositor

SIZE = (100, 30)
CASES = 300


def update_bytes(compositor: Compositor, regions: list[Region], console: object) -> str:
    """What the partial update of ``regions`` writes to the terminal ("" for nothing)."""
    compositor._dirty_regions = set(regions)
    update = compositor.render_partial_update()
    return "" if update is None else update.render_segments(console)  # type: ignore[arg-type]


def random_region(rng: random.Random) -> Region:
    width, height = SIZE
    x, y = rng.randrange(width), rng.randrange(height)
    return Region(x, y, rng.randint(1, width - x), rng.randint(1, min(4, height - y)))


def widget_regions(screen: ChatScreen, compositor: Compositor) -> list[Region]:
    """Each visible widget's visible part: what one widget's refresh makes dirty."""
    return [region.intersection(clip) for region, clip in compositor.visible_widgets.values()
            if region.intersection(clip)]


async def busy_screen(pilot, wait_until) -> ChatScreen:
    """A chat with a long Markdown reply, a tool card and the memory panel beside it,
    scrolled back so that widgets are cut at the top and bottom of the view, with the slash
    menu and a toast over it."""
    app = pilot.app
    screen = await open_chat(pilot, wait_until)
    await send(pilot, screen, "bash", wait_until)
    await send(pilot, screen, "long", wait_until)
    await pilot.press("f2")
    await wait_until(pilot, lambda: screen.memory.display, what="the memory panel")
    screen.prompt.focus()
    await pilot.press("pageup", "/")  # the slash menu opens over the chat
    await wait_until(pilot, lambda: screen.query_one("#completion-menu").display, what="the menu")
    app.notify("a toast over the chat")
    await wait_until(pilot, lambda: screen.query("Toast"), what="the toast")
    return screen


async def test_partial_updates_write_what_textuals_compositor_writes(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await busy_screen(pilot, wait_until)
        size = screen.outer_size
        textuals, ours = Compositor(), FrugalCompositor()
        textuals.reflow(screen, size)
        ours.reflow(screen, size)
        rng = random.Random(21)
        cases = [[region] for region in widget_regions(screen, ours)]
        cases += [[random_region(rng) for _ in range(rng.randint(1, 3))] for _ in range(CASES)]
        differing = [regions for regions in cases
                     if update_bytes(ours, regions, app.console)
                     != update_bytes(textuals, regions, app.console)]
        assert not differing, differing[:5]
        assert any(update_bytes(ours, regions, app.console) for regions in cases)


async def test_a_word_added_renders_the_paragraph_not_the_chat(
        demo_server, make_app, wait_until) -> None:
    """The point of it: a one-line change renders a handful of widgets, not every widget
    in the view (Textual renders each widget whose clip meets the change, whole)."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await busy_screen(pilot, wait_until)
        ours = screen._compositor
        assert isinstance(ours, FrugalCompositor)
        line = Region(10, 10, 40, 1)
        rendered = list(ours._get_renders(line))
        textuals = list(Compositor._get_renders(ours, line))
        assert len(rendered) < len(textuals)
        assert all(len(strips) == 1 for _, _, strips in rendered)


async def test_a_layout_arranges_the_screen_once(demo_server, make_app, wait_until) -> None:
    """A layout arranges the whole screen once, also when a new widget had been refreshed
    before it (``update_widgets`` marks the map stale): Textual's compositor arranged it
    again for the first region asked for, during the layout (a scroll bar whose window the
    layout changes repaints itself, asking for its size) or after it."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        scroll = screen.query_one(ChatScroll)
        while not scroll.max_scroll_y:
            await send(pilot, screen, "hello", wait_until)
        bar = scroll.vertical_scrollbar
        shown_by = screen._compositor
        arrangements: dict[type, int] = {}
        for kind in (Compositor, FrugalCompositor):
            compositor = screen._compositor = kind()
            arrange = compositor._arrange_root
            count = [0]

            def counted(*args: object, _arrange=arrange, _count=count, **kwargs: object):
                _count[0] += 1
                return _arrange(*args, **kwargs)

            compositor._arrange_root = counted  # type: ignore[method-assign]
            bar.set_reactive(ScrollBar.window_size, 0)  # the layout changes it (a row below)
            compositor._full_map_invalidated = True  # as a new widget's refresh leaves it
            compositor.reflow(screen, screen.outer_size)
            assert compositor.find_widget(screen.prompt).region == screen.prompt.region
            arrangements[kind] = count[0]
        screen._compositor = shown_by
        assert arrangements == {Compositor: 2, FrugalCompositor: 1}


async def test_a_paint_works_out_backgrounds_from_the_parents_not_each_widgets_ancestors(
        demo_server, make_app, wait_until, monkeypatch) -> None:
    """Whether a widget's lines can be given again depends on the background under it;
    Textual's ``background_colors`` walks every ancestor of the widget, for each widget of
    the chat in view at every layout that moves them (a few milliseconds a layout)."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await busy_screen(pilot, wait_until)
        ours = screen._compositor
        assert isinstance(ours, FrugalCompositor)
        everything = [Region(0, 0, *SIZE)]
        update_bytes(ours, everything, app.console)
        walks: list[object] = []
        colors = DOMNode.background_colors

        def counted(node: DOMNode) -> object:
            walks.append(node)
            return colors.fget(node)  # type: ignore[attr-defined]

        monkeypatch.setattr(DOMNode, "background_colors", property(counted))
        assert update_bytes(ours, everything, app.console)
        in_chat = [node for node in walks if isinstance(node, Widget)
                   and screen.view in node.ancestors and not isinstance(node, ScrollBar)]
        assert in_chat == []
