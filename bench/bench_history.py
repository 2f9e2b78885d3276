"""Browsing a long history: the latest page on screen, then scrolling back through all of it.

Run: python bench/bench_history.py [--messages N] [--runs R] [--budget S] [--profile N]

The app is ``OpenLettaApp(demo=True, agent="demo-agent", tune_gc=True)`` (the garbage
collector tuned as the command line has it), headless at 120x40, with a throw-away config
directory (``OPENLETTA_CONFIG_DIR``). Its embedded demo server (same process,
same event loop, no streaming delays) is the one ``python -m openletta.demo
--history-messages N`` runs: the app has no option for the history size, so the bench swaps
``openletta.demo.DemoServer`` (which ``OpenLettaApp`` imports when it connects) for one made
with ``history_messages=--messages`` (default 10,000 rows: questions, reasoning, Markdown
answers with code fences, bash calls whose return is on the next page). The app fetches
history over HTTP in pages of ``PAGE_SIZE`` rows, as from a real server.

1. **Latest page on screen.** From entering ``run_test`` (the demo server starts, the app
   connects, finds the agent, loads the newest page) to the chat screen with the prompt focused
   and every mounted item widget done with its start-up work (compose, mount, first sync,
   Markdown rendered) and painted. Median of ``--runs`` apps in this process, so imports and
   interpreter start-up are not included (``bench_ui.py`` measures a cold process).
   Goal: < 1 s.

2. **Scrolling back through everything**, the way a user does: drop the scroll hold (as a mouse
   wheel does) and scroll the chat to the top, again and again, until the top row reads
   "beginning of the conversation". At the top the chat view mounts the next batch of items it
   had pruned or, once every known item is mounted, posts ``EarlierRequested`` and the chat
   screen loads the previous page from the server. A scroll is over once the items it put on
   screen are done with their start-up work, the view has released the screen and nothing
   more was painted for ``QUIET_MS`` (the prompt's cursor does not blink, so its paints do not
   count). Every update the app writes goes to a model of the terminal
   (``measure.Terminal``), so the bench knows which paint last changed what the user
   sees. Three times are reported per scroll, from the ``EarlierRequested`` message being
   handled (pages) or from the scroll (batches):

   - *on screen*: until the last paint that changed what the terminal shows;
   - *screen quiet*: until the last paint. Textual lays out once more when new widgets get
     their size, and repaints a scroll bar whose range changed a frame later; those paints
     change nothing on screen, and each waits for the next frame;
   - *UI work*: the CPU time the process spent until quiet.

   All three leave out the page request, *HTTP* (``LettaClient.list_messages``; the demo
   server answers in this process, so its work is in there too), and the bench's own terminal
   model. What is left is the accumulator (``Transcript.prepend_history``, also shown on its
   own), ``ChatView.apply``, mounting, layout and rendering. Goal: every page on screen, and
   its UI work, < 200 ms (how many pages go over until the screen is quiet is said too).
   Scrolls that only mount a batch of already loaded items are reported separately, and so
   is the number of screen layouts (each one reflows every mounted widget). Full garbage
   collections are counted where they ran: the app runs a due one while a request waits for
   the server (``on_wait``), which is inside *HTTP* here (on a real server it overlaps the
   server's work; the in-process demo server waits for it), and any other one lands in the UI
   part of a page or in a batch. A table (pages 1, 2, 4, 8, …, last) shows how the times and
   RSS grow with the number of mounted item widgets. ``--budget`` seconds cap the scroll back
   (a partial run says how far it got; 5 scrolls in a row that change nothing end it as
   stalled); ``--profile N`` runs it under cProfile and prints the top N functions.

3. **Memory.** Peak RSS of the process (``ru_maxrss``, the whole run so far; the first-page
   runs before it stay far below it) and the highest RSS sampled after each scroll
   (``/proc/self/statm``), and the RSS at the end of the scroll back. The demo server's rows
   live in the same process and count too, as they do with ``openletta --demo``.
   Goal: < 300 MB.

4. **Back at the bottom.** The user presses End: time until on screen and until quiet (as in
   2, the bench's checks left out), items still mounted, and RSS after a ``gc.collect()``.

By default (10,000 messages, 3 runs, 120 s budget) the whole bench takes under 3 minutes.

Figures vary with machine load: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import math
import os
import pstats
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from unittest import mock

from measure import Paints, Spans, drained, peak_rss_mb, rss_mb, spread
from textual.message import Message

import openletta.demo
from openletta.chat.session import PAGE_SIZE
from openletta.demo import DemoServer
from openletta.settings import CONFIG_DIR_ENV, Settings
from openletta.transcript import Item
from openletta.ui.app import OpenLettaApp
from openletta.ui.chat_scroll import EarlierRow
from openletta.ui.chat_view import ChatView
from openletta.ui.screens.chat import ChatScreen

SIZE = (120, 40)
AGENT = "demo-agent"
OPEN_GOAL_MS = 1000
PAGE_GOAL_MS = 200
MEMORY_GOAL_MB = 300
#: Scrolls in a row that change nothing before the scroll back gives up.
STALL_LIMIT = 5
#: How long the screen paints nothing before a scroll counts as done.
QUIET_MS = 40


# --- measuring helpers -------------------------------------------------------------------


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


@contextlib.contextmanager
def demo_history(messages: int) -> Iterator[None]:
    """Make the app's embedded demo server give the demo agent ``messages`` history rows."""
    factory = partial(DemoServer, history_messages=messages)
    with mock.patch.object(openletta.demo, "DemoServer", factory):
        yield


