"""The chat's scroller keeps its own lines (its background) when items come or go, and draws
them anew when what they are made of changes (its styles, the background under it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.color import Color
from textual.geometry import Region
from textual.pilot import Pilot
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

from openletta.ui.chat_scroll import ChatScroll
from openletta.ui.textual_internals import FrugalScreen


class ScrollScreen(FrugalScreen[None]):
    def compose(self) -> ComposeResult:
        with ChatScroll(id="chat-scroll"):
            yield Static("first item")


class ScrollApp(App[None]):
    CSS = "ChatScroll { padding: 0 1; }"

    def on_mount(self) -> None:
        self.push_screen(ScrollScreen())


@contextmanager
def lines_rendered(scroll: Widget, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The rows of ``scroll``'s own lines rendered anew (not from its cache) while inside."""
    rows: list[int] = []
    original = StylesCache.render_line

    def counted(cache: StylesCache, styles: Any, y: int, *args: Any, **kwargs: Any) -> Any:
        if styles.node is scroll:
            rows.append(y)
        return original(cache, styles, y, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(StylesCache, "render_line", counted)
        yield rows


async def shown_scroll(pilot: Pilot[None]) -> ChatScroll:
    while not isinstance(pilot.app.screen, ScrollScreen):
        await pilot.pause()
    await pilot.app.screen.query_one(ChatScroll).mount(Static("second"))  # the lines settle
    await pilot.pause()
    return pilot.app.screen.query_one(ChatScroll)


async def test_items_mounted_and_removed_leave_the_scrollers_own_lines_as_drawn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with ScrollApp().run_test(size=(40, 12)) as pilot:
        scroll = await shown_scroll(pilot)
        with lines_rendered(scroll, monkeypatch) as rows:
            for number in range(3):
                await scroll.mount(Static(f"item {number}"))
                await pilot.pause()
            await scroll.children[-1].remove()
            await pilot.pause()
        assert rows == []
        screen = "".join(strip.text for strip in pilot.app.screen._compositor.render_strips())
        assert "item 1" in screen and "item 2" not in screen


async def test_the_scrollers_lines_are_drawn_anew_when_its_padding_or_the_background_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with ScrollApp().run_test(size=(40, 12)) as pilot:
        scroll = await shown_scroll(pilot)
        with lines_rendered(scroll, monkeypatch) as rows:
            scroll.styles.padding = (0, 3)
            await scroll.mount(Static("item"))
            await pilot.pause()
        assert rows
        with lines_rendered(scroll, monkeypatch) as rows:
            pilot.app.screen.styles.background = Color(200, 0, 0)
            await scroll.mount(Static("another"))
            await pilot.pause()
        assert rows


async def scroll_with_bar(pilot: Pilot[None]) -> tuple[ChatScroll, ScrollBar, Region]:
    """The scroller, with items enough for a scroll bar; its bar, and all the bar's rows."""
    scroll = await shown_scroll(pilot)
    await scroll.mount_all([Static(f"item {number}") for number in range(40)])
    while not scroll.vertical_scrollbar.size.height:
        await pilot.pause()
    bar = scroll.vertical_scrollbar
    return scroll, bar, Region(0, 0, bar.size.width, bar.size.height)


async def test_the_scroll_bar_styles_each_kind_of_row_once_and_draws_what_textuals_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its rows are the track, the thumb and the thumb's two ends: Textual styled every row
    anew each time the thumb moved (every layout of a growing chat), all 36 of a chat's."""
    async with ScrollApp().run_test(size=(40, 12)) as pilot:
        scroll, bar, rows = await scroll_with_bar(pilot)
        for eighths in range(0, 8 * round(scroll.max_scroll_y) + 1, 3):
            bar.mouse_over = eighths % 2 == 0  # the thumb's other colours
            bar.position = eighths / 8
            bar.refresh()
            with lines_rendered(bar, monkeypatch) as styled:
                ours = bar.render_lines(rows)
            bar.refresh()
            assert ours == ScrollBar.render_lines(bar, rows)
            assert len(styled) <= 5 < rows.height


async def test_the_scroll_bar_draws_rows_styled_before_without_rendering_the_bar_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A chat that grows moves the thumb at every layout, but its rows take the same few
    shapes: those styled before are drawn again as they were, without rendering the bar
    (through Rich, every row) to find what its rows are."""
    async with ScrollApp().run_test(size=(40, 12)) as pilot:
        _scroll, bar, rows = await scroll_with_bar(pilot)
        rendered: list[int] = []
        render_line = Widget.render_line

        def counted(widget: Widget, y: int) -> Any:
            if widget is bar:
                rendered.append(y)
            return render_line(widget, y)

        monkeypatch.setattr(Widget, "render_line", counted)
        for repeat in range(2):
            for position in (0, 3, 6, 3, 0):
                bar.position = position
                bar.refresh()
                rendered.clear()
                ours = bar.render_lines(rows)
                assert repeat == 0 or rendered == []
                bar.refresh()
                assert ours == ScrollBar.render_lines(bar, rows)
