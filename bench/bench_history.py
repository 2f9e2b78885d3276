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
   screen loads the previous page from the server. Each scroll ends with the last paint once
   the items it put on screen are done with their start-up work, the view has released the
   screen and nothing more was painted for ``QUIET_MS`` (so the layout Textual runs when new
   widgets get their size counts in the scroll that caused it; the prompt's cursor does not
   blink, so its paints do not count). For every page
   load: *HTTP* is the page request (``LettaClient.list_messages``; the demo server answers in
   this process, so its work is in there too); *UI time* is everything else from the
   ``EarlierRequested`` message being handled until painted: the accumulator
   (``Transcript.prepend_history``, also shown on its own), ``ChatView.apply``, mounting,
   layout and rendering. Goal: every page < 200 ms of UI time. Scrolls that only mount a batch
   of already loaded items are reported separately, and so is the number of screen layouts
   (each one reflows every mounted widget). Full garbage collections are counted where they
   ran: the app runs a due one while a request waits for the server (``on_wait``), which is
   inside *HTTP* here (on a real server it overlaps the server's work; the in-process demo
   server waits for it), and any other one lands in the UI time of a page or in a batch. A
   table (pages 1, 2, 4, 8, …, last) shows how the UI time and RSS grow with the number of
   mounted item widgets. ``--budget`` seconds cap the
   scroll back (a partial run says how far it got; 5 scrolls in a row that change nothing end
   it as stalled); ``--profile N`` runs it under cProfile and prints the top N functions.

3. **Memory.** Peak RSS of the process (``ru_maxrss``, the whole run so far; the first-page
   runs before it stay far below it) and the highest RSS sampled after each scroll
   (``/proc/self/statm``), and the RSS at the end of the scroll back. The demo server's rows
   live in the same process and count too, as they do with ``openletta --demo``.
   Goal: < 300 MB.

4. **Back at the bottom.** The user presses End: time until painted, items still mounted, and
   RSS after a ``gc.collect()``.

By default (10,000 messages, 3 runs, 120 s budget) the whole bench takes under 3 minutes.

Figures vary with machine load: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import os
import pstats
import resource
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

from textual.message import Message
from textual.message_pump import MessagePump

import openletta.demo
from openletta.demo import DemoServer
from openletta.settings import CONFIG_DIR_ENV, Settings
from openletta.transcript import Item
from openletta.ui.app import OpenLettaApp
from openletta.ui.chat_scroll import EarlierRow
from openletta.ui.chat_view import ChatView
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.session import PAGE_SIZE

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


def rss_mb() -> float:
    """Resident set size of this process now."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mb() -> float:
    """Highest resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


def spread(values: Sequence[float]) -> str:
    return (f"median {statistics.median(values):6.1f}   p95 {percentile(values, 0.95):6.1f}   "
            f"max {max(values):6.1f} ms")


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


async def drained(pump: MessagePump) -> None:
    """Wait until ``pump`` has handled every message it holds now."""
    done = asyncio.Event()
    if pump.call_later(done.set):
        await done.wait()


class Paints:
    """Counts the screen's paints and notes when the last one ended (by wrapping its
    compositor refresh on this instance; a layout paints through it too)."""

    def __init__(self, screen: ChatScreen) -> None:
        self.count = 0
        self.last = time.perf_counter()
        refresh = screen._compositor_refresh

        def counted() -> None:
            refresh()
            self.count += 1
            self.last = time.perf_counter()

        screen._compositor_refresh = counted  # type: ignore[method-assign]


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
    """One scroll to the top: a batch of loaded items mounted, or a page from the server."""

    page: bool
    wall_ms: float
    http_ms: float
    accumulator_ms: float
    #: From the ``EarlierRequested`` being handled (pages) or the scroll (batches) until
    #: painted, minus HTTP.
    ui_ms: float
    #: Screen layouts (each reflows every mounted widget) during the scroll.
    layouts: int
    mounted: int
    #: Full garbage collections during the scroll: (while waiting for the server, ms).
    collections: list[tuple[bool, float]]


