"""The memory panel and the find bar are made the first time they are shown, not with the chat
(:class:`~openletta.ui.when_shown.MountedWhenShown`): the chat opens without them, and the
first F2 or Ctrl+F shows them as before, its field taking the keys."""

from __future__ import annotations

import asyncio

from chat_helpers import demo_chat
from test_ui_parts import read_together
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from openletta.ui.when_shown import MountedWhenShown

SIZE = (110, 30)


async def test_the_chat_opens_without_its_memory_panel_and_find_bar(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (_, _, screen):
        assert screen.memory is None and screen.search is None
        assert not screen.query("#memory-panel") and not screen.query("#search-bar")


async def test_ctrl_f_makes_the_find_bar_once_and_its_field_takes_the_keys(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (
            app, pilot, screen):
        await pilot.press("ctrl+f", *"demo")
        bar = screen.search
        assert bar is not None and bar.display and bar.search_text == "demo"
        assert isinstance(app.focused, Input) and app.focused.parent is bar
        await pilot.press("escape")
        assert not bar.display and app.focused is screen.prompt
        await pilot.press("ctrl+f")
        assert screen.search is bar and bar.display and len(screen.query("#search-bar")) == 1


async def test_keys_read_together_with_ctrl_f_go_to_the_find_bar(
        demo_server, make_app, wait_until) -> None:
    """``\x06abc`` in one read (a paste, fast typing): Ctrl+F opens the find bar and
    ``abc`` is searched for, not typed in the prompt; so too once the bar was made."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (
            app, pilot, screen):
        await read_together(pilot, ("ctrl+f", "\x06"), *[(c, c) for c in "abc"])
        bar = screen.search
        await wait_until(pilot, lambda: bar is not None and bar.search_text == "abc",
                         what="abc in the find field")
        assert screen.prompt.text == ""
        await pilot.press("escape")
        await read_together(pilot, ("ctrl+f", "\x06"), *[(c, c) for c in "xy"])
        await wait_until(pilot, lambda: bar is not None and bar.search_text == "xy",
                         what="xy in the find field")
        assert screen.prompt.text == "" and app.focused is not screen.prompt


async def test_f2_twice_at_once_makes_one_panel_shown_then_hidden(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (
            app, pilot, screen):
        await pilot.press("f2", "f2")
        panel = screen.memory
        assert panel is not None and len(screen.query("#memory-panel")) == 1
        assert not panel.display and app.focused is screen.prompt
        await pilot.press("f2")
        await wait_until(pilot, lambda: panel.display and app.focused is not screen.prompt,
                         what="the panel shown, a block focused")
        assert panel.region.x >= screen.view.region.right  # beside the chat, on its right


class Parent(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("first", id="first")
        yield Static("last", id="last")


async def test_the_widget_is_made_once_and_mounted_before_its_sibling() -> None:
    app = Parent()
    async with app.run_test():
        made: list[Static] = []

        def make() -> Static:
            made.append(Static("middle", id="middle"))
            return made[-1]

        later = MountedWhenShown(app.screen, make, before=app.query_one("#last"))
        assert later.widget is None and not made
        first, second = await asyncio.gather(later.shown(), later.shown())
        assert first is second is later.widget is made[0] and first.is_mounted
        assert [child.id for child in app.screen.children] == ["first", "middle", "last"]
        assert await later.shown() is first and len(made) == 1
