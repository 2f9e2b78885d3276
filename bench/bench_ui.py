"""Headless UI cost: cold start, and streaming a long reply into the chat view.

Run: python bench/bench_ui.py [--starts N] [--chunks N] [--turns N] [--rate R]

Everything runs headless at 120x40 with a throw-away config directory
(``OPENLETTA_CONFIG_DIR``), so the user's settings are never read or written, and with the
garbage collector tuned as the command line has it (``tune_gc=True``). Headless
Textual does all the work of a real terminal (compose, CSS, layout, rendering the visible widgets'
lines into the compositor's frame) except writing the frame's escape codes to a tty.

1. **Cold start.** A fresh ``python -c`` process imports openletta and runs
   ``OpenLettaApp(demo=True, agent="demo-agent")`` (embedded demo server, no delays).
   Times count from just before the process is spawned (``time.monotonic`` is system-wide),
   so they include interpreter start-up and imports. *First frame*: the first screen the
   app pushes (the connect screen) is composed and the screen has refreshed with nothing
   left dirty, i.e. a complete frame exists (a ``call_after_refresh`` callback ran).
   *Chat ready*: the demo agent's chat screen is current, its history page is loaded, the
   prompt has focus, and that state has been painted. Median of ``--starts`` processes.

2. **Streaming into an empty view.** In this process: the app opens the demo agent (its
   thread holds only the hidden system prompt). The reply is built in-process with the
   demo server's wire builders and ``parse_message``: a few reasoning deltas, then a long
   Markdown answer (headings, lists, code fences, tables, quotes) split into word deltas,
   then ``stop_reason`` and ``usage_statistics`` — ``--chunks`` chunks in all. They go
   through the live path: ``Transcript.add_user`` / ``Transcript.feed`` and then
   ``ChatScreen._on_change`` (which calls ``ChatView.apply``), exactly what
   ``ChatSession._stream`` does with chunks read from the network, followed by the final
   ``ChatView.flush``. No HTTP is involved, so the figures are UI (plus accumulator) cost.
   The clock stops when the whole reply is on screen and painted (the reply is not rendered
   again when it ends; what is left to do then is the stream's backlog of fragments).
   By default the chunks are fed *flat out*: the feeder yields to the event loop once per
   chunk (``asyncio.sleep(0)``), so the app renders whenever its timers come due (the view
   syncs at 30 Hz, each sync may need a layout) and the figures show how fast the UI can
   take a reply. ``--rate R`` feeds R chunks/s instead (a real model sends ~50-150).
   Reported: wall and CPU (``time.process_time``) time, total and per chunk, how much of
   the wall time the final catch-up took (writing the stream's backlog), and how many screen layouts
   ran (each one reflows every mounted widget).

3. **Streaming after a long chat.** As 2, after ``--turns`` earlier turns (user, reasoning,
   a bash tool call with its return every other turn, Markdown answer) were loaded through
   ``Transcript.load_history`` and ``ChatView.apply`` (one page), and their turns' tokens
   read from their runs (``ChatSession.fill_footer_tokens``, as after a history page), so
   the view's pruning
   applies: only the newest items stay mounted. The
   ratio of per-chunk cost (long chat / empty view) is printed next to the goal
   (at most 1.2x). Figures vary with machine load: nothing here is asserted.

Scenarios 2 and 3 run ``--repeat`` times each, in fresh apps, and the run of median wall time
is shown: flat out, a run whose feed ends before the first frames renders the reply at once,
after it (then the catch-up is most of the time), and the others render it as it grows. The
share of the reply on screen when the last chunk was fed tells the two apart.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from openletta.api.messages import Message, parse_message
from openletta.demo import chunks
from openletta.demo.content import long_markdown
from openletta.demo.ids import (
    message_date,
    new_id,
    new_message_id,
    new_tool_call_id,
    part_otid,
    utc_now,
)
from openletta.display import DisplayText
from openletta.settings import CONFIG_DIR_ENV, Settings
from openletta.transcript import AssistantItem
from openletta.ui.app import OpenLettaApp
from openletta.ui.chat_view import ChatView
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets import AssistantMessage, ItemWidget

REPO = Path(__file__).resolve().parent.parent
SIZE = (120, 40)
AGENT = "demo-agent"
GOAL_RATIO = 1.2
PROMPT = "long please: a long Markdown answer with code"
LISTING = "README.md\nbuild.sh\npyproject.toml\nsrc\n\nexit status 0"

#: Run in a fresh interpreter; prints the system-wide monotonic times of each milestone.
COLD_START_CODE = """
import asyncio, json, time
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.chat import ChatScreen
imported = time.monotonic()

