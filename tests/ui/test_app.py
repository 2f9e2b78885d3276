"""The real app driven by Pilot against the embedded demo server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from chat_helpers import (
    all_mounted,
    laid_out,
    mounted_items,
    open_chat,
    send,
    side_conversation,
    start_new_conversation,
)
from fault_proxy import FaultProxy
from textual.color import Color
from textual.widgets import Input, Static

from openletta.api import http
from openletta.api.client import LettaClient
from openletta.api.errors import APIConnectionError
from openletta.api.messages import Ping, UsageStatistics
from openletta.api.resources import Agent, Conversation
from openletta.chat import replies, turn_tasks
from openletta.chat.early import EarlyOpening
from openletta.chat.opening import read_conversation
from openletta.chat.turn_state import Phase
from openletta.config import ResumeHint
from openletta.demo import DemoServer
from openletta.demo.catalog import CONTEXT_WINDOW
from openletta.demo.http import Handler, Request, Response
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    ReasoningItem,
    ToolCallItem,
    TurnFooterItem,
    UserItem,
)
from openletta.ui.app import QUIT_AGAIN_SECONDS, OpenLettaApp
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.connect import TRYING_AGAIN, ConnectScreen
from openletta.ui.screens.conversations import ConversationsScreen
from openletta.ui.screens.new_agent import NewAgentScreen
from openletta.ui.status_bar import context_gauge, status_text

SIZE = (100, 30)


def screen_lines(app: OpenLettaApp) -> list[str]:
    """What the terminal shows, as plain text (escape codes would survive here)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def first_agent_name(base_url: str) -> str:
    client = LettaClient(base_url)
    try:
        agents = await client.list_agents()
    finally:
        await client.aclose()
    return agents[0].name


async def test_chooser_opens_an_agent_with_its_history(demo_server, make_app, wait_until) -> None:
    client = LettaClient(demo_server.base_url)
    agent = (await client.list_agents())[0]
    async with client.send_message(agent.id, "hello") as stream:
        async for _ in stream:
            pass
    await client.aclose()
    app = make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and app.screen.agents, what="agents listed")
        await pilot.press("enter")
        screen = await open_chat(pilot, wait_until)
        await wait_until(pilot, lambda: screen.session.transcript.items, what="history")
        await pilot.pause()
        items = screen.session.transcript.visible_items()
        assert [item.text for item in items if hasattr(item, "otid")][:1] == ["hello"]
        assert mounted_items(screen.view) == screen.session.transcript.items
        assert app.focused is screen.prompt


@pytest.mark.parametrize("demo", [False, True])
async def test_the_chooser_says_which_server_it_lists(demo_server, make_app, wait_until,
                                                      demo: bool) -> None:
    app = make_app(demo=True, demo_speed=0) if demo else make_app(base_url=demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                         what="the chooser")
        title = str(app.screen.query_one("#agents-title").render())
    if demo:
        assert title.startswith("Choose an agent on the embedded demo server")
        assert "set LETTA_BASE_URL, or LETTA_API_KEY for Letta Cloud" in title
    else:
        assert title == f"Choose an agent on {demo_server.base_url}"


async def test_agent_flag_accepts_a_name(demo_server, make_app, wait_until) -> None:
    name = await first_agent_name(demo_server.base_url)
    app = make_app(base_url=demo_server.base_url, agent=name)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.session.agent.name == name
        assert str(app.resume_hint) == (  # the id: another agent may have the same name
            f"Resume this chat ({name}) with: openletta --base-url {demo_server.base_url} "
            f"--agent {screen.session.agent.id}")


class SlowDemo(DemoServer):
    """The demo server, logging each request as it begins and ends; requests for ``slow``
    (a path, or a path with ``{agent}``) take 0.3 s to answer."""

    def __init__(self, slow: str) -> None:
        super().__init__(speed=0)
        self.slow = slow
        self.log: list[tuple[str, str]] = []

    def handler(self) -> Handler:
        router = super().handler()

        async def handle(request: Request) -> Response:
            self.log.append(("begin", request.path))
            if request.path.rstrip("/") in {self.slow.format(agent=agent)
                                             for agent in self.store.agents}:
                await asyncio.sleep(0.3)
            response = await router(request)
            self.log.append(("end", request.path))
            return response

        return handle


