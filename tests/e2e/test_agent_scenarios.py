"""Agents made and changed through the real app on a real Letta 0.16.8: Ctrl+N in the chooser
makes one (the server's models offered, its memory blocks set) whose chat opens and answers;
``/model`` switches an agent's model, named or chosen from the list, and refuses an unknown
one; ``/compact`` summarises a thread, and history shows the summary where it was made;
``/conversations`` deletes a conversation (``d`` twice)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import pytest
import setup_agent
from e2e_turns import waited
from textual.widgets import OptionList

from openletta.api.client import LettaClient
from openletta.api.errors import NotFoundError
from openletta.settings import Settings
from openletta.transcript import AssistantItem, EventItem, Transcript, TurnFooterItem
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.conversations import ConversationsScreen
from openletta.ui.screens.model import ModelScreen
from openletta.ui.screens.new_agent import STARTING_MEMORY, NewAgentScreen

SIZE = (120, 40)


@pytest.fixture
def agent_name(letta_base_url: str) -> Iterator[str]:
    """A name no agent has; the agents made with it are deleted after the test."""
    name = f"e2e-made-{uuid.uuid4().hex[:8]}"
    yield name
    for agent in setup_agent.call(letta_base_url, "GET", "/v1/agents/", query={"name": name}):
        with contextlib.suppress(setup_agent.LettaRequestError):
            setup_agent.call(letta_base_url, "DELETE", f"/v1/agents/{agent['id']}")


async def test_an_agent_made_in_the_app_opens_and_answers(letta_base_url: str,
                                                          agent_name: str) -> None:
    app = OpenLettaApp(base_url=letta_base_url, settings=Settings(), local=None)
    async with app.run_test(size=SIZE) as pilot:
        await waited(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                     and app.screen.agents)
        await pilot.press(*agent_name, "ctrl+n")
        await waited(pilot, lambda: isinstance(app.screen, NewAgentScreen)
                     and app.screen.model_list.models)
        form = app.screen
        assert isinstance(form, NewAgentScreen)
        handles = [model.handle for model in form.model_list.models]
        assert "openai-proxy/fake-model" in handles
        form.model_list.highlighted = handles.index("openai-proxy/fake-model")
        await pilot.press("enter")  # in the name (typed in the search): made on that model
        await waited(pilot, lambda: isinstance(app.screen, ChatScreen))
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        agent = screen.session.agent
        assert (agent.name, agent.model_name) == (agent_name, "openai-proxy/fake-model")
        await waited(pilot, lambda: app.focused is screen.prompt)
        await pilot.press(*"hello", "enter")
        transcript = screen.session.transcript
        await waited(pilot, lambda: transcript.stop_reason is not None and not screen.busy)
        assert [item for item in transcript.items
                if isinstance(item, AssistantItem) and item.text]
    async with LettaClient(letta_base_url) as client:
        blocks = {block.label: block.value for block in await client.list_blocks(agent.id)}
        made = await client.list_agents(query=agent_name)
    assert blocks == STARTING_MEMORY
    assert [found.id for found in made] == [agent.id]


async def test_model_switches_the_agents_model_on_the_server(letta_base_url: str,
                                                             fresh_agent_id: str) -> None:
    app = OpenLettaApp(base_url=letta_base_url, agent=fresh_agent_id, settings=Settings(),
                       local=None)
    async with LettaClient(letta_base_url) as client, app.run_test(size=SIZE) as pilot:
        screen = await opened_chat(pilot)
        await pilot.press(*"/model nope/none", "enter")
        await waited(pilot, lambda: notified(app, "Could not switch"))
        assert screen.status.info.model == "openai-proxy/fake-model"
        await pilot.press(*"/model letta/letta-free", "enter")
        await waited(pilot, lambda: screen.status.info.model == "letta/letta-free")
        assert (await client.get_agent(fresh_agent_id)).model_name == "letta/letta-free"
        await pilot.press(*"/model", "enter")
        await waited(pilot, lambda: isinstance(app.screen, ModelScreen)
                     and app.screen.model_list.models)
        chooser = app.screen
        assert isinstance(chooser, ModelScreen)
        handles = [model.handle for model in chooser.model_list.models]
        assert chooser.model_list.highlighted == handles.index("letta/letta-free")
        chooser.model_list.highlighted = handles.index("openai-proxy/fake-model")
        await pilot.press("enter")
        await waited(pilot, lambda: screen.status.info.model == "openai-proxy/fake-model")
        assert (await client.get_agent(fresh_agent_id)).model_name == "openai-proxy/fake-model"
        await pilot.press(*"hello", "enter")
        transcript = screen.session.transcript
        await waited(pilot, lambda: transcript.stop_reason == "end_turn" and not screen.busy)


async def test_compact_summarises_the_thread_and_history_shows_it(letta_base_url: str,
                                                                  fresh_agent_id: str) -> None:
    def open_app() -> OpenLettaApp:
        return OpenLettaApp(base_url=letta_base_url, agent=fresh_agent_id, settings=Settings(),
                            local=None)

    app = open_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened_chat(pilot)
        transcript = screen.session.transcript
        for count in range(1, 5):  # 0.16.8 refuses to compact 2 or 3 turns: nothing to drop
            await pilot.press(*f"hello number {count}", "enter")
            await waited(pilot, lambda c=count: len(footers(transcript)) == c
                         and not screen.busy)
        shown = len(transcript.items)
        await pilot.press(*"/compact", "enter")
        await waited(pilot, lambda: any(isinstance(item, EventItem) for item in transcript.items))
        await waited(pilot, lambda: notified(app, "Messages in context:"))
        assert len(transcript.items) == shown + 1
        summary = transcript.items[-1]
        assert isinstance(summary, EventItem) and summary.text
        await pilot.press(*"/compact", "enter")
        await waited(pilot, lambda: notified(app, "nothing to compact yet"))
    again = open_app()
    async with again.run_test(size=SIZE) as pilot:
        screen = await opened_chat(pilot)  # (its history may still be on its way)
        await waited(pilot, lambda: len(footers(screen.session.transcript)) == 4)
        items = screen.session.transcript.visible_items()
        assert [item.kind for item in items][-3:] == ["assistant", "footer", "event"]


async def test_a_conversation_deleted_from_the_list_is_gone_from_the_server(
        letta_base_url: str, fresh_agent_id: str) -> None:
    async with LettaClient(letta_base_url) as client:
        kept = await client.create_conversation(fresh_agent_id, "kept")
        doomed = await client.create_conversation(fresh_agent_id, "doomed")
        app = OpenLettaApp(base_url=letta_base_url, agent=fresh_agent_id,
                           conversation=kept.id, settings=Settings(), local=None)
        async with app.run_test(size=SIZE) as pilot:
            await opened_chat(pilot)
            await pilot.press(*"/conversations", "enter")
            await waited(pilot, lambda: isinstance(app.screen, ConversationsScreen)
                         and len(app.screen.conversations) == 2)
            listed = app.screen
            assert isinstance(listed, ConversationsScreen)
            row = 1 + [c.id for c in listed.conversations].index(doomed.id)
            listed.query_one("#conversations-list", OptionList).highlighted = row
            await pilot.press("d", "d")
            await waited(pilot, lambda: [c.id for c in listed.conversations] == [kept.id])
        assert [c.id for c in await client.list_conversations(fresh_agent_id)] == [kept.id]
        with pytest.raises(NotFoundError):
            await client.get_conversation(doomed.id)


async def opened_chat(pilot) -> ChatScreen:
    """The chat screen, once its prompt has the focus."""
    app = pilot.app
    await waited(pilot, lambda: isinstance(app.screen, ChatScreen)
                 and app.focused is app.screen.prompt)
    assert isinstance(app.screen, ChatScreen)
    return app.screen


def notified(app: OpenLettaApp, text: str) -> bool:
    """Whether a notification holds ``text``."""
    return any(text in str(note.message) for note in app._notifications)


def footers(transcript: Transcript) -> list[TurnFooterItem]:
    return [item for item in transcript.items if isinstance(item, TurnFooterItem)]
