#!/usr/bin/env python3
"""A real Letta 0.16.8 server on 127.0.0.1 for the end-to-end tests (stdlib only).

    python scripts/harness/harness.py start [--port N]  # install if needed, start, print env
    python scripts/harness/harness.py status
    python scripts/harness/harness.py stop
    python scripts/harness/harness.py reset             # stop and forget database and files

``start`` prints ``LETTA_BASE_URL=...`` and ``OPENLETTA_E2E_AGENT_ID=...`` on stdout (progress
and timings go to stderr): ``set -a; eval "$(python scripts/harness/harness.py start)"; set +a``.
If the stack is already running, ``start`` only prints them again.

The stack: Postgres 16 + pgvector from the ``pgserver`` wheel (run as ``nobody`` when the
harness runs as root: Postgres refuses root), Redis, the scripted model ``fake_llm.py`` and
``letta server`` (keepalive pings every 5 s instead of 20 s), on loopback ports that are kept
while they stay free. Letta's outbound downloads go to a dead proxy. The test agent
``openletta-e2e`` (``letta_v1_agent`` on ``openai-proxy/fake-model``) has the tools of
``lab_tools.py``, which work in ``scratch/``.

State lives in ``$OPENLETTA_HARNESS_DIR`` (default ``~/.cache/openletta-harness``): the venv
(``venv-<key>``, reused while the pins stay the same), ``pgdata/``, ``redis/``, ``scratch/``,
``home/`` (Letta's HOME), ``logs/``, ``ports.json`` and ``state.json`` (the pids ``stop``
stops).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import setup_agent
from stack_install import ensure_redis_server, ensure_venv
from stack_processes import (
    HarnessError,
    ProcessRecord,
    free_ports,
    http_ok,
    is_running,
    port_free,
    port_open,
    run_logged,
    stop,
    wait_until,
)
from stack_services import start_fake_model, start_letta, start_postgres, start_redis

HERE = Path(__file__).resolve().parent
SERVICE_TIMEOUT = 60.0
LETTA_TIMEOUT = 240.0
SCRATCH_FILES = {
    "notes.txt": "openletta end-to-end scratch notes\nhello from the harness\n",
    "todo.txt": "- write the tests\n- run the tests\n",
}
SERVICES = ("letta", "postgres", "redis", "fake-llm")
Report = Callable[[str], None]


def default_directory() -> Path:
    configured = os.environ.get("OPENLETTA_HARNESS_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "openletta-harness"


def report_to_stderr(message: str) -> None:
    print(f"harness: {message}", file=sys.stderr, flush=True)


@dataclass
class Stack:
    """A started stack: where it lives, its URL, its test agent and its processes."""

    directory: Path
    base_url: str = ""
    agent_id: str = ""
    processes: list[ProcessRecord] = field(default_factory=list)
    #: True when ``start`` found this stack already running (it did not start it).
    reused: bool = False

    @property
    def state_file(self) -> Path:
        return self.directory / "state.json"

    @property
    def health_url(self) -> str:
        return f"{self.base_url}/v1/health/"

    def add(self, record: ProcessRecord) -> ProcessRecord:
        """Remember a started process (saved at once, so ``stop`` finds it after a crash)."""
        self.processes.append(record)
        self.save()
        return record

    def save(self) -> None:
        state = {"base_url": self.base_url, "agent_id": self.agent_id,
                 "processes": [record.to_json() for record in self.processes]}
        self.state_file.write_text(json.dumps(state, indent=2) + "\n")

    @classmethod
    def load(cls, directory: Path) -> Stack | None:
        try:
            state = json.loads((directory / "state.json").read_text())
        except (OSError, ValueError):
            return None
        return cls(directory, state["base_url"], state["agent_id"],
                   [ProcessRecord(**record) for record in state["processes"]])

    def healthy(self) -> bool:
        return (bool(self.processes) and all(map(is_running, self.processes))
                and http_ok(self.health_url))

    def env_lines(self) -> str:
        return f"LETTA_BASE_URL={self.base_url}\nOPENLETTA_E2E_AGENT_ID={self.agent_id}"

    def stop_all(self) -> list[str]:
        """Stop the processes, newest first; the names of those that were running."""
        stopped = [record.name for record in reversed(self.processes) if stop(record)]
        self.state_file.unlink(missing_ok=True)
        return stopped


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold the harness directory's lock (one start or stop at a time)."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "harness.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


class Timings:
    """Seconds spent per start-up step."""

    def __init__(self) -> None:
        self.began = time.monotonic()
        self.steps: list[tuple[str, float]] = []

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        began = time.monotonic()
        yield
        self.steps.append((name, time.monotonic() - began))

    def summary(self) -> str:
        parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.steps)
        return f"ready in {time.monotonic() - self.began:.1f} s ({parts})"


def seed_scratch(directory: Path) -> None:
    scratch = directory / "scratch"
    scratch.mkdir(exist_ok=True)
    for name, text in SCRATCH_FILES.items():
        (scratch / name).write_text(text)


def choose_ports(directory: Path, letta_port: int) -> tuple[dict[str, int], bool]:
    """The last start's ports where still free, new ones otherwise (kept in ``ports.json``).

    Also whether the fake model's port changed: Letta stores the model's base URL in the
    database (provider and every agent), so a database made for another port is useless.
    """
    ports_file = directory / "ports.json"
    try:
        saved = json.loads(ports_file.read_text())
    except (OSError, ValueError):
        saved = {}
    spare = (port for port in free_ports(2 * len(SERVICES)) if port not in saved.values())
    ports = {name: saved[name] if name in saved and port_free(saved[name]) else next(spare)
             for name in SERVICES}
    ports["letta"] = letta_port or ports["letta"]
    ports_file.write_text(json.dumps(ports) + "\n")
    return ports, ports["fake-llm"] != saved.get("fake-llm")


def start(directory: Path | None = None, port: int = 0,
          report: Report = report_to_stderr) -> Stack:
    """Install what is missing and start the stack, or return the one already running."""
    directory = directory or default_directory()
    with locked(directory):
        stack = Stack.load(directory)
        if stack and stack.healthy():
            report(f"already running at {stack.base_url}")
            stack.reused = True
            return stack
        if stack:
            report(f"cleaning up a stack that is not healthy: {stack.stop_all()}")
        return _start_stack(directory, port, report)


def _start_stack(directory: Path, port: int, report: Report) -> Stack:
    logs = directory / "logs"
    logs.mkdir(exist_ok=True)
    (directory / "home").mkdir(exist_ok=True)
    seed_scratch(directory)
    timings = Timings()
    with timings.step("install"):
        report("checking the Letta venv (a first install takes a few minutes)")
        venv, reused = ensure_venv(directory, logs)
        redis_server = ensure_redis_server(logs)
    report("venv reused" if reused else f"venv installed: {venv}")
    ports, model_moved = choose_ports(directory, port)
    if model_moved and (directory / "pgdata").exists():
        report("the fake model's port changed; starting with a new database")
        shutil.rmtree(directory / "pgdata")
    stack = Stack(directory, base_url=f"http://127.0.0.1:{ports['letta']}")
    try:
        with timings.step("services"):
            postgres = stack.add(start_postgres(venv, directory, ports["postgres"], logs))
            services = [postgres,
                        stack.add(start_redis(redis_server, directory, ports["redis"], logs)),
                        stack.add(start_fake_model(ports["fake-llm"], logs))]
            for service in services:
                wait_until(lambda service=service: port_open(ports[service.name]),
                           f"{service.name} on port {ports[service.name]}",
                           SERVICE_TIMEOUT, [service])
        with timings.step("schema"):
            run_logged([str(venv / "bin" / "python"), str(HERE / "create_schema.py"),
                        str(ports["postgres"])], logs / "schema.log", "creating the schema")
        with timings.step("letta"):
            report(f"starting letta server on {stack.base_url}")
            letta = stack.add(start_letta(venv, directory, ports, logs))
            wait_until(lambda: http_ok(stack.health_url), f"GET {stack.health_url}",
                       LETTA_TIMEOUT, [*services, letta])
        with timings.step("agent"):
            stack.agent_id = setup_agent.ensure_test_agent(stack.base_url)
        stack.save()
    except BaseException:
        stack.stop_all()
        raise
    report(timings.summary())
    return stack


def stop_stack(directory: Path | None = None) -> list[str]:
    """Stop what ``start`` started (by the recorded pids); the names stopped."""
    directory = directory or default_directory()
    with locked(directory):
        stack = Stack.load(directory)
        return stack.stop_all() if stack else []


def reset(directory: Path | None = None) -> None:
    """Stop the stack and delete its database, Redis data and scratch files (not the venv)."""
    directory = directory or default_directory()
    stop_stack(directory)
    for name in ("pgdata", "redis", "scratch"):
        shutil.rmtree(directory / name, ignore_errors=True)


def status(directory: Path | None = None) -> bool:
    """Print what runs; True when the whole stack is up and healthy."""
    directory = directory or default_directory()
    stack = Stack.load(directory)
    if not stack:
        print(f"not started ({directory})")
        return False
    for record in stack.processes:
        state = "running" if is_running(record) else "NOT running"
        print(f"{record.name:9} pid {record.pid:<8} {state:12} log {record.log}")
    healthy = stack.healthy()
    print(f"health    {stack.health_url}: {'ok' if healthy else 'NOT ok'}")
    print(stack.env_lines())
    return healthy


def main() -> int:
    parser = argparse.ArgumentParser(description="Real Letta 0.16.8 server for e2e tests.")
    commands = parser.add_subparsers(dest="command", required=True)
    start_command = commands.add_parser("start", help="install if needed, start, print env")
    start_command.add_argument("--port", type=int, default=0, help="Letta's port (default: free)")
    commands.add_parser("stop", help="stop what start started")
    commands.add_parser("status", help="show the processes and the server's health")
    commands.add_parser("reset", help="stop, then delete database, Redis data and scratch")
    options = parser.parse_args()
    try:
        if options.command == "start":
            print(start(port=options.port).env_lines(), flush=True)
        elif options.command == "stop":
            report_to_stderr(f"stopped: {', '.join(stop_stack()) or 'nothing was running'}")
        elif options.command == "reset":
            reset()
        else:
            return 0 if status() else 1
    except (HarnessError, setup_agent.LettaRequestError) as error:
        report_to_stderr(f"error: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
