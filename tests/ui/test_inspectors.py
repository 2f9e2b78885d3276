"""The context view and the run inspector: what they compute, and opening them in the app."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from chat_helpers import open_chat, send, start_new_conversation
from test_app import SIZE
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from waiting import wait_until

from openletta.api.resources import ContextWindow, Run, Step, StepMetrics
from openletta.chat.declared_tools import DeclaredTools
from openletta.tools import declarations
from openletta.transcript import TurnFooterItem
from openletta.ui.screens import inspect
from openletta.ui.screens.inspect import (
    ESTIMATE_NOTE,
    FULL_NOTE,
    LOCAL_TOOLS_LABEL,
    ContextScreen,
    RunScreen,
    context_rows,
    context_text,
)
from openletta.ui.screens.inspect import run_text as run_content
from openletta.ui.widgets.footer import TurnFooter


def test_the_context_parts_add_up_and_empty_parts_are_left_out() -> None:
    window = ContextWindow(context_window_size_max=30000, context_window_size_current=3000,
                           num_tokens_system=400, num_tokens_functions_definitions=1900,
                           num_tokens_core_memory=200, num_tokens_messages=500, num_messages=7)
    rows = context_rows(window)
    assert rows == [("System prompt", 400), ("Tool definitions", 1900), ("Core memory", 200),
                    ("Messages (7)", 500)]
    text = context_text(window).plain
    assert "3,000 of 30,000 tokens (10%)" in text and "The server counts" not in text
    assert text.endswith(ESTIMATE_NOTE)  # not what the status bar's gauge counts
    window.context_window_size_current = 3100
    assert "The server counts 3,100 in all." in context_text(window).plain
    assert FULL_NOTE not in text
    full = ContextWindow(context_window_size_max=30000, context_window_size_current=46000,
                         num_tokens_messages=46000, num_messages=90)
    assert FULL_NOTE in context_text(full).plain  # over the window: how to make room


def test_the_local_tools_are_an_estimated_part_of_the_context() -> None:
    """The seven tools openletta declares in every request are a part the server does not
    count: their JSON as sent, at 4 characters a token, is shown and added to what is in use,
    both marked ~; the server's own total is compared with its own parts."""
    local = DeclaredTools.of(declarations())
    assert local is not None and DeclaredTools.of([]) is None
    sent = json.dumps(declarations(), ensure_ascii=False, separators=(",", ":"))
    assert local.characters == len(sent) and local.tokens == round(len(sent) / 4)
    assert local.names == ("Bash", "Read", "Write", "Edit", "Glob", "Grep", "LS")
    assert 1400 < local.tokens < 1800  # (~6.4k characters)
    window = ContextWindow(context_window_size_max=30000, context_window_size_current=2641,
                           num_tokens_system=400, num_tokens_functions_definitions=1541,
                           num_tokens_core_memory=200, num_tokens_messages=500, num_messages=7)
    lines = context_text(window, local=local).plain.split("\n")
    row = next(line for line in lines if line.startswith(LOCAL_TOOLS_LABEL))
    assert row.split()[-2:] == [f"~{local.tokens:,}", f"{local.tokens / 30000:.1%}"]
    total = 2641 + local.tokens
    assert f"~{total:,} of 30,000 tokens" in next(line for line in lines
                                                   if line.startswith("In use"))
    assert not any("The server counts" in line for line in lines)  # its parts: 2,641
    note = next(line for line in lines if line.startswith(f"~ {LOCAL_TOOLS_LABEL}"))
    assert "Bash, Read, Write, Edit, Glob, Grep, LS" in note and "estimate" in note
    assert f"{local.characters:,} characters" in note
    assert LOCAL_TOOLS_LABEL not in context_text(window).plain  # no local tools: no row


