"""``/model``: the agent's model, chosen from the server's list or named, changed on the server
and shown in the status bar."""

from __future__ import annotations

import pytest
from chat_helpers import demo_chat, open_chat, send
from textual.app import App

from openletta.api.client import LettaClient
from openletta.api.errors import error_from_response
from openletta.api.resources import Agent, LLMConfig, Model
from openletta.chat import turn_tasks
from openletta.demo import catalog, resources
from openletta.ui.screens.model import ModelScreen

SIZE = (100, 30)
OTHER = "demo/other-model"


class TwoModels:
    async def list_models(self) -> list[Model]:
        return [Model(handle="demo/scripted-model", context_window=32_000),
                Model(handle=OTHER, context_window=128_000)]


async def test_the_list_marks_the_agents_model_and_returns_the_chosen(wait_until) -> None:
    chosen: list[str | None] = []
    screen = ModelScreen(TwoModels(), "demo-agent", OTHER)  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(screen, chosen.append)
        await wait_until(pilot, lambda: screen.model_list.models, what="the models")
        options = screen.model_list
        assert options.highlighted == 1
        assert "in use" in str(options.get_option_at_index(1).prompt)
        assert "in use" not in str(options.get_option_at_index(0).prompt)
        await pilot.press("up", "enter")  # the filter has the focus; ↑↓ move in the list
        await wait_until(pilot, lambda: chosen, what="the choice")
    assert chosen == ["demo/scripted-model"]


async def test_typing_filters_the_models_by_handle(wait_until) -> None:
    chosen: list[str | None] = []
    screen = ModelScreen(TwoModels(), "demo-agent", "demo/scripted-model")  # type: ignore[arg-type]
    async with App[None]().run_test(size=SIZE) as pilot:
        pilot.app.push_screen(screen, chosen.append)
        await wait_until(pilot, lambda: screen.model_list.models, what="the models")
        await pilot.press(*"zzz")
        assert screen.model_list.models == [] and screen.model_list.option_count == 0
        assert "No model's handle contains 'zzz'" in str(screen.picker.status.render())
        await pilot.press("enter")  # nothing to choose
        assert pilot.app.screen is screen and not chosen
        await pilot.press(*["backspace"] * 3, *"OTHER")
        assert [model.handle for model in screen.model_list.models] == [OTHER]
        assert screen.model_list.highlighted == 0
        assert not screen.picker.status.has_class("-error")
        await pilot.press("enter")
        await wait_until(pilot, lambda: chosen, what="the choice")
    assert chosen == [OTHER]


