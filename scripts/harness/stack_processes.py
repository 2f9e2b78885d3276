"""Start, watch and stop the harness's background processes (stdlib only).

Every process is started in a session of its own (its process group id is its pid) with its
output in a log file. A :class:`ProcessRecord` remembers the pid together with the kernel's
start time of that pid, so ``stop`` never signals a process that merely reuses the number.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

POLL_INTERVAL = 0.2
STOP_TIMEOUT = 15.0
LOG_TAIL_LINES = 40


class HarnessError(RuntimeError):
    """Something the harness needs could not be installed or started."""


@dataclass(frozen=True)
class ProcessRecord:
    """A process the harness started."""

    name: str
    pid: int
    start_ticks: int
    log: str
    #: Signal for a clean stop, sent to the process only (``SIGINT`` stops Postgres fast).
    stop_signal: int = signal.SIGTERM

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def log_tail(path: str | Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file, indented, for error messages."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as error:
        return f"    (no log: {error})"
    return "\n".join(f"    {line}" for line in text.splitlines()[-lines:])


def failure(message: str, log: str | Path) -> HarnessError:
    """A :class:`HarnessError` that quotes the end of ``log``."""
    return HarnessError(f"{message}\n  last lines of {log}:\n{log_tail(log)}")


def _proc_stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first), if any."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def start_ticks(pid: int) -> int:
    """When ``pid`` started, in clock ticks since boot (0 if it is gone)."""
    fields = _proc_stat(pid)
    return int(fields[19]) if fields else 0


def _reap(pid: int) -> None:
    """Collect the exit status of our own child, so it does not linger as a zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def is_running(record: ProcessRecord) -> bool:
    """True while the recorded process (and not a later one with its pid) is alive."""
    _reap(record.pid)
    fields = _proc_stat(record.pid)
    return bool(fields) and fields[0] != "Z" and int(fields[19]) == record.start_ticks


def group_members(pgid: int) -> list[int]:
    """Live processes in process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _proc_stat(int(entry.name))
            if fields and fields[0] != "Z" and int(fields[2]) == pgid:
                members.append(int(entry.name))
    return members


def spawn(name: str, argv: list[str], log: Path, *, env: dict[str, str] | None = None,
          cwd: Path | None = None, stop_signal: int = signal.SIGTERM) -> ProcessRecord:
    """Start ``argv`` in the background with stdout and stderr appended to ``log``."""
    with log.open("ab") as output:
        output.write(f"\n--- {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(argv)}\n".encode())
        output.flush()
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=output,
                                       stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                       start_new_session=True)
        except OSError as error:
            raise HarnessError(f"could not start {name} ({argv[0]}): {error}") from None
    return ProcessRecord(name, process.pid, start_ticks(process.pid), str(log), stop_signal)


def run_logged(argv: list[str], log: Path, what: str, *,
               env: dict[str, str] | None = None) -> None:
    """Run ``argv`` to completion with its output appended to ``log``; fail with its tail."""
    with log.open("ab") as output:
        output.write(f"\n--- {' '.join(argv)}\n".encode())
        output.flush()
        result = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, env=env)
    if result.returncode != 0:
        raise failure(f"{what} failed (exit code {result.returncode})", log)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def stop(record: ProcessRecord, timeout: float = STOP_TIMEOUT) -> bool:
    """Stop the process and everything left in its process group; False if it was gone."""
    was_running = is_running(record)
    if was_running:
        with contextlib.suppress(ProcessLookupError):
            os.kill(record.pid, record.stop_signal)
        deadline = time.monotonic() + timeout
        while is_running(record) and time.monotonic() < deadline:
            time.sleep(POLL_INTERVAL)
        if is_running(record):
            _signal_group(record.pid, signal.SIGKILL)
    # Children left behind keep the group; while the group lives, its id is not reused as a
    # pid, so a live pid with other start ticks means the group is gone.
    if start_ticks(record.pid) in (0, record.start_ticks) and group_members(record.pid):
        _signal_group(record.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while group_members(record.pid) and time.monotonic() < deadline:
            time.sleep(POLL_INTERVAL)
        _signal_group(record.pid, signal.SIGKILL)
    _reap(record.pid)
    return was_running


def wait_until(ready: Callable[[], bool], what: str, timeout: float,
               watched: Iterable[ProcessRecord]) -> float:
    """Poll ``ready`` until it holds; fail early if a watched process dies. Seconds waited."""
    began = time.monotonic()
    watched = list(watched)
    while not ready():
        for record in watched:
            if not is_running(record):
                raise failure(f"{record.name} exited while waiting for {what}", record.log)
        if time.monotonic() - began > timeout:
            last = watched[-1] if watched else None
            message = f"timed out after {timeout:.0f} s waiting for {what}"
            raise failure(message, last.log) if last else HarnessError(message)
        time.sleep(POLL_INTERVAL)
    return time.monotonic() - began


def port_open(port: int) -> bool:
    """True when something accepts TCP connections on 127.0.0.1:``port``."""
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def http_ok(url: str) -> bool:
    """True when ``GET url`` answers 200."""
    request = urllib.request.Request(url, headers={"User-Agent": ""})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def port_free(port: int) -> bool:
    """True when a server could listen on 127.0.0.1:``port`` now (TIME_WAIT does not count)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports that are free on 127.0.0.1 right now."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