@dataclass
class Probe:
    """Times the parts of a page load by wrapping the session's calls (on this instance)."""

    requested: float | None = None
    http: float = 0.0
    accumulator: float = 0.0
    layouts: int = 0
    collections: list[tuple[bool, float]] = field(default_factory=list)
    waiting: bool = False
    collecting_since: float = 0.0
    paints: Paints | None = None

    def reset(self) -> None:
        self.requested, self.http, self.accumulator, self.layouts = None, 0.0, 0.0, 0
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
            self.requested = time.perf_counter()

    def attach(self, screen: ChatScreen, paints: Paints) -> None:
        """Count the screen's layouts; time the session's page requests and accumulator calls
        (by wrapping them on these instances); ``paints`` tells when a scroll was painted."""
        self.paints = paints
        screen.screen_layout_refresh_signal.subscribe(screen, self.on_layout, immediate=True)
        client, transcript = screen.session.client, screen.session.transcript
        list_messages, prepend_history = client.list_messages, transcript.prepend_history

        async def timed_list_messages(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            self.waiting = True
            try:
                return await list_messages(*args, **kwargs)
            finally:
                self.waiting = False
                self.http += time.perf_counter() - started

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
    assert probe.paints is not None, "attach the probe first"
    view, scroll = screen.view, screen.view.scroll
    top, known = view.mounted_items[0], len(screen.session.transcript.items)
    probe.reset()
    started = time.perf_counter()
    scroll.release_hold()  # a mouse wheel does that
    scroll.scroll_home(animate=False, immediate=True)
    await drained(scroll)  # handles Moved, which goes on to the view
    await drained(view)  # shows a batch, or posts EarlierRequested
    if view.mounted_items[0] is top:
        await page_loaded(screen)
    shown = view.mounted_items
    if shown[0] is top and len(screen.session.transcript.items) == known:
        return None
    ended = await painted(screen, probe.paints, shown[:shown.index(top)] if top in shown
                          else shown)
    page = probe.requested is not None
    ui_start = probe.requested if probe.requested is not None else started
    return Scroll(page, (ended - started) * 1000, probe.http * 1000, probe.accumulator * 1000,
                  (ended - ui_start - probe.http) * 1000, probe.layouts, len(shown),
                  probe.collections)


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
        ui = [page.ui_ms for page in pages]
        over = sum(1 for value in ui if value >= PAGE_GOAL_MS)
        complete = result.finished and not over
        print("   per page load:")
        print(f"     HTTP (demo server in-process)  {spread([page.http_ms for page in pages])}")
        print(f"     accumulator (prepend_history)  "
              f"{spread([page.accumulator_ms for page in pages])}")
        print(f"     UI time (all but HTTP)         {spread(ui)}")
        layouts = [page.layouts for page in pages]
        print(f"     screen layouts                 median {statistics.median(layouts):4.0f}"
              f"     max {max(layouts)}")
        print(f"     goal: every page < {PAGE_GOAL_MS} ms of UI time: {verdict(complete)} "
              f"({over} of {len(pages)} pages over"
              f"{'' if result.finished else ', and not every page was loaded'})")
    if batches:
        print(f"   per batch of loaded items (scroll -> painted): "
              f"{spread([batch.wall_ms for batch in batches])}")
    report_collections(pages, batches)
    if result.growth:
        print("   how it grows:  page   items mounted   widgets in scroll   UI ms   layouts"
              "   RSS MB")
        for page, (scroll, widgets, rss) in enumerate(result.growth, 1):
            if page & (page - 1) == 0 or page == len(result.growth):  # 1, 2, 4, 8, …, last
                print(f"                 {page:4}   {scroll.mounted:13,}   {widgets:17,}   "
                      f"{scroll.ui_ms:5.0f}   {scroll.layouts:7}   {rss:6.0f}")


def report_collections(pages: list[Scroll], batches: list[Scroll]) -> None:
    waiting = [ms for page in pages for wait, ms in page.collections if wait]
    in_pages = [ms for page in pages for wait, ms in page.collections if not wait]
    in_batches = [ms for batch in batches for _, ms in batch.collections]
    print(f"   full garbage collections: {len(waiting)} while a page request waited for the "
          f"server (in HTTP), {len(in_pages)} in the UI time of a page, {len(in_batches)} in "
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


async def report_bottom(screen: ChatScreen) -> None:
    view = screen.view
    started = time.perf_counter()
    view.action_jump_to_bottom()
    await drained(view.scroll)
    await screen.wait_for_refresh()
    elapsed = (time.perf_counter() - started) * 1000
    gc.collect()
    print(f"\n4. back at the bottom (End): painted in {elapsed:.0f} ms, "
          f"{len(view.mounted_items):,} of {len(screen.session.transcript.items):,} items "
          f"mounted, RSS {rss_mb():.0f} MB after a gc.collect()")


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
            await report_bottom(screen)
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
