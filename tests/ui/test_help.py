"""F1 help: read over the chat, scrolled with the keys."""

from __future__ import annotations

from chat_helpers import open_chat
from textual import events
from textual.containers import VerticalScroll

from openletta.ui.screens.help import HelpScreen


async def test_the_first_end_shows_the_end_of_the_help_at_once(demo_server, make_app,
                                                                 wait_until) -> None:
    """End goes to the bottom in one jump, not an animation that is a row short for most
    of its second (nor is Home)."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=(100, 40)) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        box = app.screen.query_one("#help-box", VerticalScroll)
        await wait_until(pilot, lambda: box.max_scroll_y > 0, what="the help laid out")
        app.post_message(events.Key("end", None))  # as a terminal sends it (press() would
        await pilot.pause()                         # wait for the scroll's animation)
        assert box.scroll_y == box.max_scroll_y
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any("how local tool calls are approved" in row for row in rows)  # its last row
        app.post_message(events.Key("home", None))
        await pilot.pause()
        assert box.scroll_y == 0


async def test_the_help_shows_each_commands_argument_as_the_slash_menu_does(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=(100, 70)) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await wait_until(pilot, lambda: any(
            "/export [path]" in strip.text for strip in app.screen._compositor.render_strips()),
            what="the commands")
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
    for usage in ("/new [name]", "/rename <name>", "/model [handle]", "/theme [name]",
                  "/export [path]", "/help"):
        assert any(f"  {usage}  " in row for row in rows), usage
