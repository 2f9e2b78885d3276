"""openletta and Letta Code side by side: CPU of the same turns, from the same Letta server.

Run: python bench/bench_vs_letta_code.py --letta-code PATH [--rounds N] [--turns N] [--idle S]

with ``LETTA_BASE_URL`` of a Letta server whose model is the harness's scripted one
(``python scripts/harness/harness.py start`` prints it), and ``PATH`` the ``letta`` command of
an installed Letta Code (``npm install @letta-ai/letta-code``). Issue 21 sets its goals as
ratios to Letta Code: figures measured on one machine on one day compare; absolute ones from
another day do not (a shared machine's speed moves by 2x from one day to the next).

Each client runs as a user runs it: in a tmux window of 120x40, in an empty directory, with
an agent of its own that the bench creates on the server (Letta Code's turns add reminders of
its own to the agent's history) and its default settings, except that Letta Code streams
tokens (``tokenStreaming``, as openletta does) and starts no background reflection or update.
The clients take turns, one session each per round, and every session is the same:

* *launch*: wall time from starting the client (``--agent <id>``) until its prompt is ready,
  and the memory its processes hold once it is quiet;
* *long*: the scripted model's long Markdown reply (about 270 chunks), twice;
* *slow*: 40 words over 12 s;
* *hello*: ``--turns`` short greetings;
* *idle*: CPU share over ``--idle`` seconds with the chat open, a second after the last turn.

A turn's CPU is what the client's processes ran (:func:`~measure.process_cpu`) from just
before it types until the server holds the reply and the client has been quiet (under 1 % of
a CPU) for half a second. Figures are medians over the turns of a kind and then the rounds;
the ratio is openletta's over Letta Code's (issue 21's goal: at most 0.5 for a turn). A child
process that ends within a measure counts in whole clock ticks once reaped: an idle share can
read a little below zero. Letta Code's version is the one installed: the registry this machine
reaches holds 0.25.9 (later ones need packages it does not have). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from bench_stream_cpu import tmux  # this script's folder is on the path
from measure import process_cpu, process_rss_mb

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "harness"))
import fake_llm
import setup_agent

SIZE = (120, 40)
#: Seconds a turn may take before the bench gives up (the slow reply takes about 12).
TURN_TIMEOUT = 180.0
#: What each kind of turn types, and the end of the reply the scripted model gives it.
TURNS = {"long": ("long", "end of the long answer."),
         "slow": ("slow", fake_llm.SLOW_TEXT.split()[-1]),
         "hello": ("hello", "How can I help?")}
#: Letta Code's settings for the bench (``~/.letta/settings.json``).
LETTA_CODE_SETTINGS = {"tokenStreaming": True, "reflectionTrigger": "off",
                       "enableSleeptime": False}


@dataclass(frozen=True)
class Client:
    """How to start one of the clients compared, and what its window shows when ready."""

    name: str
    command: Callable[[str, str], list[str]]  # (base URL, agent id) -> argv
    environment: Callable[[Path], dict[str, str]]  # (its home for the session) -> variables
    ready: str


def openletta_client() -> Client:
    return Client(
        "openletta",
        lambda base_url, agent: [sys.executable, "-m", "openletta", "--base-url", base_url,
                                 "--agent", agent],
        lambda home: {"OPENLETTA_CONFIG_DIR": str(home), "LETTA_API_KEY": "",
                      "PYTHONDONTWRITEBYTECODE": "",
                      "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        "Enter sends")


def letta_code_client(letta: str) -> Client:
    def environment(home: Path) -> dict[str, str]:
        settings = home / ".letta" / "settings.json"
        if not settings.exists():
            settings.parent.mkdir(parents=True)
            settings.write_text(json.dumps(LETTA_CODE_SETTINGS))
        return {"HOME": str(home), "LETTA_API_KEY": "", "DISABLE_AUTOUPDATER": "1",
                "LETTA_CODE_TELEM": "0"}

    return Client("Letta Code",
                  lambda base_url, agent: [letta, "--agent", agent],
                  environment, "Press / for commands")


@dataclass
class Figures:
    """One client's figures over the rounds."""

    launch: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    turns: dict[str, list[float]] = field(default_factory=dict)
    idle: list[float] = field(default_factory=list)

    def turn(self, kind: str) -> float:
        """The median over the rounds of a kind of turn's CPU (each a session's median)."""
        return statistics.median(self.turns[kind])


