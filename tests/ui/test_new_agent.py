"""Making an agent from the agent chooser (Ctrl+N): a name and a model, then its chat."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from chat_helpers import open_chat
from test_local_tools_ui import fully_shown
from textual.app import App
from textual.widgets import Input, OptionList

from openletta import ui
from openletta.api.errors import LettaError
from openletta.api.resources import Agent, Model
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.new_agent import HINT, STARTING_MEMORY, NewAgentScreen
from openletta.ui.themes import ThemeVariables
from openletta.ui.widgets.base import ItemWidget

SIZE = (100, 30)
STYLES = Path(ui.__file__).parent / "styles"


async def open_form(pilot, wait_until, *typed: str) -> NewAgentScreen:
    """From the chooser, type ``typed`` in its search, press Ctrl+N; the form with its models."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                     and app.screen.agents, what="chooser")
    await pilot.press(*typed, "ctrl+n")
    await wait_until(pilot, lambda: isinstance(app.screen, NewAgentScreen)
                     and app.screen.model_list.models, what="the form's models")
    return app.screen


def status(form: NewAgentScreen) -> str:
    """The form's status line ("" until the form is composed)."""
    return str(form.status.render())


async def test_ctrl_n_makes_an_agent_and_opens_its_chat(demo_server, make_app,
                                                         wait_until) -> None:
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, wait_until, *"helper")
        name = form.query_one("#new-agent-name", Input)
        assert name.value == "helper" and app.focused is name  # the search names it
        models = form.model_list
        assert models.highlighted == 0 and models.option_count == 1
        await pilot.press("enter")  # the name is done: made on the model highlighted
        screen = await open_chat(pilot, wait_until)
        assert screen.session.agent.name == "helper"
        made = [agent for agent in demo_server.server.store.agents.values()
                if agent.spec.name == "helper"]
        assert len(made) == 1 and made[0].id == screen.session.agent.id
        assert made[0].blocks == STARTING_MEMORY
        assert not [widget for widget in screen.view.scroll.children
                    if isinstance(widget, ItemWidget) and not widget.item.internal]


async def test_an_empty_name_is_refused_until_one_is_typed(demo_server, make_app,
                                                           wait_until) -> None:
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, wait_until)
        await pilot.press("enter")  # in the empty name field: not on to the models
        await wait_until(pilot, lambda: "needs a name" in status(form), what="the refusal")
        assert app.focused is form.query_one("#new-agent-name")
        await pilot.press("x", "backspace")
        assert status(form) == HINT
        await pilot.press("tab", "enter")  # a model chosen without a name
        await wait_until(pilot, lambda: "needs a name" in status(form), what="the refusal")
        assert app.screen is form and app.focused is form.query_one("#new-agent-name")
        assert form.status.has_class("-error")
        count = len(demo_server.server.store.agents)
        await pilot.press("x")
        assert status(form) == HINT and not form.status.has_class(
            "-error")
        assert len(demo_server.server.store.agents) == count
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                         what="back to the chooser")



async def test_a_name_letta_would_refuse_is_explained_and_not_sent(
        demo_server, make_app, wait_until) -> None:
    """Letta 0.16.8 answers a name with other characters than letters, digits, spaces, ``-``,
    ``_`` and ``'`` with an internal error: the form says the rule as it is typed, and makes
    nothing; Unicode letters are fine."""
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, wait_until)
        count = len(demo_server.server.store.agents)
        await pilot.press(*"my/agent [x]")
        await wait_until(pilot, lambda: "not “/”, “[” or “]”" in status(form), what="the rule")
        assert "letters (any language)" in status(form) and form.status.has_class("-error")
        await pilot.press("enter")
        assert app.screen is form and len(demo_server.server.store.agents) == count
        name = form.query_one("#new-agent-name", Input)
        name.value = "Ünï's 中文 helper_2-b"
        await wait_until(pilot, lambda: status(form) == HINT, what="the hint again")
        await pilot.press("enter")
        screen = await open_chat(pilot, wait_until)
        assert screen.session.agent.name == "Ünï's 中文 helper_2-b"