async def main():
    app = OpenLettaApp(demo=True, agent="demo-agent", demo_speed=0, tune_gc=True)
    async with app.run_test(size=(120, 40)):
        first_screen = type(app.screen).__name__
        await app.screen.wait_for_refresh()
        first_frame = time.monotonic()
        while not (isinstance(app.screen, ChatScreen)
                   and app.screen.view.more_on_server is not None
                   and app.screen.prompt.has_focus):
            await asyncio.sleep(0.002)
        await app.screen.wait_for_refresh()
        chat_ready = time.monotonic()
    print(json.dumps({"imported": imported, "first_frame": first_frame,
                      "chat_ready": chat_ready, "first_screen": first_screen}))

asyncio.run(main())
"""


# --- cold start ------------------------------------------------------------------------------


def cold_start_once() -> dict[str, float | str]:
    """Milestones of one fresh process, in seconds since just before it was spawned."""
    with tempfile.TemporaryDirectory(prefix="openletta-bench-") as config:
        env = {**os.environ, CONFIG_DIR_ENV: config}
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-c", COLD_START_CODE], cwd=REPO, env=env,
                              capture_output=True, text=True, check=True)
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    return {key: value - start if isinstance(value, float) else value
            for key, value in marks.items()}


def report_cold_start(starts: int) -> None:
    runs = [cold_start_once() for _ in range(starts)]
    print(f"1. cold start (fresh process, demo server, {SIZE[0]}x{SIZE[1]}, "
          f"median of {starts}; first screen: {runs[0]['first_screen']})")
    for key, label in (("imported", "imports done"), ("first_frame", "first frame"),
                       ("chat_ready", "chat ready, prompt focused")):
        values = [float(run[key]) * 1000 for run in runs]
        print(f"   {label:<27} {statistics.median(values):7.0f} ms   "
              f"(min {min(values):.0f}, max {max(values):.0f})")


# --- synthetic wire data -----------------------------------------------------------------


def origin(message_id: str, part: int, step_id: str | None, run_id: str | None,
           date: str, name: str | None = None) -> chunks.Origin:
    return chunks.Origin(message_id, date, part_otid(message_id, part), step_id, run_id, name)


def history_turn(number: int, date: str) -> list[chunks.Chunk]:
    """One stored turn: user, reasoning, a bash call and its return (even turns), answer."""
    step, run = new_id("step"), new_id("run")
    user_id, step_row = new_message_id(), new_message_id()
    rows = [chunks.user(origin(user_id, 0, None, None, date), f"Question {number}: status?"),
            chunks.reasoning(origin(step_row, 0, step, run, date),
                             f"Checking the state of round {number}.")]
    answer_row, answer_part = step_row, 1
    if number % 2 == 0:
        call = chunks.CallRecord("bash", '{"command": "ls"}', new_tool_call_id())
        return_row, answer_row, answer_part = new_message_id(), new_message_id(), 0
        rows += [chunks.tool_calls_message("tool_call_message",
                                           origin(step_row, 1, step, run, date), [call]),
                 chunks.tool_return(origin(return_row, 0, step, run, date, "bash"),
                                    [chunks.ReturnRecord(call.tool_call_id, "success",
                                                         LISTING, [], [])])]
    answer = (f"## Round {number}\n\n- tests: **green**\n- build: `ok`\n\n"
              f"```bash\n./build.sh --round {number}\n```")
    rows.append(chunks.assistant(origin(answer_row, answer_part, step, run, date), answer))
    return rows


def synthetic_history(turns: int) -> list[Message]:
    """``turns`` stored turns, oldest first, as one history page."""
    end = utc_now()
    rows: list[chunks.Chunk] = []
    for number in range(turns):
        rows += history_turn(number, message_date(end - timedelta(minutes=turns - number)))
    return [parse_message(row) for row in rows]


def streamed_reply(chunk_count: int) -> list[Message]:
    """About ``chunk_count`` token-mode chunks: reasoning deltas, a long Markdown answer,
    ``stop_reason`` and ``usage_statistics``."""
    message_id, step, run = new_message_id(), new_id("step"), new_id("run")
    date = message_date(utc_now())
    thinking = chunks.text_tokens("The user wants a long Markdown answer with code fences.")
    answer = chunks.text_tokens(long_markdown(chunk_count - len(thinking) - 2))
    usage = chunks.Usage()
    usage.add_step(2_000, len(thinking) + len(answer), len(thinking))
    rows = [chunks.reasoning(origin(message_id, 0, step, run, date), token)
            for token in thinking]
    rows += [chunks.assistant(origin(message_id, 1, step, run, date), token)
             for token in answer]
    rows += [chunks.stop_reason("end_turn"), usage.chunk()]
    return [parse_message(row) for row in rows]


# --- streaming into the app --------------------------------------------------------------


@dataclass
class StreamFigures:
    chunks: int
    wall: float
    cpu: float
    #: Wall time from the final flush until the whole reply was on screen and painted.
    final_wall: float
    #: Screen layouts (reflows of every mounted widget) during the stream.
    layouts: int
    #: Share of the reply's text the widget had been given when the last chunk was fed.
    shown_at_last_chunk: float

    @property
    def _outran(self) -> str:
        if self.shown_at_last_chunk >= 0.5:
            return ""
        return (" (the feed outran the frames: most of the reply was rendered at once, after "
                "it, so the catch-up is most of the time and no measure of a final re-render)")

    @property
    def wall_per_chunk_us(self) -> float:
        return self.wall / self.chunks * 1e6

    @property
    def cpu_per_chunk_us(self) -> float:
        return self.cpu / self.chunks * 1e6

    def lines(self) -> str:
        return (f"   total            wall {self.wall * 1000:7.0f} ms   "
                f"cpu {self.cpu * 1000:7.0f} ms"
                f"   ({self.final_wall * 1000:.0f} ms of the wall time is the final catch-up,"
                f" {self.final_wall / self.wall:.0%}; {self.layouts} layouts)\n"
                f"   on screen when the last chunk was fed: {self.shown_at_last_chunk:.0%} of "
                f"the reply{self._outran}\n"
                f"   per chunk        wall {self.wall_per_chunk_us:7.1f} µs   "
                f"cpu {self.cpu_per_chunk_us:7.1f} µs   "
                f"({self.chunks / self.wall:,.0f} chunks/s)")


async def open_chat(app: OpenLettaApp) -> ChatScreen:
    """Wait until the demo agent's chat is open with its history page loaded."""
    while not (isinstance(app.screen, ChatScreen) and app.screen.view.more_on_server is not None):
        await asyncio.sleep(0.01)
    return app.screen