class Session:
    """One client, running in tmux against the server with its agent."""

    def __init__(self, client: Client, base_url: str, agent: str, home: Path) -> None:
        self.client, self.base_url, self.agent, self.home = client, base_url, agent, home
        self.window = f"vs-{uuid.uuid4().hex[:8]}"
        self.pid = 0

    async def start(self) -> float:
        """Start the client; seconds until its prompt is ready."""
        work = self.home / "work"
        work.mkdir(exist_ok=True)
        environment = {**self.client.environment(self.home), "PWD": str(work)}  # (tmux's own
        # would name the directory the bench started in, which Letta Code takes as its own)
        variables = [option for name, value in environment.items()
                     for option in ("-e", f"{name}={value}")]
        command = shlex.join(self.client.command(self.base_url, self.agent))
        started = time.monotonic()
        await tmux("new-session", "-d", "-s", self.window, "-x", str(SIZE[0]), "-y",
                   str(SIZE[1]), "-c", str(work), *variables, f"exec {command}")
        self.pid = int(await tmux("list-panes", "-t", self.window, "-F", "#{pane_pid}"))
        await self.shows(self.client.ready, poll=0.01)
        return time.monotonic() - started

    async def shows(self, text: str, poll: float = 0.1) -> None:
        async with asyncio.timeout(TURN_TIMEOUT):
            while text not in await tmux("capture-pane", "-p", "-t", self.window):
                await asyncio.sleep(poll)

    async def quiet(self, seconds: float = 0.5) -> None:
        """Wait until the client uses under 1 % of a CPU for ``seconds``."""
        async with asyncio.timeout(TURN_TIMEOUT):
            while True:
                before = process_cpu(self.pid)
                await asyncio.sleep(seconds)
                if process_cpu(self.pid) - before < 0.01 * seconds:
                    return

    async def turn(self, server: httpx.AsyncClient, kind: str) -> float:
        """CPU seconds of one turn of this kind (see the module docstring)."""
        typed, reply_end = TURNS[kind]
        before_turn = await newest_message(server, self.agent)
        await self.quiet()
        before = process_cpu(self.pid)
        await tmux("send-keys", "-t", self.window, "-l", typed)
        await tmux("send-keys", "-t", self.window, "Enter")
        try:
            async with asyncio.timeout(TURN_TIMEOUT):
                while True:
                    newest = await newest_message(server, self.agent)
                    if newest and newest != before_turn and (
                            "assistant_message" in newest.values()):
                        break
                    await asyncio.sleep(0.1)
        except TimeoutError:
            sys.exit(f"{self.client.name}: no reply to {typed!r} stored on the server after "
                     f"{TURN_TIMEOUT:.0f} s (is the server well? see its log)")
        await self.quiet()
        spent = process_cpu(self.pid) - before
        await self.shows(reply_end)
        return spent

    async def stop(self) -> None:
        await tmux("kill-session", "-t", self.window, check=False)
        for _ in range(100):
            if not Path(f"/proc/{self.pid}").exists():
                return
            await asyncio.sleep(0.05)


async def newest_message(server: httpx.AsyncClient, agent: str) -> dict[str, str]:
    """The newest message of the agent's history: ``{id: message_type}`` of the parts Letta
    shows it as (a step's reasoning and reply share an id)."""
    response = await server.get(f"/v1/agents/{agent}/messages",
                                params={"limit": 1, "order": "desc"})
    response.raise_for_status()
    return {part["id"] + ":" + part["message_type"]: part["message_type"]
            for part in response.json()}