def new_app() -> OpenLettaApp:
    return OpenLettaApp(demo=True, agent=AGENT, demo_speed=0, settings=Settings(),
                        tune_gc=True)


# --- waiting for the app -----------------------------------------------------------------


async def painted(screen: ChatScreen, paints: Paints, items: Sequence[Item]) -> float:
    """Wait until the widgets of ``items`` finished their start-up work and the screen stopped
    painting; the time the last paint ended.

    A widget mounts, and its ``on_mount`` queues the first sync (an assistant reply renders its
    Markdown there); a callback queued once the first one ran comes after all of that. The
    chat view may still hold the screen's updates for them (one layout for the batch), and
    the screen may lay out again once new widgets have their size: the screen is done when it
    has painted nothing for ``QUIET_MS``.
    """
    widgets = [widget for item in items if (widget := screen.view.widget_for(item))]
    for _ in range(2):
        await asyncio.gather(*(drained(widget) for widget in widgets))
    await screen.view.scroll.wait_for_mounts()
    await screen.wait_for_refresh()
    while True:
        count = paints.count
        await asyncio.sleep(QUIET_MS / 1000)
        if paints.count == count:
            return paints.last


async def chat_shown(app: OpenLettaApp) -> tuple[ChatScreen, Paints, float]:
    """Wait for the chat screen with the newest page loaded, the prompt focused, painted; the
    screen, its paint counter and when it was painted.

    The prompt's cursor stops blinking (its paints would be taken for the chat's).
    """
    while not (isinstance(app.screen, ChatScreen) and app.screen.view.more_on_server is not None
               and app.screen.prompt.has_focus):
        await asyncio.sleep(0.002)
    screen = app.screen
    screen.prompt.cursor_blink = False
    paints = Paints(screen)
    return screen, paints, await painted(screen, paints, screen.view.mounted_items)


# --- 1. latest page ----------------------------------------------------------------------


async def open_once() -> float:
    """Seconds from entering ``run_test`` until the latest page is on screen."""
    app = new_app()
    started = time.perf_counter()
    async with app.run_test(size=SIZE):
        _, _, shown = await chat_shown(app)
        return shown - started


async def report_open(messages: int, runs: int) -> None:
    with demo_history(messages):
        times = [await open_once() * 1000 for _ in range(runs)]
    best = statistics.median(times)
    print(f"1. latest page on screen, prompt focused   median {best:5.0f} ms of {runs} "
          f"(min {min(times):.0f}, max {max(times):.0f})   "
          f"(goal < {OPEN_GOAL_MS} ms: {verdict(best < OPEN_GOAL_MS)})")


# --- 2. scrolling back -------------------------------------------------------------------


@dataclass
class Scroll:
    """One scroll to the top: a batch of loaded items mounted, or a page from the server.

    Times run from the ``EarlierRequested`` being handled (pages) or the scroll (batches),
    and leave out HTTP and the bench's own checks.
    """

    page: bool
    wall_ms: float
    http_ms: float
    accumulator_ms: float
    #: Until the last paint that changed what the terminal shows.
    shown_ms: float
    #: Until the last paint (the screen was quiet after it).
    quiet_ms: float
    #: CPU time the app spent meanwhile (until quiet).
    work_ms: float
    #: Screen layouts (each reflows every mounted widget) during the scroll.
    layouts: int
    mounted: int
    #: Full garbage collections during the scroll: (while waiting for the server, ms).
    collections: list[tuple[bool, float]]