async def settle(view: ChatView) -> int:
    """Let every mounted item widget finish its pending work and the screen repaint.

    Returns how many children the chat scroll displays. Reading that also refreshes
    Textual's cached list of them, which otherwise keeps pruned widgets alive (and makes
    the garbage collector walk them) until the next layout of the scroll.
    """
    for widget in [child for child in view.scroll.children if isinstance(child, ItemWidget)]:
        done = asyncio.Event()
        if widget.call_later(done.set):
            await done.wait()
    await view.wait_for_refresh()
    return len(view.scroll.displayed_children)


async def reply_rendered(view: ChatView, item: AssistantItem) -> None:
    """Wait until all of ``item``'s Markdown is rendered and painted."""
    widget = view.widget_for(item)
    assert isinstance(widget, AssistantMessage)
    done = asyncio.Event()
    widget.call_later(done.set)  # queued after the final sync's catch-up: runs once it is done
    await done.wait()
    await widget.wait_for_refresh()
    if widget.source != DisplayText(item.text):
        raise RuntimeError("the final Markdown was not rendered")


async def stream_reply(screen: ChatScreen, messages: list[Message], rate: float) -> StreamFigures:
    """Feed ``messages`` as one live turn (``rate`` chunks/s, 0: flat out) until rendered."""
    view, transcript = screen.view, screen.session.transcript
    layouts = 0

    def count_layout(_screen: object) -> None:
        nonlocal layouts
        layouts += 1

    screen.screen_layout_refresh_signal.subscribe(view, count_layout, immediate=True)
    gc.collect()
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    screen.transcript_changed(transcript.add_user(PROMPT, otid=str(uuid.uuid4())))
    for index, message in enumerate(messages, 1):
        screen.transcript_changed(transcript.feed(message))
        delay = start_wall + index / rate - time.perf_counter() if rate else 0
        await asyncio.sleep(max(delay, 0))  # one pass of the event loop per chunk at least
    reply = next(item for item in reversed(transcript.items) if isinstance(item, AssistantItem))
    shown = shown_share(view, reply)
    view.flush()
    final_start = time.perf_counter()
    await reply_rendered(view, reply)
    end_wall, end_cpu = time.perf_counter(), time.process_time()
    screen.screen_layout_refresh_signal.unsubscribe(view)
    return StreamFigures(len(messages), end_wall - start_wall, end_cpu - start_cpu,
                         end_wall - final_start, layouts, shown)


