"""Install what the harness runs: the Letta venv and redis-server (stdlib only).

The venv lives in ``HARNESS_DIR/venv-<key>``, where the key hashes the constraints file, the
requirements and the Python version, so a changed pin set builds a new venv and an unchanged
one is reused. A venv only counts once its install finished (a marker file).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from stack_processes import HarnessError, failure, run_logged

HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "letta-0.16.8-constraints.txt"
REQUIREMENTS = ("letta[server,redis]==0.16.8", "asyncpg", "pg8000", "pgvector", "pgserver==0.1.4")
#: Python versions letta 0.16.8 supports (``Requires-Python: >=3.11,<3.14``), newest first.
SUPPORTED_PYTHONS = ("3.13", "3.12", "3.11")
COMPLETE_MARKER = ".openletta-harness-complete"


def letta_python() -> str:
    """An interpreter letta 0.16.8 can run on: this one if it fits, else one on PATH."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" in SUPPORTED_PYTHONS:
        return sys.executable
    for version in SUPPORTED_PYTHONS:
        found = shutil.which(f"python{version}")
        if found:
            return found
    raise HarnessError(f"letta 0.16.8 needs Python {' or '.join(SUPPORTED_PYTHONS)}; "
                       f"this is {sys.version.split()[0]} and none is on PATH")


def python_version(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()


def venv_key(python: str) -> str:
    digest = hashlib.sha256(CONSTRAINTS.read_bytes())
    digest.update(" ".join(REQUIREMENTS).encode())
    digest.update(python_version(python).encode())
    return digest.hexdigest()[:12]


def ensure_venv(harness_dir: Path, log_dir: Path) -> tuple[Path, bool]:
    """The Letta venv, installed if needed; and whether it was already there."""
    python = letta_python()
    venv = harness_dir / f"venv-{venv_key(python)}"
    if (venv / COMPLETE_MARKER).exists():
        return venv, True
    for stale in harness_dir.glob("venv-*"):  # unfinished, or built from other pins
        shutil.rmtree(stale)
    log = log_dir / "install.log"
    log.unlink(missing_ok=True)
    run_logged([python, "-m", "venv", str(venv)], log, "creating the Letta venv")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    run_logged([str(venv / "bin" / "python"), "-m", "pip", "install", "--progress-bar", "off",
                 "-c", str(CONSTRAINTS), *REQUIREMENTS], log, "installing letta 0.16.8", env=env)
    (venv / COMPLETE_MARKER).write_text(" ".join(REQUIREMENTS) + "\n")
    return venv, False


def ensure_redis_server(log_dir: Path) -> str:
    """The path of ``redis-server``, installed with apt-get when missing (as root)."""
    found = shutil.which("redis-server")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise HarnessError("redis-server is missing; install it (Debian/Ubuntu: "
                           "apt-get install redis-server) or run the harness as root")
    log = log_dir / "apt.log"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run_logged(["apt-get", "update"], log, "apt-get update", env=env)
    run_logged(["apt-get", "install", "-y", "--no-install-recommends", "redis-server"], log,
                "apt-get install redis-server", env=env)
    found = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/bin")
    if not found:
        raise failure("redis-server is still missing after apt-get install", log)
    return found


def postgres_bin(venv: Path) -> Path:
    """The Postgres binaries (with pgvector) of the ``pgserver`` wheel inside the venv."""
    found = sorted(venv.glob("lib/python3*/site-packages/pgserver/pginstall/bin"))
    if not found:
        raise HarnessError(f"no pgserver binaries in {venv}; delete it and start again")
    return found[0]