def test_a_run_shows_its_timing_and_each_steps_tokens() -> None:
    start = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    run = Run(id="run-1", status="completed", stop_reason="end_turn", created_at=start,
              completed_at=start + timedelta(seconds=4), ttft_ns=350_000_000)
    steps = [Step(id="s1", model_handle="openai/gpt", prompt_tokens=17226, completion_tokens=24,
                  reasoning_tokens=11, stop_reason="tool_call"),
             Step(id="s2", model="gpt", prompt_tokens=17400, completion_tokens=40,
                  cached_input_tokens=16000)]
    metrics = {"s1": StepMetrics(step_ns=141_338_560, llm_request_ns=120_208_099,
                                 tool_execution_ns=300_000_000)}
    text = run_content(run, steps, {"s1": ["bash"]}, metrics).plain
    assert "run-1  completed · end turn" in text and "took 4s" in text
    assert ("step 1  openai/gpt  ↑17.2k · ↓24 · reasoning 11  tool call\n"
            "          took 0.14s (model 0.12s, tool 0.30s)\n"
            "          called bash") in text
    assert text.count("took ") == 2  # the run's, and step 1's (step 2 has no metrics)
    assert "first token after 0.35s" in text
    assert "step 1  openai/gpt  ↑17.2k · ↓24 · reasoning 11  tool call" in text
    assert "step 2  gpt  ↑17.4k · ↓40 · cached 16k" in text


def test_a_steps_line_too_long_for_the_view_goes_on_under_its_text() -> None:
    """At 60 columns a step's line wraps under the model, not under "step 1" (nor at the
    view's edge); so does a long list of the tools it called."""
    run = Run(id="run-1", status="completed", stop_reason="end_turn")
    steps = [Step(id="s1", model_handle="openai-proxy/fake-model", prompt_tokens=750,
                  completion_tokens=20, reasoning_tokens=9, stop_reason="end_turn")]
    called = {"s1": ["memory_insert", "conversation_search", "memory_replace", "read_file"]}
    lines = run_content(run, steps, called, width=44).plain.split("\n")
    step = next(index for index, line in enumerate(lines) if "step 1" in line)
    assert lines[step].startswith("  step 1  openai-proxy/fake-model")
    assert lines[step + 1].startswith(" " * 10) and lines[step + 1][10] != " "
    calls = next(index for index, line in enumerate(lines) if "called" in line)
    assert lines[calls + 1].startswith(" " * len("          called ")), lines
    assert all(len(line) <= 44 for line in lines)


class LateTimingsClient:
    """A server that records the last step's timing only a moment after the run ended."""

    def __init__(self) -> None:
        self.metrics_asked: list[str] = []

    async def get_run(self, run_id: str) -> Run:
        return Run(id=run_id, status="completed", stop_reason="end_turn")

    async def list_run_steps(self, run_id: str) -> list[Step]:
        return [Step(id="s1", model="m", prompt_tokens=10), Step(id="s2", model="m")]

    async def list_run_messages(self, run_id: str) -> list[object]:
        return []

    async def get_step_metrics(self, step_id: str) -> StepMetrics:
        self.metrics_asked.append(step_id)
        late = step_id == "s2" and self.metrics_asked.count("s2") < 3
        return StepMetrics(step_ns=None if late else 250_000_000)


async def test_the_inspector_asks_again_for_timings_not_recorded_yet(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inspect, "METRICS_RETRY_SECONDS", 0.01)
    client = LateTimingsClient()
    app = App[None]()
    async with app.run_test() as pilot:
        screen = RunScreen(client, ["run-1"])  # type: ignore[arg-type]
        await app.push_screen(screen)
        body = screen.query_one(".inspect-body")
        await wait_until(pilot, lambda: str(body.render()).count("took 0.25s") == 2,
                         what="both steps' timings")
        assert client.metrics_asked == ["s1", "s2", "s2", "s2"]  # s1 is not asked again


