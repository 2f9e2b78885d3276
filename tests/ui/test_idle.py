"""At idle nothing repaints by itself: no text field's cursor blinks (a blink repaints twice a
second), on any screen a user may leave open."""

from __future__ import annotations

from chat_helpers import open_chat
from textual.widgets import Input, TextArea

from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.model import ModelScreen
from openletta.ui.screens.new_agent import NewAgentScreen

SIZE = (100, 30)


def blinking(app) -> list[str]:
    """The text fields of the screen whose cursor blinks."""
    fields = [*app.screen.query(Input), *app.screen.query(TextArea)]
    return [repr(field) for field in fields if field.cursor_blink]


async def test_no_text_field_blinks(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and app.screen.agents, what="the chooser")
        assert app.screen.query(Input) and blinking(app) == []
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewAgentScreen), what="form")
        assert blinking(app) == []
        await pilot.press("escape", "enter")
        screen = await open_chat(pilot, wait_until)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: screen.search.display, what="the find bar")
        assert len(screen.query(Input)) >= 1 and blinking(app) == []
        await pilot.press("escape", *"/model", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelScreen), what="models")
        assert blinking(app) == []
