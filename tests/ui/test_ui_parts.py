"""Small parts of the UI: status line, prompt keys, relative times, launch decisions."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from textual import events
from textual.app import App, ComposeResult
from textual.color import Color
from textual.pilot import Pilot
from textual.widgets import Static
from waiting import wait_until

import openletta.ui
from openletta.api.resources import Agent
from openletta.chat.local_calls import LocalCalls
from openletta.chat.turn_state import STOPPING, Phase, TurnState
from openletta.cli import build_parser
from openletta.config import port_open, should_use_demo
from openletta.settings import Settings
from openletta.tools.permissions import SWITCHABLE, PermissionMode
from openletta.transcript import Usage
from openletta.transcript.export import default_export_name
from openletta.ui import status_bar
from openletta.ui.chat_scroll import PendingRows
from openletta.ui.commands import SLASH_COMMANDS, SlashCommand
from openletta.ui.completion_menu import USAGE_WIDTH, command_row
from openletta.ui.dates import time_ago
from openletta.ui.formatting import format_tokens, home_relative
from openletta.ui.launch import local_calls
from openletta.ui.prompt import Prompt, fitted_hints
from openletta.ui.screens.agents import agent_row
from openletta.ui.screens.connect import failure_text
from openletta.ui.screens.help import help_table
from openletta.ui.sending_title import SENDING, SENDING_ROW_DELAY, SendingTitle
from openletta.ui.status_bar import (
    KEEP_ORDER,
    NAME_IN_FULL,
    SHORT_NAME_WIDTH,
    BarStyles,
    ContextFill,
    StatusBar,
    StatusInfo,
    context_fill,
    context_gauge,
    conversation_part,
    status_parts,
    status_text,
    tone_class,
)
from openletta.ui.steady import SteadyInput
from openletta.ui.themes import ThemeVariables
from openletta.ui.turn_status import status_state

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

APP_CSS = Path(openletta.ui.__file__).parent / "styles" / "app.tcss"


def test_token_counts_are_short() -> None:
    assert [format_tokens(n) for n in (999, 1000, 12_345, 2_000_000)] == [
        "999", "1k", "12.3k", "2M"]


def test_context_gauge_fills_with_the_window() -> None:
    assert context_gauge(0, 32_000) == "▱▱▱▱▱ 0/32k"
    assert context_gauge(12_345, 32_000) == "▰▰▱▱▱ 12.3k/32k"
    assert context_gauge(100, 32_000).startswith("▰▱▱▱▱")
    assert context_gauge(40_000, 32_000).startswith("▰▰▰▰▰")


def test_an_estimated_context_size_is_marked_as_one() -> None:
    assert context_gauge(1_500, 32_000, estimated=True) == "▰▱▱▱▱ ~1.5k/32k"
    info = StatusInfo(state="connected", context_tokens=1_500, context_estimated=True,
                      context_window=32_000)
    assert status_text(info).plain.endswith("▰▱▱▱▱ ~1.5k/32k")


def test_a_context_past_the_window_says_so_and_one_near_it_is_told_apart() -> None:
    assert context_gauge(35_700, 30_000) == "▰▰▰▰▰ 35.7k/30k over"
    assert context_gauge(35_700, 30_000, estimated=True) == "▰▰▰▰▰ ~35.7k/30k over"
    assert context_gauge(30_000, 30_000) == "▰▰▰▰▰ 30k/30k"
    assert [context_fill(tokens, 30_000) for tokens in (0, 27_000, 27_001, 30_000, 30_001)] == [
        ContextFill.ROOMY, ContextFill.ROOMY, ContextFill.NEARLY_FULL, ContextFill.NEARLY_FULL,
        ContextFill.OVER]
    styles = BarStyles(fill={ContextFill.NEARLY_FULL: "yellow", ContextFill.OVER: "red"})
    for tokens, style in ((12_000, ""), (28_000, "yellow"), (35_700, "red")):
        info = StatusInfo(state="connected", context_tokens=tokens, context_window=30_000)
        gauge = status_parts(info, styles)["gauge"]
        assert [(span.style, gauge.plain[span.start:span.end]) for span in gauge.spans] == (
            [(style, context_gauge(tokens, 30_000))] if style else [])


def test_a_context_just_over_or_under_the_window_shows_which_it_is() -> None:
    """Not ``4k/4k over``: as many decimals as tell it from the window."""
    assert context_gauge(4_030, 4_000) == "▰▰▰▰▰ 4.03k/4k over"
    assert context_gauge(3_960, 4_000) == "▰▰▰▰▰ 3.96k/4k"
    assert context_gauge(29_996, 30_000) == "▰▰▰▰▰ 29.996k/30k"
    assert format_tokens(4_030) == "4k"  # (alone, as short as ever)


def test_status_line_shows_usage_and_server_text_literally() -> None:
    usage = Usage(prompt_tokens=1234, completion_tokens=56, total_tokens=1290, step_count=2,
                  context_tokens=12_345)
    info = StatusInfo(agent_name="[bold red]x[/]\x1b]0;t\x07", model="m", state="connected",
                      demo=True, usage=usage, context_tokens=12_345, context_window=32_000)
    line = status_text(info).plain
    assert "connected · demo" in line
    assert "  [bold red]x[/] · m" in line
    assert "\x1b" not in line and "\x07" not in line
    assert "↑1.2k ↓56 · 2 steps" in line
    assert "12.3k/32k" in line
    assert "stopped" not in line
    stopped = status_text(StatusInfo(stop_reason="max_steps")).plain
    assert "stopped: max steps" in stopped


def test_the_status_line_counts_the_seconds_of_the_request_in_flight() -> None:
    busy = StatusInfo(agent_name="a", state="streaming", busy_since=100.0)
    assert status_text(busy, now=100.9).plain == "◉ streaming  a"  # not yet a second
    assert status_text(busy, now=112.5).plain == "◉ streaming 12s  a"
    assert status_text(busy, now=225.0).plain == "◉ streaming 2m 05s  a"
    assert "·" not in status_text(StatusInfo(state="connected"), now=500.0).plain


def test_the_status_line_says_stopping_while_esc_waits_for_the_server() -> None:
    state = TurnState(phase=Phase.SENDING, sending="hi", connection=STOPPING)
    info = StatusInfo(state=status_state(state))
    assert status_text(info).plain == "◌ stopping"
    assert tone_class(info.state) == "status-bar--waiting"


def test_an_agent_row_says_when_it_last_ran_or_else_when_it_changed() -> None:
    ran = Agent(id="agent-1", name="ran", last_run_completion=NOW - timedelta(hours=1),
                updated_at=NOW - timedelta(minutes=1))
    idle = Agent(id="agent-2", name="idle", updated_at=NOW - timedelta(minutes=3))
    assert "· ran 1 h ago" in agent_row(ran, NOW).plain
    assert "· changed 3 min ago" in agent_row(idle, NOW).plain
    assert "· never ran" in agent_row(Agent(id="agent-3"), NOW).plain


def rendered_lines(renderable: object, width: int) -> list[str]:
    console = Console(width=width, color_system=None, legacy_windows=False)
    with console.capture() as captured:
        console.print(renderable)
    return [line.rstrip() for line in captured.get().splitlines()]


def test_rows_that_wrap_go_on_under_their_text_not_under_the_row_start() -> None:
    """A hanging indent: a slash command's description, an agent's details and
    description, and the connect screen's fixes go on under themselves on a narrow screen."""
    command = SLASH_COMMANDS["conversations"]
    first, second = rendered_lines(command_row(command), 52)
    assert first.startswith("/conversations") and second.strip() in command.description
    start = first.index(command.description.split()[0])
    assert start == USAGE_WIDTH and second.startswith(" " * start + second.strip())
    agent = Agent(id="agent-1", name="demo-agent", model="demo/scripted-model",
                  updated_at=NOW, description="Scripted agent of the demo server: type "
                  "help to start, and to read what it does.")
    lines = rendered_lines(agent_row(agent, NOW), 40)
    assert lines[0].startswith("demo-agent  demo/scripted-model")
    indent = len("demo-agent  ")  # "changed just now" under the model
    assert lines[1].startswith(" " * indent) and lines[1][indent] != " "
    assert lines[2].startswith("  Scripted") and lines[3].startswith("  ") and len(lines) >= 4
    lines = rendered_lines(failure_text("http://127.0.0.1:9", "Nothing answered."), 70)
    bullet = next(index for index, line in enumerate(lines) if "• start" in line)
    assert lines[bullet + 1].startswith("    LETTA_BASE_URL")  # under "start", not the "•"


