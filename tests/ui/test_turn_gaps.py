"""A turn's footer stands one line below what the turn ended with, whatever that is."""

from __future__ import annotations

from chat_helpers import demo_chat, send

from openletta.ui.widgets import AssistantMessage, ErrorBlock, TurnFooter


async def test_a_footer_stands_one_line_below_a_reply_and_below_an_error(
        demo_server, make_app, wait_until) -> None:
    """(The footer of a turn the server failed sat right under the error's card, where every
    other turn's has a line of its own.)"""
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        for text in ("hello", "llmerror"):
            await send(pilot, screen, text, wait_until)
        scroll = screen.view.scroll
        await wait_until(pilot, lambda: len(scroll.query(TurnFooter)) == 2,
                         what="both turns' footers")
        await pilot.pause()
        widgets = [child for child in scroll.children if child.display]
        gaps = {type(widgets[index - 1]).__name__:
                footer.virtual_region.y - widgets[index - 1].virtual_region.bottom
                for index, footer in enumerate(widgets) if isinstance(footer, TurnFooter)}
        assert gaps == {AssistantMessage.__name__: 1, ErrorBlock.__name__: 1}