@contextlib.asynccontextmanager
async def logging_demo(slow: str) -> AsyncIterator[tuple[SlowDemo, str, Agent]]:
    """A running :class:`SlowDemo`, its URL and its first agent (the log starts empty)."""
    server = SlowDemo(slow)
    base_url = await server.start()
    try:
        async with LettaClient(base_url) as client:
            agent = (await client.list_agents())[0]
        server.log.clear()
        yield server, base_url, agent
    finally:
        await server.stop()


async def test_an_agent_id_and_its_history_are_read_once_while_the_health_check_runs(
        make_app, wait_until) -> None:
    async with logging_demo("/v1/health") as (server, base_url, agent):
        app = make_app(base_url=base_url, agent=agent.id)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            assert screen.session.agent.id == agent.id
            await wait_until(pilot, lambda: screen.view.more_on_server is not None,
                             what="history shown")
        health_answered = server.log.index(("end", "/v1/health/"))
        for path in (f"/v1/agents/{agent.id}", f"/v1/agents/{agent.id}/messages"):
            assert server.log.count(("begin", path)) == 1, path
            assert server.log.index(("begin", path)) < health_answered, path


async def test_an_agent_named_has_its_history_asked_for_while_it_is_read(make_app,
                                                                          wait_until) -> None:
    async with logging_demo("/v1/agents/{agent}") as (server, base_url, agent):
        app = make_app(base_url=base_url, agent=agent.name)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await wait_until(pilot, lambda: screen.view.more_on_server is not None,
                             what="history shown")
        agent_path = f"/v1/agents/{agent.id}"
        page_asked = server.log.index(("begin", f"{agent_path}/messages"))
        assert page_asked < server.log.index(("end", agent_path))
        assert server.log.count(("begin", f"{agent_path}/messages")) == 1


async def test_opening_a_chat_asks_for_the_newest_runs_steps_once(make_app,
                                                                   wait_until) -> None:
    """The context's size comes from the newest run's last step: read once on opening, not
    again when the look for a running reply ends."""
    async with logging_demo("/none") as (server, base_url, agent):
        async with make_app(base_url=base_url, agent=agent.id).run_test(size=SIZE) as pilot:
            await send(pilot, await open_chat(pilot, wait_until), "hello", wait_until)
        server.log.clear()
        app = make_app(base_url=base_url, agent=agent.id)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await wait_until(pilot, lambda: screen.session.transcript.context_tokens is not None
                             and screen.controller.state.phase is Phase.IDLE
                             and all(worker.is_finished for worker in screen.workers
                                     if worker.group == "footers"), what="the runs read")
        steps = [path for event, path in server.log
                 if event == "begin" and path.endswith("/steps")]
        assert len(steps) == 1, steps


async def early_answers(server: SlowDemo, count: int) -> None:
    """Wait until the server has answered ``count`` requests."""
    for _ in range(500):
        if sum(event == "end" for event, _path in server.log) >= count:
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"the server answered {server.log}")


async def test_the_requests_sent_before_the_app_started_are_not_sent_again(
        make_app, wait_until) -> None:
    async with logging_demo("/none") as (server, base_url, agent):
        early = EarlyOpening(base_url, None, agent.id, None)
        await early_answers(server, 3)  # health, the agent and its page, before the app runs
        app = make_app(base_url=base_url, agent=agent.id, early=early)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await wait_until(pilot, lambda: screen.view.more_on_server is not None,
                             what="history shown")
            assert app.client is not None and app.client.server_version is not None
            assert screen.session.transcript.items
        for path in ("/v1/health/", f"/v1/agents/{agent.id}",
                     f"/v1/agents/{agent.id}/messages"):
            assert server.log.count(("begin", path)) == 1, path


async def test_an_early_request_for_an_unknown_agent_leads_to_the_chooser(
        make_app, wait_until) -> None:
    async with logging_demo("/none") as (_server, base_url, _agent):
        early = EarlyOpening(base_url, None, "agent-gone", None)
        app = make_app(base_url=base_url, agent="agent-gone", early=early)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                             and any("agent-gone" in str(toast.message)
                                     for toast in app._notifications), what="chooser")