def test_time_ago_is_relative_to_the_given_now() -> None:
    assert time_ago(None, NOW) == "never"
    assert time_ago(NOW - timedelta(seconds=5), NOW) == "just now"
    assert time_ago(NOW - timedelta(minutes=5), NOW) == "5 min ago"
    assert time_ago(NOW - timedelta(hours=3), NOW) == "3 h ago"
    assert time_ago(NOW - timedelta(days=2), NOW) == "2 d ago"
    assert time_ago(NOW - timedelta(days=90), NOW) == "2029-10-03"


def test_export_file_name_is_safe() -> None:
    assert default_export_name("my agent/1", NOW) == "openletta-my-agent-1-20300101-120000.md"


def test_demo_is_used_only_when_nothing_is_configured() -> None:
    empty = Settings()
    assert not should_use_demo("http://server:8283", empty, {})
    assert not should_use_demo(None, empty, {"LETTA_API_KEY": "sk"})
    assert not should_use_demo(None, empty, {"LETTA_BASE_URL": "http://x"})
    assert not should_use_demo(None, Settings(base_url="http://saved:8283"), {})


def test_port_probe_sees_a_listener_and_a_closed_port() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert port_open(f"http://127.0.0.1:{port}")
    assert not port_open(f"http://127.0.0.1:{port}")


class PromptApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield Prompt()

    def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        self.sent.append(event.text)


async def test_prompt_enter_sends_and_ctrl_j_breaks_the_line() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        await pilot.press(*"one", "ctrl+j", *"two", "enter")
        await pilot.pause()
        assert app.sent == ["one\ntwo"]
        assert prompt.text == ""
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == ["one\ntwo"]


class StyledPromptApp(PromptApp):
    CSS = "Prompt { height: auto; max-height: 4; }"  # as the chat's, at its tallest


async def test_a_line_break_in_a_prompt_at_its_tallest_shows_the_new_line() -> None:
    app = StyledPromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        for number in range(6):
            await pilot.press(*f"line {number}", "ctrl+j")

        def cursor_shown() -> bool:
            row = prompt.cursor_location[0]
            return prompt.scroll_offset.y <= row < prompt.scroll_offset.y + prompt.size.height

        await wait_until(pilot, cursor_shown, what="the new line in view")
        assert prompt.size.height == 4 and prompt.cursor_location == (6, 0)


async def test_ctrl_home_goes_to_the_start_of_a_message_of_several_lines() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        await pilot.press(*"one", "ctrl+j", *"two", "ctrl+j", *"three", "ctrl+home")
        assert prompt.cursor_location == (0, 0)
        await pilot.press("x")
        assert prompt.text == "xone\ntwo\nthree"