async def test_context_and_run_open_from_the_chat(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "bash", wait_until)
        footer = next(item for item in screen.session.transcript.items
                      if isinstance(item, TurnFooterItem))
        assert footer.run_ids and footer.run_ids[0].startswith("run-")
        widget = screen.view.widget_for(footer)
        assert isinstance(widget, TurnFooter)
        widget.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen))
        body = app.screen.query_one(".inspect-body")
        await wait_until(pilot, lambda: "step 2" in str(body.render()))
        assert footer.run_ids[0] in str(body.render())
        assert "called bash" in str(body.render())
        await pilot.press("escape")
        screen.prompt.focus()
        await pilot.press(*"/context", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
        body = app.screen.query_one(".inspect-body")
        await wait_until(pilot, lambda: "In use" in str(body.render()))
        assert "of 32,000 tokens" in str(body.render())
        title = str(app.screen.query_one(".inspect-title").render())
        assert title == "Context window of demo-agent in the default thread"  # not “bash”


async def opened_context(pilot: Pilot[None], wait_until) -> Widget:
    """Open ``/context`` from the chat; its body, once the window is shown."""
    app = pilot.app
    await pilot.press(*"/context", "enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
    body = app.screen.query_one(".inspect-body")
    await wait_until(pilot, lambda: "In use" in str(body.render()))
    return body


@pytest.mark.parametrize("with_local_tools", [True, False])
async def test_context_shows_the_local_tools_only_when_the_chat_declares_them(
        demo_server, make_app, wait_until, local, with_local_tools: bool) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent",
                   local=local if with_local_tools else None)
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        shown = str((await opened_context(pilot, wait_until)).render())
        estimate = DeclaredTools.of(declarations())
        assert estimate is not None
        assert (f"~{estimate.tokens:,}" in shown) is with_local_tools
        assert (LOCAL_TOOLS_LABEL in shown) is with_local_tools


async def test_run_before_any_turn_says_there_is_none_yet(demo_server, make_app,
                                                          wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press(*"/run", "enter")
        await wait_until(pilot, lambda: any(str(note.message) == "No turn yet in this "
                                            "conversation." for note in app._notifications),
                         what="the answer")
        assert app.screen is screen  # no inspector of a turn that is not there


async def test_context_counts_the_open_conversation_not_the_default_thread(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "bash", wait_until)
        screen = await start_new_conversation(pilot, screen, wait_until)
        conversation = screen.session.conversation_id
        assert conversation is not None
        agent = screen.session.agent.id
        client = screen.session.client
        ours = await client.get_context(agent, conversation)
        default = await client.get_context(agent)
        assert ours.context_window_size_current != default.context_window_size_current
        await pilot.press(*"/context", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
        body = app.screen.query_one(".inspect-body")
        await wait_until(pilot, lambda: "In use" in str(body.render()))
        assert f"{ours.context_window_size_current:,} of 32,000" in str(body.render())
        title = str(app.screen.query_one(".inspect-title").render())
        assert title == "Context window of demo-agent in New conversation"  # (none sent)
        await pilot.press("escape", *"/rename scratch", "enter")
        await wait_until(pilot, lambda: screen.session.conversation_name == "scratch",
                         what="renamed")
        await pilot.press(*"/context", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
        title = str(app.screen.query_one(".inspect-title").render())
        assert title == "Context window of demo-agent in “scratch”"  # its name, quoted


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_context_gauges_use_the_width_of_the_view(demo_server, make_app, wait_until,
                                                        size: tuple[int, int]) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=size) as pilot:
        await open_chat(pilot, wait_until)
        body = await opened_context(pilot, wait_until)
        lines = str(body.render()).split("\n")
        in_use = next(line for line in lines if line.startswith("In use"))
        assert len(in_use) == body.content_region.width  # the gauges stretch to the edge
        gauges = [line for line in lines if "▱" in line or "▰" in line]
        assert all(len(line) <= body.content_region.width for line in gauges)  # none wraps