async def test_streamed_turn_keeps_every_item_in_order(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url,
                   agent=await first_agent_name(demo_server.base_url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        before = len(screen.session.transcript.items)
        await send(pilot, screen, "bash", wait_until)
        turn = screen.session.transcript.items[before:]
        kinds = [type(item) for item in turn]
        assert ReasoningItem in kinds and ToolCallItem in kinds and AssistantItem in kinds
        assert kinds.index(ReasoningItem) < kinds.index(ToolCallItem)
        assert all(item.status.is_final for item in turn if isinstance(item, ToolCallItem))
        await all_mounted(pilot, screen.view, turn)
        assert mounted_items(screen.view) == screen.session.transcript.items
        assert all(screen.view.widget_for(item) is not None for item in turn)


async def test_status_bar_shows_usage_of_the_last_turn(demo_server, make_app,
                                                       wait_until) -> None:
    app = make_app(base_url=demo_server.base_url,
                   agent=await first_agent_name(demo_server.base_url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        usage = screen.status.info.usage
        assert usage is not None and usage.step_count >= 1 and usage.total_tokens > 0
        status_line = screen_lines(app)[-2]
        assert "step" in status_line and "connected" in status_line


async def test_a_context_size_read_before_any_turn_shows_in_the_gauge(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.status.info.context_tokens is None
        screen.transcript_changed(screen.session.transcript.set_context_tokens(4321))
        await pilot.pause()
        assert screen.status.info.context_tokens == 4321
        assert context_gauge(4321, CONTEXT_WINDOW) in screen_lines(app)[-2]


@pytest.mark.parametrize(("share", "colour"), [(0.6, None), (0.95, "warning"),
                                               (1.19, "error")])
async def test_the_gauge_takes_the_warning_colour_near_the_window_and_the_error_colour_past_it(
        demo_server, make_app, wait_until, share: float, colour: str | None) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        tokens = int(CONTEXT_WINDOW * share)
        screen.transcript_changed(screen.session.transcript.set_context_tokens(tokens))
        await wait_until(pilot, lambda: screen.status.info.context_tokens == tokens,
                         what="the gauge moved")
        gauge = context_gauge(tokens, CONTEXT_WINDOW)
        assert gauge.endswith(" over") is (share > 1) and gauge in screen_lines(app)[-2]
        line = screen.status.status_line()
        start = line.plain.index(gauge)
        shown = {span.style.color for span in line.spans
                 if span.start <= start < span.end and not isinstance(span.style, str)}
        if colour is None:
            assert not shown
        else:
            expected = Color.parse(app.get_css_variables()[colour]).rich_color
            assert shown == {expected}


async def test_turns_another_client_added_while_idle_move_the_gauge_to_their_context(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)  # (typing reads the newest page)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        before = screen.status.info.context_tokens
        other = LettaClient(demo_server.base_url)  # another client's long turn
        async with other, other.send_message(screen.session.agent.id, "long 2000") as stream:
            theirs = [message async for message in stream]
        (usage,) = [message for message in theirs if isinstance(message, UsageStatistics)]
        assert usage.context_tokens and before and usage.context_tokens > before
        await pilot.press("x")  # typing in the idle chat catches up with the conversation
        await wait_until(pilot, lambda: [item.text for item in screen.session.transcript.items
                                         if isinstance(item, UserItem)][-1] == "long 2000",
                         what="the other client's turn shown")
        await wait_until(pilot, lambda: screen.status.info.context_tokens == usage.context_tokens,
                         what="the gauge at the newest turn's context")
        assert context_gauge(usage.context_tokens, CONTEXT_WINDOW) in screen_lines(app)[-2]


async def test_the_status_bar_through_a_turn_that_is_stopped(make_app, wait_until) -> None:
    server = DemoServer(speed=1.0)
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent=await first_agent_name(base_url))
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_chat(pilot, wait_until)
            await send(pilot, screen, "hello", wait_until)
            context = screen.session.transcript.context_tokens
            assert context and screen.status.info.usage is not None
            assert screen.status.info.usage.context_tokens == context
            gauge = context_gauge(context, CONTEXT_WINDOW)
            assert gauge in screen_lines(app)[-2]

            # The gauge is the conversation's, not the turn's: it stays while the next turn
            # streams (its usage is not known yet) and after that turn is stopped.
            await pilot.press(*"slow", "enter")
            await wait_until(pilot, lambda: screen.status.info.state == "streaming",
                             what="the slow reply streaming", timeout=10)
            await pilot.pause()
            assert not screen.status.info.usage.step_count
            assert gauge in screen_lines(app)[-2]
            # The bar looks at the clock while the request is in flight; the reply flows,
            # so it shows no count.
            assert screen.status.info.busy_since is not None and screen.status.ticking
            assert screen_lines(app)[-2].startswith(" ◉ streaming  ")
            await pilot.press("escape")
            await wait_until(pilot, lambda: not screen.busy, what="the turn stopped")
            await pilot.pause()
            assert "stopped:" in screen_lines(app)[-2] and gauge in screen_lines(app)[-2]
            assert not screen.status.ticking and screen.status.info.busy_since is None
    finally:
        await server.stop()


async def test_hostile_text_is_shown_literally(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url,
                   agent=await first_agent_name(demo_server.base_url))
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hostile", wait_until)
        await wait_until(pilot, lambda: "Rich markup" in "\n".join(screen_lines(app)),
                         what="the reply drawn")
        shown = "\n".join(screen_lines(app))
        assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
        assert "[bold]" in shown or "[/" in shown


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_escape_or_ctrl_c_interrupts_a_slow_turn(make_app, wait_until, key: str) -> None:
    server = DemoServer(speed=1.0)
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent=await first_agent_name(base_url))
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            transcript = screen.session.transcript
            await pilot.press(*"slow", "enter")
            await wait_until(pilot, lambda: any(
                isinstance(item, AssistantItem) and item.text for item in transcript.items),
                what="partial reply", timeout=10)
            if key == "escape":  # from an item of the chat too (there it says "Stop")
                await pilot.press("tab")
                assert screen.active_bindings[key].binding.action == "interrupt"
            await pilot.press(key)
            await pilot.pause()
            assert not screen.busy and app.is_running
            partial = [item for item in transcript.items if isinstance(item, AssistantItem)]
            assert partial[-1].text and partial[-1].done
            interrupted, footer = transcript.items[-2:]
            assert isinstance(interrupted, EventItem)
            assert interrupted.event_type == "interrupted"
            assert isinstance(footer, TurnFooterItem)
            await wait_until(pilot, lambda: server.cancelled, what="cancel on the server")
            assert screen.view.widget_for(interrupted) is not None
    finally:
        await server.stop()


async def test_a_message_typed_during_a_turn_is_queued_then_sent(make_app, wait_until) -> None:
    server = DemoServer(speed=0.3)
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent=await first_agent_name(base_url))
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await pilot.press(*"slow", "enter")
            await wait_until(pilot, lambda: screen.session.turn_open, what="turn open")
            await pilot.press(*"and then", "enter")
            await pilot.pause()
            assert screen.controller.state.queued == ("and then",)
            assert any("queued and then" in line for line in screen_lines(app))
            await wait_until(pilot, lambda: any(
                getattr(item, "text", None) == "and then"
                for item in screen.session.transcript.items), what="queued sent", timeout=20)
            assert not screen.controller.state.queued
    finally:
        await server.stop()


async def test_failed_send_keeps_the_text_and_says_why(demo_server, make_app,
                                                       wait_until) -> None:
    app = make_app(base_url=demo_server.base_url,
                   agent=await first_agent_name(demo_server.base_url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        before = list(screen.session.transcript.items)
        await demo_server.server.stop()
        await pilot.press(*"are you there", "enter")
        await wait_until(pilot, lambda: screen.prompt.text == "are you there",
                         what="text back in the prompt")
        assert screen.session.transcript.items == before
        assert screen.status.info.state == "offline"
        assert any(line.strip().startswith("Not sent:") for line in screen_lines(app))
        assert app._notifications


@pytest.mark.parametrize("early", [False, True], ids=["asked-by-the-app", "asked-early"])
async def test_connection_failure_explains_and_retry_connects(make_app, wait_until,
                                                              early: bool) -> None:
    server = DemoServer(speed=0)
    base_url = await server.start()
    await server.stop()
    # Early: the first attempt's requests were sent before the app started; a retry asks anew.
    app = make_app(base_url=base_url, agent="agent-x" if early else None,
                   early=EarlyOpening(base_url, None, "agent-x", None) if early else None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen)
                         and app.screen.failed
                         and "How to fix" in "\n".join(screen_lines(app)), what="failure shown")
        shown = "\n".join(screen_lines(app))
        assert base_url in shown
        assert "LETTA_BASE_URL" in shown and "--demo" in shown
        assert "Traceback" not in shown
        restarted = DemoServer(speed=0, port=int(base_url.rsplit(":", 1)[1].strip("/")))
        await restarted.start()
        try:
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                             what="chooser after retry (the demo has no agent-x)")
        finally:
            await restarted.stop()


async def test_a_server_that_cannot_be_reached_is_tried_again_by_itself(
        make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (0.05, 0.1))
    checks: list[str] = []
    health = LettaClient.health

    async def counted(client: LettaClient) -> object:
        checks.append(" ".join(screen_lines(app)))
        return await health(client)

    monkeypatch.setattr(LettaClient, "health", counted)
    server = DemoServer(speed=0)
    base_url = await server.start()
    await server.stop()
    app = make_app(base_url=base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(checks) >= 4, what="three tries of its own")
        said = " ".join(TRYING_AGAIN.split()[:6])  # (the rest wraps at the screen's width)
        assert all(said in shown and "Connecting" not in shown
                   for shown in checks[1:])  # the failure stays on screen meanwhile
        restarted = DemoServer(speed=0, port=int(base_url.rsplit(":", 1)[1].strip("/")))
        await restarted.start()
        try:
            await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                             what="the chooser, with no key pressed")
        finally:
            await restarted.stop()


async def test_an_unexpected_error_while_connecting_is_shown_not_hidden(
        make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(_self: object) -> None:
        raise RuntimeError("something is off")

    monkeypatch.setattr(LettaClient, "health", broken)
    app = make_app(base_url="http://127.0.0.1:9")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen)
                         and app.screen.failed and "Retry" in "\n".join(screen_lines(app)),
                         what="failure and its keys shown")
        shown = "\n".join(screen_lines(app))
        assert "unexpected RuntimeError: something is off" in shown
        assert "Traceback" not in shown


