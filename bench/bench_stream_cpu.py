"""CPU of the real app while it streams a recorded reply at its recorded pace, and at idle.

Run: python bench/bench_stream_cpu.py [--turns N] [--runs N] [--idle SECONDS] [--profile DIR]
                                     [--hello-only]

The app runs as a user runs it: ``python -m openletta`` in a tmux window of 120x40 (tmux is
the terminal: it answers the app's queries and draws its escape sequences). It talks to the
embedded demo server, except that a sent message is answered by replaying a stream recorded
from a real Letta 0.16.8 server with the scripted e2e model (``tests/fixtures/timed/*.sse``,
made by ``bench/record_stream.py``), each event sent at the moment it arrived when recorded.
Ids are renewed on every replay, so each turn is new to the app.

CPU is the time the app's threads ran (``/proc/<pid>/task/*/schedstat``), from just before
the message is typed until the app has been quiet (under 1 % CPU) for half a second after the
last event, so it covers the whole turn: typing, the request, every chunk, the final render and
whatever the turn's end sets off. Reported per recording (a figure over several turns is
their median: one turn's CPU moves by 20 % on a shared machine):

* ``long``: a long Markdown reply (reasoning, then 161 assistant chunks in 0.7 s), the first
  ``LONG_TURNS`` turns of the session (the first pays for what Python loads or compiles on
  first use, such as the code block's highlighter: that turn is also shown on its own);
* ``slow``: 40 words over 13 s;
* ``hello``: a short greeting, every one of the ``--turns`` short turns that follow;
* ``long`` again, ``LONG_TURNS`` turns after those short turns (cost should not grow);
* idle: CPU share over ``--idle`` seconds with the chat open and nothing happening, from a
  second after the last turn was quiet.

Then the app is quit and started again with ``--agent <id>``, as the resume hint it prints on
exit says: *launch* is the wall time from starting it until the window shows its prompt and
the newest message of the history (the greeting the demo itself gave to a last ``hello``),
looking every 10 ms. Python writes and reads its bytecode cache in the app's window
(``PYTHONDONTWRITEBYTECODE`` is cleared there), as it does for an installed app.

``--hello-only`` measures the ``--turns`` short turns alone (no long or slow reply, no idle,
no relaunch): a quick look at what a short turn costs, or a profile of short turns only.

Figures are the median of ``--runs`` fresh app processes. ``--profile DIR`` also records each
run from its ready prompt on with py-spy (``pip install py-spy``) into ``DIR``. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import statistics
import sys
import tempfile
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

from measure import process_cpu  # this script's folder is on the path

from openletta.demo import DemoServer
from openletta.demo.http import Handler, Request, Response, StreamResponse

RECORDINGS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "timed"
SIZE = (120, 40)
#: Long replies measured at the start of a session, and again after the short turns.
LONG_TURNS = 3
#: Samples a second py-spy takes with ``--profile``.
PROFILE_RATE = 1000
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: The end of the demo's own greeting: the newest message on screen after a relaunch.
NEWEST_REPLY = "to see what I can show you."
_STREAM = re.compile(r"^/v1/(agents/[^/]+/messages/stream|conversations/[^/]+/messages)/?$")


@dataclass(frozen=True)
class TimedEvent:
    at: float
    frame: bytes


def load(name: str) -> list[TimedEvent]:
    """A recording's events with the second each arrived at."""
    events = []
    for block in (RECORDINGS / f"{name}.sse").read_text().split("\n\n"):
        lines = block.strip("\n").splitlines()
        if lines and lines[0].startswith(": t="):
            frame = "\n".join(lines[1:]) + "\n\n"
            events.append(TimedEvent(float(lines[0][4:]), frame.encode()))
    return events


def renewed(events: list[TimedEvent]) -> list[TimedEvent]:
    """The same events with every id replaced by a fresh one (consistently)."""
    fresh: dict[str, str] = {}

    def swap(match: re.Match[str]) -> str:
        return fresh.setdefault(match[0], str(uuid.uuid4()))

    return [TimedEvent(event.at, _UUID.sub(swap, event.frame.decode()).encode())
            for event in events]


class ReplayServer(DemoServer):
    """The demo server, but a sent message is answered with the next queued recording."""

    def __init__(self) -> None:
        super().__init__(speed=0)
        self.queue: list[list[TimedEvent]] = []
        self.done = asyncio.Event()

    def handler(self) -> Handler:
        router = super().handler()

        async def handle(request: Request) -> Response:
            if request.method == "POST" and _STREAM.match(request.path) and self.queue:
                return StreamResponse(self._stream(self.queue.pop(0)))
            return await router(request)

        return handle

    async def _stream(self, events: list[TimedEvent]) -> AsyncGenerator[bytes, None]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            for event in events:
                delay = started + event.at - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                yield event.frame
        finally:  # the client may hang up after the last event, closing this generator
            self.done.set()


