"""Moving between conversations: a reply left streaming is said to go on; choosing an agent
again opens the conversation last open with it, in a later run too; a draft left in a
conversation deleted meanwhile comes to the default thread's prompt, and is said to."""

from __future__ import annotations

from chat_helpers import open_chat, side_conversation, start_new_conversation
from textual.pilot import Pilot

from openletta.api.client import LettaClient
from openletta.chat.turn_state import Phase
from openletta.demo import DemoServer
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.chat import ChatScreen

SIZE = (100, 30)
GOES_ON = "The reply in the default thread goes on; it will be there when you come back."


def said(app: OpenLettaApp, text: str) -> bool:
    return any(text in str(note.message) for note in app._notifications)


async def chat_with(pilot: Pilot[None], app: OpenLettaApp, conversation: str | None,
                    wait_until) -> ChatScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                     and app.screen.session.conversation_id == conversation,
                     what=f"{conversation or 'the default thread'} open")
    return await open_chat(pilot, wait_until)


async def test_leaving_a_reply_streaming_says_it_goes_on(make_app, wait_until) -> None:
    server = DemoServer(speed=5.0)  # replies at a slow pace: one is still streaming
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent="demo-agent")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await pilot.press(*"slow please", "enter")
            await wait_until(pilot, lambda: screen.controller.state.phase is Phase.STREAMING,
                             what="the reply streaming")
            side = await start_new_conversation(pilot, screen, wait_until)
            await wait_until(pilot, lambda: said(app, GOES_ON), what="the note")
            app.open_conversation(side.session.agent, None)  # back: the same reply, no note
            await chat_with(pilot, app, None, wait_until)
            assert [str(note.message) for note in app._notifications].count(GOES_ON) == 1
    finally:
        await server.stop()


async def test_an_agent_chosen_in_a_later_run_opens_the_conversation_last_open_with_it(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen, side = await side_conversation(pilot, wait_until)
        agent = screen.session.agent
    later = make_app(base_url=demo_server.base_url)  # Ctrl+A's chooser: the agent picked
    async with later.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: later.client is not None, what="connected")
        later.open_agent(agent)
        await chat_with(pilot, later, side, wait_until)
    async with LettaClient(demo_server.base_url) as client:
        await client.delete_conversation(side)
    after_deletion = make_app(base_url=demo_server.base_url)
    async with after_deletion.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: after_deletion.client is not None, what="connected")
        after_deletion.open_agent(agent)
        await chat_with(pilot, after_deletion, None, wait_until)
        assert said(after_deletion, "Showing the agent's default thread")


async def test_a_draft_left_in_a_conversation_deleted_since_comes_to_the_default_thread(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        _, side = await side_conversation(pilot, wait_until)
        await pilot.press(*"words kept")
        app.exit()
    async with LettaClient(demo_server.base_url) as client:
        await client.delete_conversation(side)
    resumed = make_app(base_url=demo_server.base_url, agent="demo-agent", conversation=side)
    async with resumed.run_test(size=SIZE) as pilot:
        screen = await chat_with(pilot, resumed, None, wait_until)
        assert screen.prompt.text == "words kept"
        assert said(resumed, "Showing the agent's default thread (the draft you left in "
                             "that conversation is in its prompt)")