async def test_model_names_a_model_and_the_status_bar_shows_it(demo_server, make_app,
                                                               wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        asked: list[str] = []

        async def set_agent_model(agent_id: str, model: str) -> Agent:
            asked.append(model)
            if model != OTHER:
                raise error_from_response(404, {"detail": f"Handle {model} not found"})
            demo_server.server.store.agents[agent_id].model = OTHER  # as the server would
            return Agent(id=agent_id, model=OTHER,
                         llm_config=LLMConfig(handle=OTHER, context_window=128_000))

        screen.session.client.set_agent_model = set_agent_model  # type: ignore[method-assign]
        await pilot.press(*"/model nope/none", "enter")
        await wait_until(pilot, lambda: asked == ["nope/none"], what="the refused switch")
        await wait_until(pilot, lambda: any("Could not switch" in str(n.message)
                                            for n in app._notifications), what="the error")
        (error,) = [str(n.message) for n in app._notifications if "Could not" in n.message]
        assert "Handle nope/none not found" in error and "Check the handle" in error
        assert "Check the id" not in error
        assert screen.status.info.model == "demo/scripted-model"
        await pilot.press(*f"/model {OTHER}", "enter")
        await wait_until(pilot, lambda: screen.status.info.model == OTHER, what="the new model")
        assert screen.status.info.context_window == 128_000
        assert screen.session.agent.model_name == OTHER and screen.session.agent.name
        await pilot.press(*f"/model {OTHER}", "enter")  # already: nothing is asked
        await wait_until(pilot, lambda: any("already" in str(n.message)
                                            for n in app._notifications), what="the note")
        assert asked == ["nope/none", OTHER]


def notices(screen) -> list[str]:
    return [str(note.render()) for note in screen.query(".notice")]


async def test_a_turn_failing_on_a_model_changed_elsewhere_shows_and_says_the_new_model(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=SIZE) as (
            _app, pilot, screen):
        assert screen.status.info.model == "demo/scripted-model"
        agent = screen.session.agent
        demo_server.server.store.agents[agent.id].model = OTHER  # another client's /model
        await send(pilot, screen, "hello", wait_until)  # the demo cannot reach that model
        assert screen.session.transcript.stop_reason == "llm_api_error"
        await wait_until(pilot, lambda: screen.status.info.model == OTHER, what="the new model")
        assert screen.session.agent.model_name == OTHER
        said = f"{agent.name} now runs on {OTHER} (changed elsewhere)."
        await wait_until(pilot, lambda: said in notices(screen), what="the notice")
        await send(pilot, screen, "hello again", wait_until)
        await wait_until(pilot, lambda: not screen.workers or all(
            worker.is_finished for worker in screen.workers), what="the checks")
        assert notices(screen).count(said) == 1


async def test_model_lists_the_model_the_server_has_now(demo_server, make_app,
                                                       wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=SIZE) as (
            app, pilot, screen):
        screen.session.client.list_models = TwoModels().list_models  # type: ignore[method-assign]
        demo_server.server.store.agents[screen.session.agent.id].model = OTHER
        await pilot.press(*"/model", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelScreen), what="/model")
        models = app.screen.model_list  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: models.models, what="the models")
        assert "in use" in str(models.get_option_at_index(1).prompt)
        assert "in use" not in str(models.get_option_at_index(0).prompt)
        assert models.highlighted == 1
        assert screen.status.info.model == OTHER
        await wait_until(pilot, lambda: any("changed elsewhere" in str(note.message)
                                            for note in app._notifications), what="the note")


async def test_a_run_whose_steps_name_another_model_updates_the_one_shown(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=SIZE) as (
            app, pilot, screen):
        screen.session.agent = screen.session.agent.model_copy(update={  # shown before
            "model": OTHER,  # another client's /model
            "llm_config": LLMConfig(handle=OTHER, context_window=128_000)})
        screen.agent_changed(screen.session.agent)
        await send(pilot, screen, "hello", wait_until)  # it ran on the scripted model
        assert screen.status.info.model == OTHER
        await pilot.press(*"/run", "enter")
        await wait_until(pilot, lambda: screen.status.info.model == "demo/scripted-model",
                         what="the model the run ran on")
        assert screen.status.info.context_window == 32_000
        await wait_until(pilot, lambda: any("changed elsewhere" in str(note.message)
                                            for note in app._notifications), what="the note")


async def test_turns_another_client_ran_on_another_model_show_that_model_on_catching_up(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model shown is stale (``OTHER``); another client's turn ran on the agent's model
    now: typing in the idle chat shows that turn, and the model it ran on."""
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)  # (typing reads the newest page)
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=SIZE) as (
            app, pilot, screen):
        screen.session.agent = screen.session.agent.model_copy(update={
            "model": OTHER, "llm_config": LLMConfig(handle=OTHER, context_window=128_000)})
        screen.agent_changed(screen.session.agent)
        other = LettaClient(demo_server.base_url)
        async with other, other.send_message(screen.session.agent.id, "hello") as stream:
            [message async for message in stream]
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.status.info.model == "demo/scripted-model",
                         what="the model the other client's turn ran on")
        assert screen.status.info.context_window == 32_000
        await wait_until(pilot, lambda: any("changed elsewhere" in str(note.message)
                                            for note in app._notifications), what="the note")


async def test_context_reads_a_window_changed_elsewhere_into_the_gauge(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=SIZE) as (
            app, pilot, screen):
        await send(pilot, screen, "hello", wait_until)
        assert screen.status.info.context_window == 32_000
        for module in (catalog, resources):  # the window set to 4,000 with the REST API
            monkeypatch.setattr(module, "CONTEXT_WINDOW", 4_000)
        await pilot.press(*"/context", "enter")
        await wait_until(pilot, lambda: screen.status.info.context_window == 4_000,
                         what="the gauge against the new window")
        assert screen.session.agent.context_window == 4_000
        assert not any("changed elsewhere" in str(note.message)  # (the model is the same)
                       for note in app._notifications)