async def session(client: Client, base_url: str, agent: str, home: Path, turns: int,
                  idle: float, figures: Figures) -> None:
    """One round of one client (see the module docstring)."""
    run = Session(client, base_url, agent, home)
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as server:
        try:
            figures.launch.append(await run.start())
            await run.quiet(1.0)
            figures.rss_mb.append(process_rss_mb(run.pid))
            for kind, count in (("long", 2), ("slow", 1), ("hello", turns)):
                spent = [await run.turn(server, kind) for _ in range(count)]
                figures.turns.setdefault(kind, []).append(statistics.median(spent))
            await asyncio.sleep(1)
            before = process_cpu(run.pid)
            await asyncio.sleep(idle)
            figures.idle.append((process_cpu(run.pid) - before) / idle)
        finally:
            await run.stop()


def report(ours: Figures, theirs: Figures, rounds: int, turns: int) -> None:
    def row(label: str, mine: float, other: float, unit: str = "s", goal: str = "") -> None:
        ratio = f"{mine / other:5.2f}x" if other else "    -"
        print(f"{label:<34}{mine:8.3f} {unit:<2}{other:8.3f} {unit:<2}  {ratio}  {goal}")

    median = statistics.median
    print(f"{rounds} rounds, {turns} short turns a session; medians   "
          "openletta  Letta Code  ratio")
    row("launch to a ready prompt", median(ours.launch), median(theirs.launch),
        goal="(goal <= 0.35 s)")
    row("memory at the ready prompt", median(ours.rss_mb), median(theirs.rss_mb), "MB")
    for kind, label in (("long", "long reply (~270 chunks), CPU"),
                        ("slow", "slow reply (40 words, 12 s), CPU"),
                        ("hello", "short reply (hello), CPU")):
        row(label, ours.turn(kind), theirs.turn(kind), goal="(goal <= 0.5x)")
    row("idle, chat open, CPU", 100 * median(ours.idle), 100 * median(theirs.idle), "%",
        goal="(goal 0.0 %)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--letta-code", required=True, help="Letta Code's `letta` command")
    parser.add_argument("--rounds", type=int, default=3, help="sessions of each client")
    parser.add_argument("--turns", type=int, default=10, help="short turns a session")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of idle measured")
    options = parser.parse_args()
    base_url = os.environ.get("LETTA_BASE_URL")
    if not base_url:
        sys.exit("LETTA_BASE_URL is not set: start the harness (see the docstring)")
    clients = [openletta_client(), letta_code_client(options.letta_code)]
    figures = {client.name: Figures() for client in clients}
    with tempfile.TemporaryDirectory() as scratch:
        version = subprocess.run([options.letta_code, "--version"], capture_output=True,
                                 text=True, check=True, cwd=scratch).stdout.strip()
        print(f"Letta Code: {version}; server: {base_url}", file=sys.stderr)
        agents, homes = {}, {}
        for client in clients:
            slug = client.name.replace(" ", "-").lower()
            agents[client.name] = setup_agent.create_agent(
                base_url, f"bench-vs-{slug}-{uuid.uuid4().hex[:6]}", tool_ids=[])
            homes[client.name] = Path(scratch) / slug
            homes[client.name].mkdir()
        for index in range(options.rounds):
            for client in clients if index % 2 == 0 else reversed(clients):
                await session(client, base_url, agents[client.name], homes[client.name],
                              options.turns, options.idle, figures[client.name])
                mine = figures[client.name]
                print(f"round {index + 1}, {client.name}: launch {mine.launch[-1]:.2f} s, "
                      + ", ".join(f"{kind} {values[-1]:.3f} s"
                                  for kind, values in mine.turns.items())
                      + f", idle {100 * mine.idle[-1]:.2f} %", file=sys.stderr)
    report(figures["openletta"], figures["Letta Code"], options.rounds, options.turns)


if __name__ == "__main__":
    asyncio.run(main())