def shown_share(view: ChatView, item: AssistantItem) -> float:
    """How much of ``item``'s text its widget has been given so far (0 if not mounted)."""
    widget = view.widget_for(item)
    if not isinstance(widget, AssistantMessage):
        return 0.0
    return len(widget.source) / max(len(DisplayText(item.text)), 1)


@dataclass
class Scenario:
    stream: StreamFigures
    mounted_items: int
    mounted_widgets: int


async def load_history(screen: ChatScreen, history: list[Message]) -> None:
    """Apply ``history`` to the chat (the view prunes what is beyond its window), then, as
    the app does after a history page, read what its runs tell (their turns' tokens)."""
    start = time.perf_counter()
    screen.view.apply(screen.session.transcript.load_history(history))
    screen.view.flush()
    await screen.session.fill_footer_tokens(screen.view.apply)
    while any(worker.group == "footers" and not worker.is_finished for worker in screen.workers):
        await asyncio.sleep(0.01)  # (one the app started itself: it finds nothing left)
    shown = await settle(screen.view)
    print(f"   history: {len(history):,} messages -> "
          f"{len(screen.session.transcript.items):,} items ({shown} rows shown), "
          f"applied and painted in {time.perf_counter() - start:.2f} s (setup)")


async def run_scenario(chunk_count: int, turns: int, rate: float) -> Scenario:
    """In a fresh app: open the demo agent, load ``turns`` turns, stream one reply."""
    app = OpenLettaApp(demo=True, agent=AGENT, demo_speed=0, settings=Settings(),
                       tune_gc=True)
    async with app.run_test(size=SIZE):
        screen = await open_chat(app)
        if turns:
            await load_history(screen, synthetic_history(turns))
        await settle(screen.view)
        figures = await stream_reply(screen, streamed_reply(chunk_count), rate)
        scroll = screen.view.scroll
        items = [child for child in scroll.children if isinstance(child, ItemWidget)]
        return Scenario(figures, len(items),
                        sum(1 for _ in scroll.walk_children()))


def ratio_line(label: str, long: float, empty: float) -> str:
    ratio = long / empty
    verdict = "met" if ratio <= GOAL_RATIO else "NOT met"
    return f"   {label:<24} {ratio:5.2f}x   (goal <= {GOAL_RATIO}x: {verdict})"


async def median_scenario(chunk_count: int, turns: int, rate: float, repeat: int) -> Scenario:
    """The run of median wall time among ``repeat`` fresh runs (one run's figures move a lot:
    whether the first frames come before the feed ends changes how the reply is rendered)."""
    runs = [await run_scenario(chunk_count, turns, rate) for _ in range(repeat)]
    runs.sort(key=lambda run: run.stream.wall)
    print(f"   walls of the {repeat} runs: "
          + ", ".join(f"{run.stream.wall * 1000:.0f} ms" for run in runs) + "; the median's:")
    return runs[len(runs) // 2]


async def report_streaming(chunk_count: int, turns: int, rate: float, repeat: int) -> None:
    pace = f"paced at {rate:,.0f} chunks/s" if rate else "flat out"
    print(f"\n2. a {chunk_count:,}-chunk streamed reply into an empty chat view ({pace})")
    empty = await median_scenario(chunk_count, 0, rate, repeat)
    print(empty.stream.lines())
    print(f"   mounted at the end: {empty.mounted_items} item widgets, "
          f"{empty.mounted_widgets:,} widgets in the chat scroll")

    print(f"\n3. the same reply after {turns} earlier turns ({pace})")
    long = await median_scenario(chunk_count, turns, rate, repeat)
    print(long.stream.lines())
    print(f"   mounted at the end: {long.mounted_items} item widgets, "
          f"{long.mounted_widgets:,} widgets in the chat scroll")
    print("   per-chunk cost, after the long chat / into the empty view:")
    print(ratio_line("wall", long.stream.wall, empty.stream.wall))
    print(ratio_line("cpu", long.stream.cpu, empty.stream.cpu))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5, help="cold-start processes")
    parser.add_argument("--chunks", type=int, default=5_000, help="chunks in the reply")
    parser.add_argument("--turns", type=int, default=500, help="earlier turns in run 3")
    parser.add_argument("--rate", type=float, default=0,
                        help="feed this many chunks per second (default 0: flat out)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each streaming scenario (the median is shown)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openletta-bench-") as config:
        os.environ[CONFIG_DIR_ENV] = config  # the in-process app saves "last agent" here
        report_cold_start(args.starts)
        asyncio.run(report_streaming(args.chunks, args.turns, args.rate, args.repeat))


if __name__ == "__main__":
    main()
