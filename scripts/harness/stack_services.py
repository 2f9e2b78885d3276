"""How each service of the harness is launched (stdlib only).

Postgres cannot run as root: as root, it runs as ``nobody`` through ``setpriv``. Letta gets a
small, explicit environment that points it at the fake model, Postgres and Redis, and sends
its outbound downloads to a dead proxy.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import sys
from pathlib import Path

from stack_install import postgres_bin
from stack_processes import HarnessError, ProcessRecord, run_logged, spawn

HERE = Path(__file__).resolve().parent
#: Nothing listens on the discard port: Letta's start-up downloads fail at once.
DEAD_PROXY = "http://127.0.0.1:9"
#: Seconds between Letta's keepalive pings (default 20), short so ``stall`` tests are quick.
KEEPALIVE_SECONDS = 5
CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE = 2, 1


def _closed_to_others(path: Path) -> bool:
    """True when other users cannot reach ``path`` (a directory on the way is closed)."""
    return any(not folder.stat().st_mode & stat.S_IXOTH for folder in (path, *path.parents))


def as_nobody(directory: Path) -> list[str]:
    """A ``setpriv`` prefix that runs a command as ``nobody`` with access to ``directory``.

    Root's home is usually closed to others; then ``nobody`` keeps one capability to look up
    paths (``no_setuid_fixup`` lets Postgres's own ``access()`` checks use it too).
    """
    if not shutil.which("setpriv"):
        raise HarnessError("Postgres cannot run as root and setpriv (util-linux) is missing")
    nobody = pwd.getpwnam("nobody")
    prefix = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
              "--clear-groups"]
    if not _closed_to_others(directory):
        return prefix
    bounding = int(next(line.split()[1] for line in Path("/proc/self/status").read_text()
                        .splitlines() if line.startswith("CapBnd:")), 16)
    capability = ("dac_read_search" if bounding >> CAP_DAC_READ_SEARCH & 1 else
                  "dac_override" if bounding >> CAP_DAC_OVERRIDE & 1 else None)
    if not capability:
        raise HarnessError(f"nobody cannot reach {directory}: set OPENLETTA_HARNESS_DIR to a "
                           "directory others can enter (e.g. /var/tmp/openletta-harness)")
    return [*prefix, "--securebits=+no_setuid_fixup", f"--inh-caps=+{capability}",
            f"--ambient-caps=+{capability}"]


def start_postgres(venv: Path, directory: Path, port: int, logs: Path) -> ProcessRecord:
    """Start Postgres (``initdb`` first when there is no cluster yet)."""
    bin_dir, data, log = postgres_bin(venv), directory / "pgdata", logs / "postgres.log"
    prefix = as_nobody(directory) if os.geteuid() == 0 else []
    if not (data / "PG_VERSION").exists():
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(mode=0o700)
        if prefix:
            nobody = pwd.getpwnam("nobody")
            os.chown(data, nobody.pw_uid, nobody.pw_gid)
        run_logged([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "letta",
                    "--auth=trust", "-E", "UTF8", "--locale=C"], log, "initdb")
    return spawn("postgres", [
        *prefix, str(bin_dir / "postgres"), "-D", str(data), "-p", str(port),
        "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
        "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
    ], log, stop_signal=signal.SIGINT)


def start_redis(redis_server: str, directory: Path, port: int, logs: Path) -> ProcessRecord:
    data = directory / "redis"
    data.mkdir(exist_ok=True)
    return spawn("redis", [
        redis_server, "--port", str(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", str(data), "--daemonize", "no",
    ], logs / "redis.log")


def start_fake_model(port: int, logs: Path) -> ProcessRecord:
    return spawn("fake-llm", [sys.executable, str(HERE / "fake_llm.py"), "--port", str(port)],
                 logs / "fake_llm.log")


def letta_env(directory: Path, ports: dict[str, int]) -> dict[str, str]:
    """A small, explicit environment for ``letta server`` (no host API keys leak in)."""
    home = directory / "home"
    fake_model = f"http://127.0.0.1:{ports['fake-llm']}/v1"
    env = {name: value for name, value in os.environ.items()
           if name in ("PATH", "LANG", "LC_ALL", "TZ")}
    env.update({
        "HOME": str(home), "LETTA_DIR": str(home / ".letta"), "PYTHONUNBUFFERED": "1",
        "OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": fake_model, "OPENAI_API_BASE": fake_model,
        "LETTA_PG_URI": f"postgresql://letta@127.0.0.1:{ports['postgres']}/letta",
        "LETTA_REDIS_HOST": "127.0.0.1", "LETTA_REDIS_PORT": str(ports["redis"]),
        "LETTA_KEEPALIVE_INTERVAL": str(KEEPALIVE_SECONDS),
        "OPENLETTA_SCRATCH_DIR": str(directory / "scratch"),
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
    })
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = DEAD_PROXY
    return env


def start_letta(venv: Path, directory: Path, ports: dict[str, int],
                logs: Path) -> ProcessRecord:
    return spawn("letta", [str(venv / "bin" / "letta"), "server", "--host", "127.0.0.1",
                           "--port", str(ports["letta"])],
                 logs / "letta.log", env=letta_env(directory, ports), cwd=directory / "home")
