"""With local tools on, openletta's process is not dumpable (Linux): a command it runs cannot
read the API key from ``/proc/<openletta's pid>/environ`` (root, or CAP_SYS_PTRACE, still
can; the test checks the read where it runs as another user)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

#: openletta starting with local tools, then a command it could run reading its environ.
STARTS_THEN_SNOOPS = textwrap.dedent("""
    import ctypes, subprocess
    from openletta.cli import build_parser
    from openletta.ui.launch import local_calls

    local_calls(build_parser().parse_args([]))
    print("dumpable", ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE
    read = subprocess.run(["sh", "-c", "cat /proc/$PPID/environ"], capture_output=True)
    print("key seen", b"sk-never-shown" in read.stdout)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's /proc and prctl")
def test_a_command_run_by_openletta_cannot_read_the_key_from_its_process() -> None:
    env = {**os.environ, "LETTA_API_KEY": "sk-never-shown"}
    done = subprocess.run([sys.executable, "-c", STARTS_THEN_SNOOPS], env=env,
                          capture_output=True, text=True, check=True, timeout=60)
    assert "dumpable 0" in done.stdout
    if os.geteuid() != 0:  # root may read any process's memory anyway
        assert "key seen False" in done.stdout
