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
from textual.pilot import Pilot
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
def lines_rendered(scroll: ChatScroll, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
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