class RefusingClient:
    """Lists two models; refuses the first attempt to make an agent, accepts the second."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.attempts: list[tuple[str, str, Any]] = []

    async def list_models(self) -> list[Model]:
        return [Model(handle="letta/letta-free", context_window=30_000),
                Model(handle="openai-proxy/fake-model", context_window=30_000)]

    async def list_agents(self, **_search: Any) -> list[Agent]:
        return []  # no agent has the name asked for

    async def create_agent(self, name: str, model: str, memory: Any) -> Agent:
        self.attempts.append((name, model, memory))
        if len(self.attempts) == 1:
            raise LettaError("NOT_FOUND: Handle letta/letta-free not found")
        return self.agent


async def test_a_refused_agent_keeps_the_form_and_says_why(wait_until) -> None:
    made = Agent(id="agent-1", name="kept")
    client = RefusingClient(made)
    results: list[Agent | None] = []
    form = NewAgentScreen(client, name="kept", model="openai-proxy/fake-model")  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(form, results.append)
        await wait_until(pilot, lambda: form.model_list.models, what="models")
        assert form.model_list.highlighted == 1  # the agent's model, not the first
        await pilot.press("tab", "up", "enter")  # the filter has the focus; ↑ moves the list
        await wait_until(pilot, lambda: "Could not make" in status(form), what="the refusal")
        assert "letta/letta-free not found" in status(form) and pilot.app.screen is form
        assert form.query_one("#new-agent-name", Input).value == "kept"
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: results, what="the agent")
    assert results == [made]
    assert [(name, model) for name, model, _ in client.attempts] == [
        ("kept", "letta/letta-free"), ("kept", "openai-proxy/fake-model")]


async def test_arrows_in_the_name_field_pick_the_model_enter_makes_it_on(wait_until) -> None:
    client = AcceptingClient(Agent(id="agent-2", name="picked"))
    results: list[Agent | None] = []
    form = NewAgentScreen(client, name="picked")  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(form, results.append)
        await wait_until(pilot, lambda: form.model_list.models, what="models")
        assert pilot.app.focused is form.query_one("#new-agent-name")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: results, what="the agent")
    assert [(name, model) for name, model, _ in client.attempts] == [
        ("picked", "openai-proxy/fake-model")]


@pytest.mark.parametrize(("preferred", "keys", "made_on"), [
    ("openai-proxy/fake-model", ("down",), "openai-proxy/fake-model"),
    ("letta/letta-free", ("up",), "letta/letta-free"),
    ("openai-proxy/fake-model", ("tab", "down"), "openai-proxy/fake-model")])  # (filter)
async def test_the_arrows_stop_at_the_ends_of_the_models(
        wait_until, preferred: str, keys: tuple[str, ...], made_on: str) -> None:
    client = AcceptingClient(Agent(id="agent-2", name="picked"))
    results: list[Agent | None] = []
    form = NewAgentScreen(client, name="picked", model=preferred)  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(form, results.append)
        await wait_until(pilot, lambda: form.model_list.models, what="models")
        await pilot.press(*keys)  # ↓ on the last row (↑ on the first) does not wrap around
        assert form.model_list.models[form.model_list.highlighted or 0].handle == made_on
        await pilot.press("enter")
        await wait_until(pilot, lambda: results, what="the agent")
    assert [(name, model) for name, model, _ in client.attempts] == [("picked", made_on)]


class NoModels:
    async def list_models(self) -> list[Model]:
        raise LettaError("Could not reach the server")


async def test_models_that_cannot_be_listed_are_said(wait_until) -> None:
    form = NewAgentScreen(NoModels())  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(form)
        await wait_until(pilot, lambda: "Could not list" in status(form), what="the error")
        await pilot.press("enter")  # nothing to choose: the form stays
        assert pilot.app.screen is form


class AcceptingClient(RefusingClient):
    """Lists two models and makes every agent asked for."""

    async def create_agent(self, name: str, model: str, memory: Any) -> Agent:
        self.attempts.append((name, model, memory))
        return self.agent


async def test_typing_after_the_name_filters_the_models(wait_until) -> None:
    client = AcceptingClient(Agent(id="agent-2", name="filtered"))
    results: list[Agent | None] = []
    form = NewAgentScreen(client, name="filtered")  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(form, results.append)
        await wait_until(pilot, lambda: form.model_list.models, what="models")
        await pilot.press("tab", *"FAKE")
        assert [model.handle for model in form.model_list.models] == ["openai-proxy/fake-model"]
        assert form.query_one("#new-agent-name", Input).value == "filtered"
        await pilot.press("enter")
        await wait_until(pilot, lambda: results, what="the agent")
    assert [(name, model) for name, model, _ in client.attempts] == [
        ("filtered", "openai-proxy/fake-model")]


class ListingClient(RefusingClient):
    """Lists one agent, on the second model, to a listing without a search."""

    async def list_agents(self, query: str | None = None, **_paging: Any) -> list[Agent]:
        return [] if query else [self.agent]


async def test_a_new_agent_named_in_the_search_starts_on_the_usual_model(wait_until) -> None:
    agent = Agent.model_validate({"id": "agent-1", "name": "usual",
                                  "llm_config": {"handle": "openai-proxy/fake-model"}})
    assert agent.model_name == "openai-proxy/fake-model"
    client = ListingClient(agent)
    chooser = AgentChooserScreen(client, lambda _agent: None, search="nosuch")  # type: ignore[arg-type]
    app = App[None]()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(chooser)
        await wait_until(pilot, lambda: chooser._usual_model is not None, what="usual model")
        assert chooser.agents == []  # nothing matches the name typed
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewAgentScreen)
                         and app.screen.model_list.models, what="the form's models")
        assert app.screen.model_list.highlighted == 1  # fake-model, not the first listed


class StyledApp(ThemeVariables, App[None]):
    """Styled as the real app is."""

    CSS_PATH: ClassVar[list[str | Path]] = [STYLES / "app.tcss", STYLES / "widgets.tcss"]


class ManyModels(AcceptingClient):
    async def list_models(self) -> list[Model]:
        return [Model(handle=f"provider/model-{index}", context_window=30_000)
                for index in range(8)]


def highlight_shown(listing: OptionList) -> bool:
    """Whether the row highlighted is among the rows the list shows, the list on screen."""
    index = listing.highlighted
    first = round(listing.scroll_y)
    return (index is not None and fully_shown(listing)
            and first <= index < first + listing.scrollable_content_region.height)


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
async def test_the_model_chosen_and_the_keys_stay_in_sight_on_a_small_screen(
        wait_until, size: tuple[int, int]) -> None:
    """Enter makes the agent on the model highlighted: it shows, as the hint does, at any
    size, when the form opens and as ↑↓ move."""
    client = ManyModels(Agent(id="agent-3", name="seen"))
    results: list[Agent | None] = []
    form = NewAgentScreen(client, name="seen", model="provider/model-6")  # type: ignore[arg-type]
    async with StyledApp().run_test(size=size) as pilot:
        pilot.app.push_screen(form, results.append)
        await wait_until(pilot, lambda: form.model_list.models, what="models")
        listing = form.model_list
        await wait_until(pilot, lambda: highlight_shown(listing) and HINT in status(form)
                         and fully_shown(form.status), what="the model and the hint")
        await pilot.press("down")
        await wait_until(pilot, lambda: highlight_shown(listing), what="moved, in sight")
        assert listing.highlighted == 7 and fully_shown(form.status)
        await pilot.press("enter")
        await wait_until(pilot, lambda: results, what="the agent")
    assert [(name, model) for name, model, _ in client.attempts] == [
        ("seen", "provider/model-7")]
