"""Agents that share a name: the resume hint opens the one used, Ctrl+N warns before making
another, and the chooser tells them apart."""

from __future__ import annotations

import shlex
from datetime import timedelta
from typing import Any

import pytest
from chat_helpers import open_chat
from conftest import FIXED_NOW
from test_new_agent import open_form, status
from textual.app import App
from textual.widgets import Input, OptionList

from openletta.api.client import LettaClient
from openletta.api.resources import Agent
from openletta.ui.formatting import short_id
from openletta.ui.screens import agents as agents_screen
from openletta.ui.screens.agents import AgentChooserScreen

SIZE = (100, 30)


async def make_namesake(base_url: str, name: str) -> tuple[Agent, Agent]:
    """Make another agent named ``name``; the two, the new one first."""
    async with LettaClient(base_url) as client:
        (agent,) = [agent for agent in await client.list_agents() if agent.name == name]
        namesake = await client.create_agent(name, agent.model_name)
    return namesake, agent


async def test_the_resume_hint_opens_the_agent_used_not_its_namesake(
        demo_server, make_app, wait_until) -> None:
    _namesake, used = await make_namesake(demo_server.base_url, "demo-agent")
    app = make_app(base_url=demo_server.base_url, agent=used.id)
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
    words = shlex.split(str(app.resume_hint))
    again = make_app(base_url=demo_server.base_url, agent=words[words.index("--agent") + 1])
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.session.agent.id == used.id


@pytest.mark.parametrize("ref", ["demo-agent", "DEMO-AGENT"])
async def test_agent_flag_naming_namesakes_lets_one_choose(
        demo_server, make_app, wait_until, ref: str) -> None:
    twins = await make_namesake(demo_server.base_url, "demo-agent")
    app = make_app(base_url=demo_server.base_url, agent=ref)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and len(app.screen.agents) == 2, what="the namesakes listed")
        chooser = app.screen
        assert isinstance(chooser, AgentChooserScreen)
        assert chooser.query_one("#agent-filter", Input).value == ref
        assert {agent.id for agent in chooser.agents} == {twin.id for twin in twins}
        (note,) = [str(note.message) for note in app._notifications]
        assert f"2 agents are named {ref!r}: pick one." == note
        assert all(short_id(agent.id) in row for agent, row in zip(
            chooser.agents, prompts(chooser), strict=True))
        await pilot.press("down", "enter")
        screen = await open_chat(pilot, wait_until)
        assert screen.session.agent.id == chooser.agents[1].id


async def test_agent_flag_naming_one_of_namesakes_by_id_opens_it(
        demo_server, make_app, wait_until) -> None:
    _first, second = await make_namesake(demo_server.base_url, "demo-agent")
    app = make_app(base_url=demo_server.base_url, agent=second.id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
    assert screen.session.agent.id == second.id and not app._notifications


async def test_ctrl_n_warns_of_a_name_taken_and_makes_it_on_enter_again(
        demo_server, make_app, wait_until) -> None:
    store = demo_server.server.store.agents
    (taken,) = [agent for agent in store.values() if agent.spec.name == "demo-agent"]
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, wait_until, *"demo-agent")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "named demo-agent already" in status(form),
                         what="the warning")
        assert short_id(taken.id) in status(form) and "Enter again" in status(form)
        assert len(store) == 3 and app.screen is form  # nothing made yet
        await pilot.press("enter")
        screen = await open_chat(pilot, wait_until)
    assert screen.session.agent.name == "demo-agent" and screen.session.agent.id != taken.id
    assert len(store) == 4


async def test_a_name_changed_after_the_warning_is_made_at_once(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, wait_until, *"demo-agent")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "already" in status(form), what="the warning")
        await pilot.press("end", *"-2")
        assert "already" not in status(form)
        await pilot.press("enter")
        screen = await open_chat(pilot, wait_until)
        assert screen.session.agent.name == "demo-agent-2"


def prompts(chooser: AgentChooserScreen) -> list[str]:
    options = chooser.query_one(OptionList)
    return [str(options.get_option_at_index(index).prompt)
            for index in range(options.option_count)]


async def test_the_chooser_tells_namesakes_apart(demo_server, make_app, wait_until) -> None:
    await make_namesake(demo_server.base_url, "demo-agent")
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and len(app.screen.agents) == 4, what="chooser")
        chooser = app.screen
        rows = dict(zip((agent.id for agent in chooser.agents), prompts(chooser), strict=True))
    namesakes = [agent for agent in chooser.agents if agent.name == "demo-agent"]
    assert all(short_id(agent.id) in rows[agent.id] and "made " in rows[agent.id]
               for agent in namesakes)
    assert not any("agent-" in rows[agent.id] for agent in chooser.agents
                   if agent.name != "demo-agent")


class PagedClient:
    """Lists agents two at a time; the second page holds a namesake of the first row."""

    AGENTS = (Agent(id="agent-aaaaaaaa-1", name="twin", created_at=FIXED_NOW - timedelta(days=2)),
              Agent(id="agent-bbbbbbbb-1", name="other"),
              Agent(id="agent-cccccccc-1", name="twin", created_at=FIXED_NOW))

    async def list_agents(self, query: str | None = None, limit: int = 50,
                          after: str | None = None, **_order: Any) -> list[Agent]:
        ids = [agent.id for agent in self.AGENTS]
        start = ids.index(after) + 1 if after else 0
        return list(self.AGENTS[start:start + limit])


async def test_a_namesake_on_a_later_page_marks_the_row_listed_before(
        wait_until, fixed_clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agents_screen, "LIST_LIMIT", 2)
    chooser = AgentChooserScreen(PagedClient(), lambda _agent: None,  # type: ignore[arg-type]
                                 clock=fixed_clock)
    app = App[None]()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(chooser)
        await wait_until(pilot, lambda: len(chooser.agents) == 2, what="the first page")
        assert "agent-" not in prompts(chooser)[0]
        await pilot.press("down")
        await wait_until(pilot, lambda: len(chooser.agents) == 3, what="the second page")
        first, other, last = prompts(chooser)
    assert "made 2 d ago · agent-aaaaaaaa" in first
    assert "made just now · agent-cccccccc" in last and "agent-" not in other