async def test_prompt_up_and_down_recall_sent_prompts() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        await pilot.press(*"first", "enter", *"second", "enter", *"dra", "up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("down", "down")
        assert prompt.text == "dra"


def test_the_placeholder_keeps_the_hints_that_fit() -> None:
    hints = "Message the agent · Enter sends · F1 help"
    assert fitted_hints(hints, 80) == hints
    assert fitted_hints(hints, 32) == "Message the agent · Enter sends"
    assert fitted_hints(hints, 5) == "Message the agent"  # the first, always


async def test_prompt_restore_puts_unsent_text_first_and_withdraw_takes_it_back_unedited() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        await pilot.press(*"typed")
        prompt.restore("unsent")
        assert prompt.text == "unsent\n\ntyped"
        prompt.withdraw("unsent")
        assert prompt.text == "typed"
        prompt.restore("unsent")
        prompt.move_cursor((0, 6))
        await pilot.press("!")
        prompt.withdraw("unsent")
        assert prompt.text == "unsent!\n\ntyped"
        prompt.load_text("unsent")
        prompt.withdraw("unsent")
        assert prompt.text == ""


async def test_a_message_given_back_while_a_command_is_typed_follows_once_it_is_sent() -> None:
    """Esc stopped a turn the server then dropped; its message comes back a second later,
    while the user types a command: ahead of it, the command went to the agent as text."""
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        await pilot.press(*"/comp")
        prompt.restore("unsent")
        assert prompt.text == "/comp"
        await pilot.press(*"act", "enter")
        await pilot.pause()
        assert app.sent == ["/compact"]
        assert prompt.text == "unsent"
        prompt.clear()
        await pilot.press("/")
        prompt.restore("dropped")
        prompt.restore("later")
        prompt.withdraw("later")
        await pilot.press("backspace")  # no command any more: it shows at once
        assert prompt.text == "dropped"


async def test_the_cursor_stays_lit_and_repaints_nothing_while_the_prompt_is_idle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Focused and typed into, the prompt shows its cursor and then draws nothing more: no
    blink timer repaints it (Textual's blinks every half second)."""
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press("x")
        await wait_until(pilot, lambda: prompt.has_focus and prompt.text == "x",
                         what="the key typed")
        drawn: list[int] = []
        draw = Prompt.render_lines
        monkeypatch.setattr(Prompt, "render_lines", lambda self, crop: (
            drawn.append(crop.height), draw(self, crop))[1])
        await asyncio.sleep(1.2)  # two blink periods
        await pilot.pause()
        assert drawn == []
        await pilot.press("y")
        await wait_until(pilot, lambda: bool(drawn), what="the key drawn")


def test_the_local_tool_flags_choose_the_mode_or_no_tools() -> None:
    def local(*flags: str) -> LocalCalls | None:
        return local_calls(build_parser().parse_args(list(flags)))

    default = local()
    assert default is not None and default.mode is PermissionMode.ASK
    assert default.workspace.root == Path.cwd()
    assert [tool["name"] for tool in default.declarations()] == [
        "Bash", "Read", "Write", "Edit", "Glob", "Grep", "LS"]
    chosen = local("--permission-mode", "read-only")
    assert chosen is not None and chosen.mode is PermissionMode.READ_ONLY
    yolo = local("--yolo")
    assert yolo is not None and yolo.mode is PermissionMode.YOLO
    assert local("--no-local-tools") is None


def test_the_status_bar_shows_the_mode_and_directory() -> None:
    text = status_text(StatusInfo(agent_name="a", state="connected",
                                  permission_mode="accept edits", workspace="~/project"))
    assert "⚒ accept edits · ~/project" in text.plain
    assert "stopped" not in status_text(StatusInfo(stop_reason="requires_approval")).plain


FULL_STATUS = StatusInfo(
    agent_name="openletta-e2e", conversation="conv-1a2b3c4d-5e6f", model="openai-proxy/model",
    state="streaming", busy_since=0.0, usage=Usage(prompt_tokens=6500, completion_tokens=36,
                                                   total_tokens=6536, step_count=2),
    stop_reason="max_steps", context_tokens=3400, context_window=30_000,
    permission_mode="ask", workspace="~/work/a/rather/long/project/path")


def test_a_narrow_status_bar_keeps_what_matters_most() -> None:
    line = status_text(FULL_STATUS, now=12.0, width=80).plain  # a side conversation stays
    assert line == "◉ streaming 12s  openletta-e2e / New conve…   stopped: max steps   ⚒ ask"
    line = status_text(FULL_STATUS, now=12.0, width=60).plain
    assert line == "◉ streaming 12s  openletta-e2e / New conve…   ⚒ ask"
    line = status_text(FULL_STATUS, now=12.0, width=100).plain  # the conversation in full
    assert line == ("◉ streaming 12s  openletta-e2e / New conversation   stopped: max steps"
                    "   ▰▱▱▱▱ 3.4k/30k   ⚒ ask")
    whole = status_text(FULL_STATUS, now=12.0).plain
    assert whole.endswith("   ⚒ ask · ~/work/a/rather/long/project/path") and len(whole) > 140
    assert status_text(FULL_STATUS, now=12.0, width=5).plain == "◉ streaming 12s"


@given(width=st.integers(min_value=0, max_value=220),
       context=st.sampled_from([3400, 29_000, 35_700]))
def test_the_status_line_fits_and_drops_the_least_important_parts_first(
        width: int, context: int) -> None:
    info = dataclasses.replace(FULL_STATUS, context_tokens=context)
    parts = status_parts(info, now=12.0)
    line = status_text(info, now=12.0, width=width).plain
    short = conversation_part(info, SHORT_NAME_WIDTH).plain
    shown = {name: part.plain for name, part in parts.items()}
    if short in line:
        shown["conversation"] = short
    kept = [name for name in shown if shown[name] in line]
    assert line == "".join(shown[name] for name in kept)  # in place, whole
    assert len(line) <= width or kept == ["state"]
    full = ["conversation", NAME_IN_FULL] if short not in line else ["conversation"]
    ranked = [name for name in kept if name != "conversation"] + (  # (cut only after the
        full if "conversation" in kept else [])                    # parts below it go)
    ranks = sorted(KEEP_ORDER.index(name) for name in ranked)
    assert ranks == list(range(len(ranked)))  # what stays is the most important, in order
    if width >= len("".join(part.plain for part in parts.values())):
        assert kept == list(parts)


def test_paths_under_home_are_shown_from_tilde() -> None:
    assert home_relative(Path.home() / "work" / "project") == "~/work/project"
    assert home_relative(Path.home()) == "~"
    assert home_relative(Path("/srv/project")) == "/srv/project"


def test_a_conversation_without_a_name_is_shown_by_its_first_message_not_its_id() -> None:
    info = StatusInfo(agent_name="openletta-e2e", state="connected",
                      conversation="conv-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d",
                      model="openai-proxy/fake-model", context_window=30000,
                      usage=Usage(prompt_tokens=17300, completion_tokens=169, step_count=1,
                                  total_tokens=17469, context_tokens=17500),
                      context_tokens=17500)
    text = status_text(info).plain
    assert "openletta-e2e / New conversation · " in text and "conv-" not in text
    assert len(text) <= 118 and text.endswith("17.5k/30k")
    said = dataclasses.replace(info, first_message="please look at the\nflaky build on main again")
    assert "openletta-e2e / “please look at the…” · " in status_text(said).plain
    named = dataclasses.replace(said, conversation_name="side quest")
    assert "openletta-e2e / side quest · " in status_text(named).plain


class RowsApp(App[None]):
    CSS = "PendingRows { display: none; height: auto; }"  # as the app's style sheet has it

    def compose(self) -> ComposeResult:
        yield PendingRows()


class FlushLater:
    """A chat view's ``with_next_flush``: the calls wait until :meth:`flush`."""

    def __init__(self) -> None:
        self.waiting: list[Callable[[], None]] = []

    def with_next_flush(self, call: Callable[[], None]) -> None:
        self.waiting.append(call)

    def flush(self) -> None:
        while self.waiting:
            self.waiting.pop(0)()


class TitleApp(App[None]):
    """A field with a top border, as the prompt's, above the rows of queued messages."""

    def compose(self) -> ComposeResult:
        field = Static("type here", id="field")
        field.styles.border_top = ("solid", "white")
        yield field
        yield PendingRows()


def border_line(app: App[None]) -> str:
    return app.screen._compositor.render_strips()[0].text


async def test_a_message_on_its_way_is_named_above_the_prompt_if_the_server_keeps_it_waiting(
        ) -> None:
    """"sending hello" shows in the field's top border after SENDING_ROW_DELAY; a message
    taken sooner (the usual case) never shows; the name goes with the chat's next flush (the
    one showing the message), and the chat view's rows are not touched."""
    app = TitleApp()
    async with app.run_test() as pilot:
        field, rows = app.query_one("#field"), app.query_one(PendingRows)
        view = FlushLater()
        title = SendingTitle(field, view)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        started = loop.time()
        title.show((SENDING, "hello"))
        await pilot.pause()
        assert title.shown is None
        title.show(None)  # taken by the server
        view.flush()
        await asyncio.sleep(SENDING_ROW_DELAY * 2)
        await pilot.pause()
        assert title.shown is None and "hello" not in border_line(app)
        title.show((SENDING, "again [bold]x\x1b[2J"))
        await wait_until(pilot, lambda: title.shown is not None, what="the title")
        assert loop.time() - started >= 3 * SENDING_ROW_DELAY
        await wait_until(pilot, lambda: "sending again [bold]x␛[2J" in border_line(app),
                         what="the title drawn as typed")
        title.show(("waiting", "again"))  # shown at once
        assert title.shown == ("waiting", "again")
        title.show(None)
        assert title.shown == ("waiting", "again")  # until the message shows in the chat
        view.flush()
        assert title.shown is None
        await wait_until(pilot, lambda: "again" not in border_line(app), what="the title gone")
        assert not str(rows.render())  # no row below the chat came and went


async def test_queued_messages_show_below_the_chat_at_once_as_they_were_typed() -> None:
    app = RowsApp()
    async with app.run_test() as pilot:
        rows = app.query_one(PendingRows)
        rows.show([("queued", "later \x1b[1m"), ("queued", "then")])
        await pilot.pause()
        assert rows.display and str(rows.render()) == "queued later ␛[1m\nqueued then"
        rows.show([])
        await pilot.pause()
        assert not rows.display


class StatusApp(ThemeVariables, App[None]):
    CSS_PATH = APP_CSS

    def compose(self) -> ComposeResult:
        yield StatusBar()


def tone_colour(bar: StatusBar) -> Color:
    """The colour of the state's part of the bar."""
    return Color.from_rich_color(next(iter(bar.status_line().spans)).style.color)


def near(shown: Color, colour: str) -> bool:
    """Whether ``shown`` is ``colour`` (but for the rounding of blending it)."""
    want = Color.parse(colour)
    return max(abs(a - b) for a, b in zip(shown.rgb, want.rgb, strict=True)) <= 2


async def test_each_state_is_coloured_by_its_tone_without_styling_the_bar_again() -> None:
    app = StatusApp()
    async with app.run_test() as pilot:
        bar = app.query_one(StatusBar)
        theme = app.current_theme
        expected = {"connected": theme.success, "streaming": theme.accent,
                    "offline": theme.error, "approval needed": theme.warning}
        restyled: list[object] = []
        bar.notify_style_update = lambda: restyled.append(bar)  # type: ignore[method-assign]
        for state, colour in expected.items():
            bar.info = StatusInfo(state=state)
            await pilot.pause()
            assert near(tone_colour(bar), colour), state
        assert restyled == []




async def test_the_bars_styles_are_worked_out_once_and_again_for_a_new_theme() -> None:
    """Textual forgets a widget's component styles at each repaint; the bar keeps them until
    it is styled anew, as a change of theme does."""
    app = StatusApp()
    async with app.run_test() as pilot:
        bar = app.query_one(StatusBar)
        asked: list[str] = []
        work_out = bar.get_component_rich_style

        def counted(*names: str, **options: Any) -> Style:
            asked.extend(names)
            return work_out(*names, **options)

        bar.get_component_rich_style = counted  # type: ignore[method-assign]
        for state in ("connected", "streaming", "connected", "streaming", "offline"):
            bar.info = StatusInfo(state=state)
            await pilot.pause()
            tone_colour(bar)
        assert sorted(asked) == sorted(set(asked))  # each style once
        assert near(tone_colour(bar), app.current_theme.error)
        dark_error = tone_colour(bar)
        app.theme = "nord"
        await pilot.pause()
        assert near(tone_colour(bar), app.current_theme.error)
        assert tone_colour(bar) != dark_error


async def test_the_bar_counts_the_seconds_only_while_nothing_arrives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(status_bar, "clock", lambda: now[0])
    app = StatusApp()
    async with app.run_test(size=(60, 3)) as pilot:
        bar = app.query_one(StatusBar)
        ticks: list[float] = []
        tick = bar._tick
        bar._tick = lambda: (ticks.append(now[0]), tick())  # type: ignore[method-assign]

        def line() -> str:
            return app.screen._compositor.render_strips()[bar.region.y].text.strip()

        bar.info = StatusInfo(agent_name="a", state="streaming", busy_since=100.0)
        await pilot.pause()
        assert bar.ticking and line() == "◉ streaming  a"
        now[0] = 100.5
        bar.note_arrival()  # a chunk: the reply flows
        now[0] = 101.2
        await wait_until(pilot, lambda: 101.2 in ticks, what="a tick")
        await pilot.pause()  # (what the tick refreshed is drawn): 0.7 s of quiet is not enough
        assert line() == "◉ streaming  a"
        now[0] = 103.0
        await wait_until(pilot, lambda: line() == "◉ streaming 3s  a", what="the count")
        bar.note_arrival()
        await wait_until(pilot, lambda: line() == "◉ streaming  a", what="the count gone")
        bar.info = StatusInfo(agent_name="a", state="connected")
        await pilot.pause()
        assert not bar.ticking and line() == "● connected  a"


def test_help_wraps_a_long_meaning_under_itself_not_under_the_keys() -> None:
    commands = [SlashCommand("context", "How the agent's context window is spent, block by "
                             "block, message by message", "context")]
    console = Console(width=60, record=True, color_system=None)
    console.print(help_table(commands))
    lines = console.export_text().splitlines()
    first = next(i for i, line in enumerate(lines) if "recall earlier" in line)
    column = lines[first].index("recall earlier")
    assert lines[first + 1][:column].strip() == ""
    assert lines[first + 1][column] != " "
    command = next(i for i, line in enumerate(lines) if line.lstrip().startswith("/context"))
    assert lines[command].index("How the agent") == column
    assert lines[command + 1][:column].strip() == ""


def test_help_says_what_the_status_bars_figures_mean() -> None:
    console = Console(width=200, record=True, color_system=None)
    console.print(help_table([]))
    lines = console.export_text().splitlines()
    usage = next(line for line in lines if "↑3k ↓39 · 2 steps" in line)
    assert "tokens sent to the model (↑) and written by it (↓)" in usage
    gauge = next(line for line in lines if "▰▱▱▱▱ 1.6k/30k" in line)
    assert "of the model's window" in gauge


def test_help_names_every_switchable_permission_mode() -> None:
    console = Console(width=200, record=True, color_system=None)
    console.print(help_table([]))
    text = console.export_text()
    assert all(mode.label in text for mode in SWITCHABLE)
    assert "F2" in text and "Shift+Tab" in text


async def test_keys_read_together_delete_and_type_in_order(wait_until) -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        prompt.insert("abcdef")
        for key, character in [("backspace", None)] * 3 + [(c, c) for c in "XYZ"]:
            prompt.post_message(events.Key(key, character))  # queued at once, as read
        await wait_until(pilot, lambda: prompt.text == "abcXYZ", what="in order")


async def read_together(pilot: Pilot[None], *keys: tuple[str, str | None]) -> None:
    """Post ``keys`` to the app as its driver does keys read from the terminal at once, and
    let them all be handled."""
    for key, character in keys:
        pilot.app.post_message(events.Key(key, character))
    await pilot.pause()


async def test_f7_then_backspace_read_together_clear_the_prompt_and_undo_brings_it_back(
        ) -> None:
    """F7 selects all as soon as it is read: Backspace right behind it (``tmux send-keys F7
    BSpace``) deletes everything, not the last character before the selection."""
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        prompt.insert("abc def ghi")
        await read_together(pilot, ("f7", None), ("backspace", "\x7f"))
        assert prompt.text == ""
        await read_together(pilot, ("ctrl+z", "\x1a"))
        assert prompt.text == "abc def ghi"


async def test_every_key_of_the_prompt_acts_in_the_order_the_keys_were_read() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        prompt.insert("ab")
        await read_together(pilot, ("left", None), ("X", "X"), ("home", None), ("Y", "Y"))
        assert prompt.text == "YaXb"


class FieldApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SteadyInput()


async def test_a_one_line_field_too_acts_on_keys_in_the_order_they_were_read() -> None:
    """``abc``, Backspace, ``d`` typed fast in a filter or Ctrl+F: ``abd``."""
    app = FieldApp()
    async with app.run_test() as pilot:
        await read_together(pilot, *[(c, c) for c in "abc"], ("backspace", "\x7f"), ("d", "d"),
                            ("home", None), ("X", "X"))
        assert app.query_one(SteadyInput).value == "Xabd"


async def test_up_and_down_step_past_a_recalled_message_of_many_lines_at_once() -> None:
    """A message of many lines comes with the cursor on its first line after ↑, on its last
    after ↓; until the cursor moves in it, ↑ and ↓ recall the older and newer ones."""
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        pasted = "\n".join(f"paste line {number}" for number in range(50))
        await pilot.press(*"older", "enter")
        prompt.insert(pasted)
        await pilot.press("enter", *"newest", "enter", "up", "up")
        assert prompt.text == pasted and prompt.cursor_location == (0, len("paste line 0"))
        await pilot.press("up")
        assert prompt.text == "older"
        await pilot.press("down")
        assert prompt.text == pasted and prompt.cursor_location[0] == 49
        await pilot.press("down")
        assert prompt.text == "newest"
        await pilot.press("up", "right", "down")  # moved into it: ↓ goes down its lines
        assert prompt.text == pasted and prompt.cursor_location == (2, 0)