class App:
    """``python -m openletta`` in a tmux window of :data:`SIZE`: a real terminal that
    answers the app's queries and draws what it writes."""

    def __init__(self, base_url: str, config: str, profile: Path | None,
                 agent: str = "demo-agent") -> None:
        self.base_url, self.config, self.profile, self.agent = base_url, config, profile, agent
        self.session = f"bench-{uuid.uuid4().hex[:8]}"
        self.pid = 0
        self._spy: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        command = shlex.join([sys.executable, "-m", "openletta", "--base-url", self.base_url,
                              "--agent", self.agent, "--no-local-tools"])
        # (started in the throwaway config directory: ``-m`` puts the window's directory
        # first on the path, before PYTHONPATH, so the caller's would choose the code run)
        await tmux("new-session", "-d", "-s", self.session, "-x", str(SIZE[0]), "-y",
                   str(SIZE[1]), "-c", self.config, "-e", f"OPENLETTA_CONFIG_DIR={self.config}",
                   "-e", "LETTA_API_KEY=", "-e", "PYTHONDONTWRITEBYTECODE=",
                   # tmux gives a window its server's environment, not this one's.
                   "-e", f"PYTHONPATH={os.environ.get('PYTHONPATH', '')}", f"exec {command}")
        self.pid = int(await tmux("list-panes", "-t", self.session, "-F", "#{pane_pid}"))

    async def start_profile(self) -> None:
        """Record what the app does from now on with py-spy, when asked to."""
        if self.profile is not None:
            self._spy = await asyncio.create_subprocess_exec(
                str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(self.pid),
                "--format", "speedscope", "--rate", str(PROFILE_RATE),
                "--output", str(self.profile),
                "--nonblocking",
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)

    def cpu(self) -> float:
        """Seconds of CPU the app has used so far (:func:`~measure.process_cpu`)."""
        return process_cpu(self.pid)

    async def shows(self, *texts: str, timeout: float = 20, poll: float = 0.1) -> None:
        """Wait until the window shows each of ``texts``, looking every ``poll`` seconds."""
        async with asyncio.timeout(timeout):
            while True:
                screen = await tmux("capture-pane", "-p", "-t", self.session)
                if all(text in screen for text in texts):
                    return
                await asyncio.sleep(poll)

    async def type(self, text: str) -> None:
        """Type ``text``, then Enter."""
        await tmux("send-keys", "-t", self.session, "-l", text)
        await tmux("send-keys", "-t", self.session, "Enter")

    async def quiet(self, seconds: float = 0.5) -> None:
        """Wait until the app uses less than 1 % of a CPU for ``seconds``."""
        while True:
            before = self.cpu()
            await asyncio.sleep(seconds)
            if self.cpu() - before < 0.01 * seconds:
                return

    async def stop(self) -> None:
        """End the app (Ctrl+Q), then the tmux session."""
        await tmux("send-keys", "-t", self.session, "C-q")
        for _ in range(50):
            if not Path(f"/proc/{self.pid}").exists():
                break
            await asyncio.sleep(0.1)
        await tmux("kill-session", "-t", self.session, check=False)
        if self._spy is not None:
            await self._spy.wait()