@dataclass
class Probe:
    """Times the parts of a page load by wrapping the session's calls (on this instance)."""

    #: When the view asked for an older page (wall and CPU clocks).
    requested: tuple[float, float] | None = None
    http: Spans = field(default_factory=Spans)
    accumulator: float = 0.0
    layouts: int = 0
    collections: list[tuple[bool, float]] = field(default_factory=list)
    waiting: bool = False
    collecting_since: float = 0.0
    paints: Paints | None = None

    def reset(self) -> None:
        self.requested, self.accumulator, self.layouts = None, 0.0, 0
        self.http.clear()
        self.collections = []

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        """In ``gc.callbacks``: time each full collection and note whether a page request
        was waiting for the server meanwhile."""
        if info["generation"] != 2:
            return
        if phase == "start":
            self.collecting_since = time.perf_counter()
        else:
            elapsed = (time.perf_counter() - self.collecting_since) * 1000
            self.collections.append((self.waiting, elapsed))

    def on_layout(self, _screen: object) -> None:
        """Subscribed to the screen's layout signal."""
        self.layouts += 1

    def on_message(self, message: Message) -> None:
        """``run_test``'s message hook: note when the view asks for an older page."""
        if isinstance(message, ChatView.EarlierRequested) and self.requested is None:
            self.requested = time.perf_counter(), time.process_time()

    def attach(self, screen: ChatScreen, paints: Paints) -> None:
        """Count the screen's layouts; time the session's page requests and accumulator calls
        (by wrapping them on these instances); ``paints`` tells when a scroll was painted."""
        self.paints = paints
        screen.screen_layout_refresh_signal.subscribe(screen, self.on_layout, immediate=True)
        client, transcript = screen.session.client, screen.session.transcript
        list_messages, prepend_history = client.list_messages, transcript.prepend_history

        async def timed_list_messages(*args: Any, **kwargs: Any) -> Any:
            self.waiting = True
            try:
                with self.http.timed():
                    return await list_messages(*args, **kwargs)
            finally:
                self.waiting = False

        def timed_prepend_history(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return prepend_history(*args, **kwargs)
            finally:
                self.accumulator += time.perf_counter() - started

        client.list_messages = timed_list_messages  # type: ignore[method-assign]
        transcript.prepend_history = timed_prepend_history  # type: ignore[method-assign]


async def page_loaded(screen: ChatScreen) -> None:
    """Let the ``EarlierRequested`` the view posted reach the screen, then await the load."""
    await drained(screen.view)
    await drained(screen)
    for worker in list(screen.workers):
        if worker.node is screen and worker.group == "history" and not worker.is_finished:
            await worker.wait()


async def scroll_to_top(screen: ChatScreen, probe: Probe) -> Scroll | None:
    """Scroll to the top as a user does; ``None`` if that changed nothing."""
    paints = probe.paints
    assert paints is not None, "attach the probe first"
    view, scroll = screen.view, screen.view.scroll
    top, known = view.mounted_items[0], len(screen.session.transcript.items)
    probe.reset()
    paints.checks.clear()
    started = time.perf_counter(), time.process_time()
    scroll.release_hold()  # a mouse wheel does that
    scroll.scroll_home(animate=False, immediate=True)
    await drained(scroll)  # handles Moved, which goes on to the view
    await drained(view)  # shows a batch, or posts EarlierRequested
    if view.mounted_items[0] is top:
        await page_loaded(screen)
    shown = view.mounted_items
    if shown[0] is top and len(screen.session.transcript.items) == known:
        return None
    await painted(screen, paints, shown[:shown.index(top)] if top in shown else shown)
    work_ended = time.process_time()
    since, cpu_since = probe.requested or started
    left_out = (probe.http, paints.checks)

    def ui_ms(until: float) -> float:
        return (until - since - sum(spans.within(since, until)[0] for spans in left_out)) * 1000

    work = work_ended - cpu_since - sum(spans.within(since, math.inf)[1] for spans in left_out)
    return Scroll(probe.requested is not None, (paints.last - started[0]) * 1000,
                  probe.http.wall * 1000, probe.accumulator * 1000, ui_ms(paints.changed),
                  ui_ms(paints.last), work * 1000, probe.layouts, len(shown), probe.collections)


def at_beginning(view: ChatView) -> bool:
    return view.query_one(EarlierRow).has_class("-beginning")


@dataclass
class ScrollBack:
    scrolls: list[Scroll] = field(default_factory=list)
    #: Per page load: (the load, widgets in the chat scroll, RSS MB) after it.
    growth: list[tuple[Scroll, int, float]] = field(default_factory=list)
    highest_rss: float = 0.0
    wall: float = 0.0
    finished: bool = False
    stalled: bool = False

    @property
    def pages(self) -> list[Scroll]:
        return [scroll for scroll in self.scrolls if scroll.page]

    @property
    def batches(self) -> list[Scroll]:
        return [scroll for scroll in self.scrolls if not scroll.page]


async def scroll_back(screen: ChatScreen, probe: Probe, budget: float) -> ScrollBack:
    """Scroll to the top until the beginning shows, ``budget`` seconds pass, or it stalls."""
    result = ScrollBack()
    stalls = 0
    started = time.perf_counter()
    while not at_beginning(screen.view):
        if time.perf_counter() - started > budget:
            break
        scroll = await scroll_to_top(screen, probe)
        result.highest_rss = max(result.highest_rss, rss_mb())
        if scroll is None:
            stalls += 1
            if stalls >= STALL_LIMIT:
                result.stalled = True
                break
            continue
        stalls = 0
        result.scrolls.append(scroll)
        if scroll.page:
            widgets = sum(1 for _ in screen.view.scroll.walk_children())
            result.growth.append((scroll, widgets, rss_mb()))
    result.wall = time.perf_counter() - started
    result.finished = at_beginning(screen.view)
    return result


def report_scroll_back(result: ScrollBack, expected_pages: int, budget: float) -> None:
    pages, batches = result.pages, result.batches
    ending = ("reached the beginning" if result.finished else
              "STALLED: scrolling to the top changed nothing" if result.stalled else
              f"STOPPED after the {budget:.0f} s budget, beginning not reached")
    print(f"\n2. scrolling back: {len(result.scrolls)} scrolls to the top in "
          f"{result.wall:.1f} s, {ending}")
    print(f"   {len(pages)} of ~{expected_pages} older pages loaded ({PAGE_SIZE} rows each), "
          f"{len(batches)} batches of loaded items mounted")
    if pages:
        print("   per page load, from the request being handled (HTTP and the bench's own checks"
              " left out):")
        print(f"     HTTP (demo server in-process)   {spread([page.http_ms for page in pages])}")
        print(f"     accumulator (prepend_history)   "
              f"{spread([page.accumulator_ms for page in pages])}")
        report_timings(pages)
        layouts = [page.layouts for page in pages]
        print(f"     screen layouts                  median {statistics.median(layouts):4.0f}"
              f"     max {max(layouts)}")
        report_page_goal(pages, result.finished)
    if batches:
        print("   per batch of loaded items, from the scroll:")
        report_timings(batches)
    report_collections(pages, batches)
    if result.growth:
        print("   how it grows:  page   items mounted   widgets in scroll   on screen ms   work ms"
              "   layouts   RSS MB")
        for page, (scroll, widgets, rss) in enumerate(result.growth, 1):
            if page & (page - 1) == 0 or page == len(result.growth):  # 1, 2, 4, 8, …, last
                print(f"                 {page:4}   {scroll.mounted:13,}   {widgets:17,}   "
                      f"{scroll.shown_ms:12.0f}   {scroll.work_ms:7.0f}   {scroll.layouts:7}"
                      f"   {rss:6.0f}")


def report_timings(scrolls: list[Scroll]) -> None:
    print(f"     on screen (last paint changing it) {spread([s.shown_ms for s in scrolls])}")
    print(f"     screen quiet (last paint)          {spread([s.quiet_ms for s in scrolls])}")
    print(f"     UI work (CPU time until quiet)     {spread([s.work_ms for s in scrolls])}")


def report_page_goal(pages: list[Scroll], finished: bool) -> None:
    """The goal: every page on screen, and the app's work for it, under ``PAGE_GOAL_MS``."""
    def over(values: list[float]) -> int:
        return sum(1 for value in values if value >= PAGE_GOAL_MS)

    shown, work = over([p.shown_ms for p in pages]), over([p.work_ms for p in pages])
    quiet = over([p.quiet_ms for p in pages])
    print(f"     goal: every page on screen, and its UI work, < {PAGE_GOAL_MS} ms: "
          f"{verdict(finished and not shown and not work)} ({shown} of {len(pages)} pages "
          f"over on screen, {work} over in work; {quiet} over until the screen was quiet"
          f"{'' if finished else '; not every page was loaded'})")


def report_collections(pages: list[Scroll], batches: list[Scroll]) -> None:
    waiting = [ms for page in pages for wait, ms in page.collections if wait]
    in_pages = [ms for page in pages for wait, ms in page.collections if not wait]
    in_batches = [ms for batch in batches for _, ms in batch.collections]
    print(f"   full garbage collections: {len(waiting)} while a page request waited for the "
          f"server (in HTTP), {len(in_pages)} in the UI part of a page, {len(in_batches)} in "
          f"a batch")
    for where, times in (("while waiting", waiting), ("in page UI", in_pages),
                         ("in batches", in_batches)):
        if times:
            print(f"     {where:14} {spread(times)}")


def report_memory(result: ScrollBack) -> None:
    peak = peak_rss_mb()
    worst = max(peak, result.highest_rss)
    print(f"\n3. memory: peak RSS (ru_maxrss) {peak:.0f} MB, highest sampled "
          f"{result.highest_rss:.0f} MB, now {rss_mb():.0f} MB   "
          f"(goal < {MEMORY_GOAL_MB} MB: {verdict(worst < MEMORY_GOAL_MB)}"
          f"{'' if result.finished else ', over part of the history only'})")


async def report_bottom(screen: ChatScreen, paints: Paints) -> None:
    view = screen.view
    paints.checks.clear()
    started = time.perf_counter()
    view.action_jump_to_bottom()
    await drained(view.scroll)
    await painted(screen, paints, view.mounted_items)

    def ms(until: float) -> float:
        return (until - started - paints.checks.within(started, until)[0]) * 1000

    gc.collect()
    print(f"\n4. back at the bottom (End): on screen in {ms(paints.changed):.0f} ms, quiet in "
          f"{ms(paints.last):.0f} ms, {len(view.mounted_items):,} of "
          f"{len(screen.session.transcript.items):,} items mounted, RSS {rss_mb():.0f} MB "
          f"after a gc.collect()")


async def report_history(messages: int, budget: float, profile_top: int) -> None:
    probe = Probe()
    profiler = cProfile.Profile() if profile_top else None
    with demo_history(messages):
        app = new_app()
        async with app.run_test(size=SIZE, message_hook=probe.on_message):
            screen, paints, _ = await chat_shown(app)
            probe.attach(screen, paints)
            expected_pages = -(-messages // PAGE_SIZE)
            gc.collect()
            gc.callbacks.append(probe.on_gc)
            with profiler or contextlib.nullcontext():
                result = await scroll_back(screen, probe, budget)
            gc.callbacks.remove(probe.on_gc)
            report_scroll_back(result, expected_pages, budget)
            report_memory(result)
            await report_bottom(screen, paints)
            teardown = time.perf_counter()
        print(f"   (closing the app took {time.perf_counter() - teardown:.1f} s)")
    if profiler is not None:
        print_profile(profiler, profile_top)


def print_profile(profiler: cProfile.Profile, top: int) -> None:
    stats = pstats.Stats(profiler)
    print("\n(the figures above include the profiler's overhead)")
    for order in ("cumulative", "tottime"):
        print(f"\nprofile of the scroll back, top {top} by {order}:")
        stats.sort_stats(order).print_stats(top)


async def run_all(messages: int, runs: int, budget: float, profile_top: int) -> None:
    print(f"history of {messages:,} messages on the embedded demo server, "
          f"{SIZE[0]}x{SIZE[1]}, pages of {PAGE_SIZE} rows")
    await report_open(messages, runs)
    await report_history(messages, budget, profile_top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000, help="history rows")
    parser.add_argument("--runs", type=int, default=3, help="apps timed to the first page")
    parser.add_argument("--budget", type=float, default=120,
                        help="seconds the scroll back may take before it stops")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile the scroll back and print the top N functions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openletta-bench-") as config:
        os.environ[CONFIG_DIR_ENV] = config  # the app saves "last agent" here
        asyncio.run(run_all(args.messages, args.runs, args.budget, args.profile))


if __name__ == "__main__":
    main()
