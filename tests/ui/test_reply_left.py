"""A chat left while its reply streams (the app quit) shows, when it opens again on that
reply, the message the reply answers as its bubble: the server stores it only once the run
ends. If Esc
then stops the reply and the server drops the turn, the message goes back to the prompt, as
it does for a turn stopped live before its first word."""

from __future__ import annotations

from chat_helpers import demo_chat, open_chat
from conftest import _running
from test_app import SIZE, first_agent_name

from openletta.chat.controller import FOLLOWING_OPENED
from openletta.demo import DemoServer
from openletta.transcript import EventItem, TurnFooterItem, UserItem
from openletta.ui.screens.chat import ChatScreen


def divider(screen: ChatScreen) -> str:
    return next((item.text for item in screen.session.transcript.items
                 if isinstance(item, EventItem) and item.event_type == "following"), "")


def unkept(screen: ChatScreen) -> bool:
    return any(isinstance(item, TurnFooterItem) and item.unkept
               for item in screen.session.transcript.items)


async def test_a_reply_left_streaming_shows_its_message_and_gives_it_back_if_dropped(
        make_app, wait_until) -> None:
    server = DemoServer(speed=1.0)
    base_url = await server.start()
    try:
        agent = await first_agent_name(base_url)
        app = make_app(base_url=base_url, agent=agent)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await pilot.press(*"slow follow test", "enter")
            await wait_until(pilot, lambda: screen.session.reply_in_flight() is not None,
                             what="the reply streaming", timeout=10)
            app.exit()  # mid-reply: the run goes on on the server
        again = make_app(base_url=base_url, agent=agent)
        async with again.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(again.screen, ChatScreen)
                             and again.screen.session.turn_open, what="the reply followed")
            screen = again.screen
            assert isinstance(screen, ChatScreen)
            assert divider(screen) == FOLLOWING_OPENED
            assert [item.text for item in screen.session.transcript.items
                    if isinstance(item, UserItem)] == ["slow follow test"]  # its bubble
            await pilot.press("escape")  # the server drops the whole turn
            await wait_until(pilot, lambda: unkept(screen), what="not kept", timeout=10)
            await wait_until(pilot, lambda: screen.prompt.text == "slow follow test",
                             what="the message back in the prompt")
    finally:
        await server.stop()



async def test_esc_before_the_first_word_of_a_live_turn_gives_the_message_back(
        make_app, wait_until) -> None:
    async for demo in _running(DemoServer(speed=1.0)):
        async with demo_chat(make_app, demo.base_url, wait_until, SIZE) as (_, pilot, screen):
            await pilot.press(*"slow live test", "enter")
            await wait_until(pilot, lambda: screen.session.run_id is not None,
                             what="the run named", timeout=10)
            await pilot.press("escape", *"new words")  # the server drops the whole turn
            await wait_until(pilot, lambda: unkept(screen), what="not kept", timeout=10)
            await wait_until(pilot, lambda: screen.prompt.text == "slow live test\n\nnew words",
                             what="the message back in the prompt, ahead of the new words")