async def tmux(*args: str, check: bool = True) -> str:
    """Run a tmux command; its output."""
    process = await asyncio.create_subprocess_exec(
        "tmux", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    if check and process.returncode:
        raise RuntimeError(f"tmux {args[0]}: {err.decode().strip()}")
    return out.decode()


async def turn(app: App, server: ReplayServer, recording: str, text: str) -> float:
    """CPU seconds the app spends on one turn answered by ``recording``."""
    server.queue.append(renewed(load(recording)))
    server.done.clear()
    await app.quiet()
    before = app.cpu()
    await app.type(text)
    await server.done.wait()
    await app.quiet()
    return app.cpu() - before


@dataclass
class Run:
    first_long: float
    long: float
    slow: float
    hello: float
    long_late: float
    idle: float
    launch: float


async def hello_run(turns: int, profile: Path | None) -> float:
    """The median CPU of ``turns`` short turns, in a fresh app (``--hello-only``)."""
    server = ReplayServer()
    base_url = await server.start()
    try:
        with tempfile.TemporaryDirectory() as config:
            app = App(base_url, config, profile)
            await app.start()
            try:
                await app.shows("Enter sends")
                await app.quiet(1.0)
                await app.start_profile()
                return statistics.median([await turn(app, server, "hello", f"hello {index}")
                                          for index in range(turns)])
            finally:
                await app.stop()
    finally:
        await server.stop()


async def one_run(turns: int, idle: float, profile: Path | None) -> Run:
    server = ReplayServer()
    base_url = await server.start()
    with tempfile.TemporaryDirectory() as config:
        app = App(base_url, config, profile)
        await app.start()
        try:
            await app.shows("Enter sends")
            await app.quiet(1.0)
            await app.start_profile()
            longs = [await turn(app, server, "long", f"long {index}")
                     for index in range(LONG_TURNS)]
            slow = await turn(app, server, "slow", "slow")
            hellos = [await turn(app, server, "hello", f"hello {index}")
                      for index in range(turns)]
            late = [await turn(app, server, "long", f"long again {index}")
                    for index in range(LONG_TURNS)]
            await asyncio.sleep(1)
            before = app.cpu()
            await asyncio.sleep(idle)
            idle_share = (app.cpu() - before) / idle
            await app.type("hello")  # answered by the demo itself, which keeps it as history
            await app.shows(NEWEST_REPLY)
        finally:
            await app.stop()
        try:
            agent_id = next(agent.id for agent in server.store.agents.values()
                            if agent.spec.name == "demo-agent")
            launch = await launch_time(base_url, config, agent_id)
        finally:
            await server.stop()
    median = statistics.median
    return Run(longs[0], median(longs), slow, median(hellos), median(late), idle_share, launch)


async def launch_time(base_url: str, config: str, agent_id: str) -> float:
    """Seconds from starting the app again (``--agent <id>``, as its resume hint says) until
    its prompt and the newest message of its history (the demo's greeting) are on screen."""
    app = App(base_url, config, None, agent_id)
    started = asyncio.get_running_loop().time()
    await app.start()
    try:
        await app.shows("Enter sends", NEWEST_REPLY, poll=0.01)
        return asyncio.get_running_loop().time() - started
    finally:
        await app.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=30, help="short turns before the late long")
    parser.add_argument("--runs", type=int, default=3, help="fresh app processes")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle measured")
    parser.add_argument("--profile", type=Path, help="write py-spy profiles here")
    parser.add_argument("--hello-only", action="store_true",
                        help="measure only the short turns (see the docstring)")
    options = parser.parse_args()
    if options.hello_only:
        await hello_only(options.turns, options.runs, options.profile)
        return
    runs = []
    for index in range(options.runs):
        profile = None
        if options.profile is not None:
            options.profile.mkdir(parents=True, exist_ok=True)
            profile = options.profile / f"run{index + 1}.speedscope.json"
        runs.append(await one_run(options.turns, options.idle, profile))
        print(f"run {index + 1}: {runs[-1]}", file=sys.stderr)

    def median(field: str) -> float:
        return statistics.median(getattr(run, field) for run in runs)

    print(f"long reply (161 chunks, 0.7 s)     CPU {median('long'):.2f} s   (goal <= 0.28 s; "
          f"the session's first: {median('first_long'):.2f} s)")
    print(f"slow reply (40 chunks, 13 s)       CPU {median('slow'):.2f} s   (goal <= 0.37 s)")
    print(f"short reply (hello)                CPU {median('hello'):.2f} s   (goal <= 0.05 s)")
    print(f"long reply after {options.turns} short turns   CPU {median('long_late'):.2f} s   "
          f"({median('long_late') / median('long'):.2f}x the first ones; goal <= 1.0x)")
    print(f"idle, chat open                    CPU {100 * median('idle'):.2f} %   (goal 0.0 %)")
    print(f"launch to prompt + newest history  {median('launch'):.2f} s   (goal <= 0.35 s)")


async def hello_only(turns: int, runs: int, profile: Path | None) -> None:
    """Print the median CPU of ``turns`` short turns in each of ``runs`` fresh apps."""
    figures = []
    for index in range(runs):
        output = None
        if profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
            output = profile / f"hello{index + 1}.speedscope.json"
        figures.append(await hello_run(turns, output))
        print(f"run {index + 1}: hello {figures[-1]:.3f} s", file=sys.stderr)
    print(f"short reply (hello)                CPU {statistics.median(figures):.3f} s   "
          "(goal <= 0.05 s)")


if __name__ == "__main__":
    asyncio.run(main())
