"""Measuring for the benchmarks: what a headless Textual app puts on screen, and when.

:class:`Paints` counts a screen's paints and tells which of them changed what a terminal
shows (:class:`Terminal`); :class:`Spans` notes stretches of time a timing leaves out
(waiting for the server, or the bench's own checks); :func:`drained` waits for a message
pump to handle what it holds; :func:`process_cpu` and :func:`process_rss_mb` read what a
process (and those it started) ran and holds. The rest are figures: memory, percentiles.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import statistics
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.cells import cell_len
from rich.console import RenderableType
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """Seconds of CPU a process and every process under it have used so far: running threads
    to the nanosecond (``schedstat``), and in clock ticks the threads that ended and the
    children reaped. A process that ends counts once its parent reaps it (as ``cutime``)."""
    tree = _process_tree(pid)
    total = 0.0
    for member in tree:
        with contextlib.suppress(OSError):
            fields = _stat(Path(f"/proc/{member}/stat"))
            ticks = fields[11] + fields[12] + fields[13] + fields[14]  # utime stime cutime cstime
            running = 0
            for task in Path(f"/proc/{member}/task").iterdir():
                with contextlib.suppress(OSError):
                    running += int((task / "schedstat").read_text().split()[0])
                    task_fields = _stat(task / "stat")
                    ticks -= task_fields[11] + task_fields[12]  # (counted to the nanosecond)
            total += running / 1e9 + max(0, ticks) / CLOCK_TICKS
    return total


def process_rss_mb(pid: int) -> float:
    """Resident set size of a process and every process under it now."""
    pages = 0
    for member in _process_tree(pid):
        with contextlib.suppress(OSError):
            pages += int(Path(f"/proc/{member}/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _process_tree(pid: int) -> list[int]:
    """``pid`` and the processes under it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                children.setdefault(_stat(entry / "stat")[1], []).append(int(entry.name))
    tree, index = [pid], 0
    while index < len(tree):
        tree += children.get(tree[index], [])
        index += 1
    return tree


def _stat(path: Path) -> list[int]:
    """The numeric fields of a ``/proc`` ``stat`` file after the command's name (index 0
    is the state, which reads as 0)."""
    return [int(field) if field.lstrip("-").isdigit() else 0
            for field in path.read_text().rsplit(")", 1)[1].split()]


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


async def drained(pump: MessagePump) -> None:
    """Wait until ``pump`` has handled every message it holds now."""
    done = asyncio.Event()
    if pump.call_later(done.set):
        await done.wait()


@dataclass
class Spans:
    """Stretches of time, each as (wall start, wall end, CPU seconds used)."""

    spans: list[tuple[float, float, float]] = field(default_factory=list)

    @contextlib.contextmanager
    def timed(self) -> Iterator[None]:
        """Note the time spent in the ``with`` block (an ``await`` inside counts as a whole)."""
        started, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.spans.append((started, time.perf_counter(), time.process_time() - cpu))

    def within(self, start: float, end: float) -> tuple[float, float]:
        """Wall and CPU seconds of the spans that began in ``[start, end)``."""
        inside = [(begun, min(ended, end), cpu) for begun, ended, cpu in self.spans
                  if start <= begun < end]
        return (sum(ended - begun for begun, ended, _ in inside),
                sum(cpu for *_, cpu in inside))

    @property
    def wall(self) -> float:
        """Wall seconds of all the spans."""
        return sum(ended - begun for begun, ended, _ in self.spans)

    def clear(self) -> None:
        self.spans.clear()


class Terminal:
    """The cells a terminal shows after the screen updates written to it so far."""

    def __init__(self, width: int, height: int) -> None:
        self._rows: list[list[tuple[str, Style | None]]] = [
            [(" ", None)] * width for _ in range(height)]

    def write(self, update: object) -> bool:
        """Apply a screen update as a terminal would; ``True`` if any cell changed (an
        update of a kind this does not know counts as a change)."""
        changed = False
        if isinstance(update, LayoutUpdate):
            for y, line in enumerate(update.strips, update.region.y):
                x = update.region.x
                for strip in line:
                    changed |= self._put(y, x, strip, x, x + strip.cell_length)
                    x += strip.cell_length
        elif isinstance(update, ChopsUpdate):
            for y, start, end in update.spans:  # only the part of each line in its span
                for x, strip in update.chops[y].items():
                    if strip is not None:
                        changed |= self._put(y, x, strip, start, end)
        else:
            changed = True
        return changed

    def _put(self, y: int, x: int, strip: Strip, start: int, end: int) -> bool:
        """Write ``strip`` at ``x`` on row ``y``, only the cells in ``[start, end)``."""
        if not 0 <= y < len(self._rows):
            return False
        row = self._rows[y]
        end = min(end, len(row))
        changed = False
        for segment in strip:
            if segment.control:
                continue
            style = segment.style
            for char in segment.text:
                if start <= x < end and row[x] != (char, style):
                    row[x] = (char, style)
                    changed = True
                x += cell_len(char)
        return changed


class Paints:
    """Counts a screen's paints; notes when the last one ended, and when the last one that
    changed what the terminal shows ended.

    Wraps the screen's compositor refresh and the app's display on these instances (a layout
    paints through them too), and writes each update to a :class:`Terminal`. That is the
    bench's work, not the app's: its time is noted in ``checks``, for timings to leave out.
    """

    def __init__(self, screen: Screen) -> None:
        self.count = 0
        self.last = self.changed = time.perf_counter()
        self.checks = Spans()
        app = screen.app
        terminal = Terminal(*app.size)
        refresh, display = screen._compositor_refresh, app._display
        written = False

        def shown(on: Screen, update: RenderableType | None) -> None:
            nonlocal written
            display(on, update)
            if update is not None and not app._batch_count:  # as the app writes it
                with self.checks.timed():
                    written |= terminal.write(update)

        def counted() -> None:
            nonlocal written
            written = False
            refresh()
            self.count += 1
            self.last = time.perf_counter()
            if written:
                self.changed = self.last

        app._display = shown  # type: ignore[method-assign]
        screen._compositor_refresh = counted  # type: ignore[method-assign]