async def test_demo_flag_runs_the_embedded_server(wait_until) -> None:
    from openletta.settings import Settings

    app = OpenLettaApp(demo=True, demo_speed=0, settings=Settings())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and app.screen.agents, what="demo agents")
        await pilot.press("enter")
        screen = await open_chat(pilot, wait_until)
        assert screen.status.info.demo
        assert "demo" in screen_lines(app)[-2]
        assert not any(isinstance(item, ErrorItem) for item in screen.session.transcript.items)
        # (by its name: the demo's agents are made anew each run, with names that differ)
        assert app.resume_hint == ResumeHint("openletta --demo --agent demo-agent")
        await pilot.press(*"/new scratch", "enter")
        await wait_until(pilot, lambda: app.screen is not screen
                         and isinstance(app.screen, ChatScreen), what="the new conversation")
        assert app.resume_hint is None  # the demo server forgets it on exit


async def test_slash_commands_export_clear_and_theme(demo_server, make_app, wait_until,
                                                     isolated_config) -> None:
    app = make_app(base_url=demo_server.base_url,
                   agent=await first_agent_name(demo_server.base_url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        await pilot.press(*"/export", "enter")
        await wait_until(pilot, lambda: list(isolated_config.glob("openletta-*.md")),
                         what="export file")
        export = next(isolated_config.glob("openletta-*.md"))
        assert "hello" in export.read_text(encoding="utf-8")
        assert export.stat().st_mode & 0o777 == 0o600  # only the user may read the chat
        await pilot.press(*"/clear", "enter")
        await wait_until(pilot, lambda: not mounted_items(screen.view), what="cleared")
        assert screen.session.transcript.items
        await pilot.press(*"/theme openletta-light", "enter")
        await wait_until(pilot, lambda: app.theme == "openletta-light", what="theme")
        assert app.settings.theme == "openletta-light"
        await pilot.press(*"/theme nosuch", "enter")
        await wait_until(pilot, lambda: any(
            n.message == "Unknown theme 'nosuch'. Themes: openletta-dark, openletta-light."
            for n in app._notifications), what="the themes there are")
        await pilot.press(*"/no-such-command and its text", "enter")
        await wait_until(pilot, lambda: any("Unknown command" in str(n.message)
                                            for n in app._notifications), what="unknown")
        assert screen.prompt.text == "/no-such-command and its text"  # not lost


async def test_a_dropped_stream_keeps_what_arrived(make_app, wait_until, monkeypatch) -> None:
    monkeypatch.setattr(replies, "RESUME_PAUSES", (0.05, 0.05))
    server = DemoServer(speed=1.0)
    base_url = await server.start()
    app = make_app(base_url=base_url, agent=await first_agent_name(base_url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        transcript = screen.session.transcript
        await pilot.press(*"slow", "enter")
        await wait_until(pilot, lambda: any(
            isinstance(item, AssistantItem) and item.text for item in transcript.items),
            what="partial reply", timeout=10)
        await server.stop()
        await wait_until(pilot, lambda: screen.status.info.state == "reconnecting",
                         what="reconnecting shown")
        await wait_until(pilot, lambda: not screen.busy, what="turn ended", timeout=10)
        partial = [item for item in transcript.items if isinstance(item, AssistantItem)]
        assert partial and partial[-1].text
        dropped, footer = transcript.items[-2:]
        assert isinstance(dropped, ErrorItem) and isinstance(footer, TurnFooterItem)
        assert screen.view.widget_for(dropped) is not None


@pytest.mark.parametrize("ref", ["no such agent", "agent-00000000-no-such-id"])
async def test_unknown_agent_flag_falls_back_to_the_chooser(demo_server, make_app, wait_until,
                                                           ref: str) -> None:
    app = make_app(base_url=demo_server.base_url, agent=ref)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and any(ref in str(n.message) for n in app._notifications),
                         what="the chooser, and why")
        chooser = app.screen
        assert isinstance(chooser, AgentChooserScreen)
        searched = "" if ref.startswith("agent-") else ref  # a name, not an id, is searched
        assert chooser.query_one("#agent-filter", Input).value == searched
        await wait_until(pilot, lambda: bool(chooser.agents) == (not searched),
                         what="the search's result")
        await pilot.press("ctrl+n")  # and a missing name is the new agent's
        await wait_until(pilot, lambda: isinstance(app.screen, NewAgentScreen),
                         what="the new agent's form")
        assert app.screen.query_one("#new-agent-name", Input).value == searched


async def test_screens_take_the_theme_colours(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        theme = app.current_theme
        assert screen.styles.background == Color.parse(theme.background)
        assert screen.rich_style.color.triplet.hex == Color.parse(theme.foreground).hex.lower()


async def test_scrolling_to_the_top_loads_the_previous_page(long_history, make_app,
                                                            wait_until) -> None:
    app = make_app(base_url=long_history.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await wait_until(pilot, lambda: screen.view.more_on_server, what="first page")
        loaded = len(screen.session.transcript.items)

        def previous_page_loaded() -> bool:
            screen.view.scroll.scroll_home(animate=False)  # shows pruned items, then asks
            return len(screen.session.transcript.items) > loaded

        await wait_until(pilot, previous_page_loaded, what="previous page")
        await screen.view.scroll.wait_for_mounts()  # the page's newest items, above the view
        await laid_out(pilot, screen.view)
        assert screen.view.scroll.scroll_y > 0  # the view did not jump to the new top


async def test_an_older_page_that_could_not_reach_the_server_loads_once_it_can(
        make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (0.1,))
    server = DemoServer(speed=0, history_messages=300)
    await server.start()
    proxy = FaultProxy("127.0.0.1", server.port)
    base_url = await proxy.start()
    proxy.down_seconds = 1.0
    try:
        app = make_app(base_url=base_url, agent="demo-agent")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await wait_until(pilot, lambda: screen.view.more_on_server, what="first page")
            loaded = len(screen.session.transcript.items)
            proxy.arm("down", "/messages", after_events=-1)

            def offline() -> bool:
                screen.view.scroll.scroll_home(animate=False)  # shows pruned items, then asks
                return screen.controller.state.offline

            await wait_until(pilot, offline, what="the older page not reached")
            assert len(screen.session.transcript.items) == loaded
            await wait_until(pilot, lambda: len(screen.session.transcript.items) > loaded,
                             what="the older page, loaded by itself", timeout=10)
            assert not screen.controller.state.offline
    finally:
        await proxy.stop()
        await server.stop()


async def test_an_older_page_that_fails_to_load_can_be_asked_for_again(
        long_history, make_app, wait_until) -> None:
    app = make_app(base_url=long_history.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await wait_until(pilot, lambda: screen.view.more_on_server, what="first page")
        client, loaded = screen.session.client, len(screen.session.transcript.items)
        list_messages = client.list_messages
        failures: list[str] = []

        async def down_twice(*args: object, **kwargs: object) -> object:
            if len(failures) < 2:
                failures.append("down")
                raise APIConnectionError("Could not reach the server.")
            return await list_messages(*args, **kwargs)

        client.list_messages = down_twice  # type: ignore[method-assign]
        earlier = screen.view.query_one("#earlier", Static)

        def asked() -> bool:
            if not failures:
                screen.view.scroll.scroll_home(animate=False)  # shows pruned items, then asks
            return bool(failures)

        def offers_again() -> bool:
            return "could not load earlier messages" in str(earlier.render())

        await wait_until(pilot, asked, what="a request for an older page")
        await wait_until(pilot, offers_again, what="the row offering to ask again")
        assert earlier.has_class("-failed")
        assert len(screen.session.transcript.items) == loaded
        said = "Could not load history: Could not reach the server."

        def times_said() -> tuple[int, int]:
            toasts = sum(said in str(note.message) for note in app._notifications)
            notices = sum(said in str(note.render()) for note in screen.query(".notice"))
            return toasts, notices

        await wait_until(pilot, lambda: times_said() == (1, 1), what="the error said")

        await pilot.press("pageup")  # at the top: asks again, and fails the same way
        await wait_until(pilot, lambda: len(failures) == 2 and offers_again(),
                         what="the second failure")
        await pilot.pause()
        assert times_said() == (1, 1)  # said once, not once per try

        await pilot.press("pageup")
        await wait_until(pilot, lambda: len(screen.session.transcript.items) > loaded,
                         what="the page on the third try")
        assert not earlier.has_class("-failed")


async def test_new_conversation_and_switching_back(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        first = await open_chat(pilot, wait_until)
        await send(pilot, first, "hello", wait_until)
        second = await start_new_conversation(pilot, first, wait_until)
        conversation = second.session.conversation_id
        assert conversation and second.status.info.conversation == conversation
        assert not [i for i in second.session.transcript.items if isinstance(i, UserItem)]
        await send(pilot, second, "bash", wait_until)
        await pilot.press(*"/conversations", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConversationsScreen)
                         and app.screen.conversations, what="conversations listed")
        assert [c.id for c in app.screen.conversations] == [conversation]
        await pilot.press("home", "enter")  # the default thread
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and app.screen.session.conversation_id is None, what="default")
        back = await open_chat(pilot, wait_until)
        await wait_until(pilot, lambda: back.session.transcript.items, what="history")
        texts = [i.text for i in back.session.transcript.items if isinstance(i, UserItem)]
        assert texts == ["hello"]
        assert "--conversation" not in str(app.resume_hint)


async def test_a_conversation_that_is_not_the_agents_opens_its_default_thread_and_says_so(
        demo_server, make_app, wait_until) -> None:
    async with LettaClient(demo_server.base_url) as client:
        agents = {agent.name: agent.id for agent in await client.list_agents()}
        theirs = await client.create_conversation(agents["research-notes"])
        ours = await client.create_conversation(agents["demo-agent"], "ours")
        found = await read_conversation(client, agents["demo-agent"], ours.id)
        assert isinstance(found, Conversation) and found.summary == "ours"
    unknown = "conv-00000000-0000-4000-8000-000000000000"
    for conversation, said in ((unknown, f"There is no conversation {unknown}"),
                               ("conv-bogus", "conv-bogus is not a conversation id this"),
                               (theirs.id, f"Conversation {theirs.id} is another agent's")):
        app = make_app(base_url=demo_server.base_url, agent="demo-agent",
                       conversation=conversation)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            assert screen.session.conversation_id is None
            assert any(said in str(note.message) for note in app._notifications)
            assert "--conversation" not in str(app.resume_hint)


async def test_ctrl_c_says_how_to_quit_and_quits_when_pressed_again(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press("ctrl+c")
        (note,) = app._notifications
        assert str(note.message) == "Press Ctrl+C again, or Ctrl+Q, to quit."
        assert note.timeout == QUIT_AGAIN_SECONDS  # it says so only while it is true
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app._exit, what="the app to quit")


async def test_conversations_says_when_there_is_none_but_the_default_thread(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press(*"/conversations", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConversationsScreen)
                         and "Loading" not in str(
                             app.screen.query_one("#conversations-status").render()),
                         what="conversations listed")
        status = str(app.screen.query_one("#conversations-status").render())
        assert status == "No other conversation yet: n starts one"


async def test_a_conversation_gets_a_name_at_its_start_or_later(
        demo_server, make_app, wait_until, tmp_path: Path) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        first = await open_chat(pilot, wait_until)
        await pilot.press(*"/rename triage", "enter")
        await wait_until(pilot, lambda: any("default thread has no name" in str(note.message)
                                            for note in app._notifications), what="refused")
        await pilot.press(*"/new bug hunt", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and app.screen is not first, what="the named conversation")
        screen = await open_chat(pilot, wait_until)
        conversation = screen.session.conversation_id
        assert conversation is not None
        assert " / bug hunt" in status_text(screen.status.info).plain
        await pilot.press(*"/rename a much longer name for the triage work", "enter")
        await wait_until(pilot, lambda: screen.session.conversation_name
                         == "a much longer name for the triage work", what="renamed")
        assert " / a much longer name for… · " in status_text(screen.status.info).plain
        stored = await screen.session.client.get_conversation(conversation)
        assert stored.summary == "a much longer name for the triage work"
        target = tmp_path / "named.md"
        await send(pilot, screen, "hello", wait_until)  # (an empty thread writes no file)
        await pilot.press(*f"/export {target}", "enter")
        await wait_until(pilot, target.exists, what="the export")
        title = target.read_text(encoding="utf-8").splitlines()[0]
        assert title == "# demo-agent · a much longer name for the triage work"


async def test_up_recalls_messages_sent_in_an_earlier_run(demo_server, make_app,
                                                          wait_until) -> None:
    first = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with first.run_test(size=(100, 30)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello from before", wait_until)
    again = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with again.run_test(size=(100, 30)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press(*"draft", "up")
        assert screen.prompt.text == "hello from before"
        await pilot.press("down")
        assert screen.prompt.text == "draft"


async def test_a_draft_left_when_the_app_quits_waits_in_its_prompt_next_run(
        demo_server, make_app, wait_until) -> None:
    # (what is in the prompt when the chat opens, what is typed; None: the prompt is cleared)
    for expected, typed in (("", "unsent words"), ("unsent words", ""),
                            ("unsent words", None), ("", "")):
        app = make_app(base_url=demo_server.base_url, agent="demo-agent")
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_chat(pilot, wait_until)
            assert screen.prompt.text == expected
            if typed is None:
                screen.prompt.clear()  # the draft sent or thrown away: nothing is kept
            else:
                await pilot.press(*typed)
            app.exit()


async def test_a_message_queued_when_another_conversation_opens_waits_in_its_prompt(
        make_app, wait_until) -> None:
    server = DemoServer(speed=5.0)  # replies at a slow pace: one is still streaming
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent="demo-agent")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            agent = screen.session.agent
            await pilot.press(*"help", "enter")
            await wait_until(pilot, lambda: screen.controller.state.phase is Phase.STREAMING,
                             what="the reply streaming")
            await pilot.press(*"queued meanwhile", "enter")
            assert screen.controller.state.queued == ("queued meanwhile",)
            await start_new_conversation(pilot, screen, wait_until)
            app.open_conversation(agent, None)
            await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                             and app.screen.session.conversation_id is None, what="back")
            assert app.screen.prompt.text == "queued meanwhile"
    finally:
        await server.stop()


async def test_an_agent_opened_again_opens_the_conversation_last_open_with_it(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen, side = await side_conversation(pilot, wait_until)
        demo_agent = screen.session.agent
        assert app.client is not None
        other = next(agent for agent in await app.client.list_agents()
                     if agent.id != demo_agent.id)
        await pilot.press(*"a draft")
        for agent, conversation in ((other, None), (demo_agent, side)):
            app.open_agent(agent)
            await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                             and app.screen.session.agent.id == agent.id,  # noqa: B023
                             what=f"{agent.name} open")
            assert app.screen.session.conversation_id == conversation
            # The draft waits in the chat it was typed in.
            assert app.screen.prompt.text == ("a draft" if conversation else "")


async def test_a_keep_alive_ping_does_not_reset_the_wait_shown(demo_server, make_app,
                                                              wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        before = screen.status._last_arrival
        screen.transcript_changed(screen.session.transcript.feed(Ping()))
        assert screen.status._last_arrival == before
        screen.transcript_changed(screen.session.transcript.add_user("hi"))
        assert screen.status._last_arrival != before
