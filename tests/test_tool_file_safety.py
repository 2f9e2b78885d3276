"""Local tools touch what was approved and nothing else: a symbolic link put in a path's way
after the call was judged is refused, not followed; FIFOs, sockets and devices are refused
before they are opened; and a stopped call's blocked thread never keeps the app from exiting."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from openletta.chat.local_calls import LocalCalls
from openletta.tools.base import ToolInputError, Workspace
from openletta.tools.budget import ReturnBudget
from openletta.tools.files import Read, Write, write_atomically
from openletta.tools.grep import Grep
from openletta.tools.permissions import Permissions, ProjectRules
from openletta.tools.safe_files import read_regular
from openletta.transcript import ToolCallItem

BUDGET = ReturnBudget.for_window(None)
#: Long enough for a refusal; a call that blocks would take for ever.
QUICK = 10


def _calls(root: Path, tmp_path: Path) -> LocalCalls:
    rules = ProjectRules(path=tmp_path / "rules.toml")
    return LocalCalls(Permissions(Workspace(root), project_rules=rules))


def _call(name: str, **arguments: str) -> ToolCallItem:
    return ToolCallItem(key=f"call:{name}", tool_call_id=f"id-{name}", name=name,
                        runs_here=True, arguments_text=json.dumps(arguments))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_a_write_approved_as_creating_a_file_is_refused_once_a_link_leads_elsewhere(
        project: Path, tmp_path: Path) -> None:
    local = _calls(project, tmp_path)
    call = _call("Write", file_path="new.txt", content="secret\n")
    local.pin(call)  # judged (and asked) while new.txt did not exist
    outside = tmp_path / "outside.txt"
    (project / "new.txt").symlink_to(outside)  # planted before the user says yes

    outcome = asyncio.run(local.run(call, lambda _: None, BUDGET))

    assert not outcome.ok
    assert "changed since the call was approved" in outcome.text
    assert str(outside) in outcome.text
    assert not outside.exists()


def test_a_read_approved_inside_is_refused_once_a_link_leads_outside(
        project: Path, tmp_path: Path) -> None:
    (project / "notes.txt").write_text("mine\n")
    local = _calls(project, tmp_path)
    call = _call("Read", file_path="notes.txt")
    local.pin(call)
    (tmp_path / "private.txt").write_text("not for the agent\n")
    (project / "notes.txt").unlink()
    (project / "notes.txt").symlink_to(tmp_path / "private.txt")

    outcome = asyncio.run(local.run(call, lambda _: None, BUDGET))

    assert not outcome.ok and "not for the agent" not in outcome.text


def test_a_link_that_was_there_when_approved_is_still_followed(
        project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "target.txt"
    (project / "link.txt").symlink_to(outside)  # the prompt said where it points
    local = _calls(project, tmp_path)
    call = _call("Write", file_path="link.txt", content="approved\n")
    local.pin(call)

    outcome = asyncio.run(local.run(call, lambda _: None, BUDGET))

    assert outcome.ok, outcome.text
    assert outside.read_text() == "approved\n"


def test_a_directory_swapped_for_a_link_after_the_check_is_not_followed(
        project: Path, tmp_path: Path) -> None:
    (project / "sub").mkdir()
    path = project / "sub" / "file.txt"
    checked = path.resolve()  # where the call was checked to write
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "sub").rmdir()
    (project / "sub").symlink_to(elsewhere)

    with pytest.raises(ToolInputError, match="changed"):
        write_atomically(path, "x\n", checked)
    assert list(elsewhere.iterdir()) == []


def test_a_final_link_swapped_in_after_the_check_is_refused_not_written_through(
        project: Path, tmp_path: Path) -> None:
    path = project / "file.txt"
    checked = path.resolve()
    outside = tmp_path / "outside.txt"
    path.symlink_to(outside)

    with pytest.raises(ToolInputError, match="changed"):
        write_atomically(path, "x\n", checked)
    assert not outside.exists()


def test_a_project_under_a_directory_one_may_pass_through_but_not_list_is_read_and_written(
        ) -> None:
    """A home directory of mode 0711 (or any directory one may only pass through) is on the
    way to many projects: the files under it are read and written as before."""
    outer = Path(tempfile.mkdtemp())
    try:
        project = outer / "project"
        project.mkdir(mode=0o777)
        project.chmod(0o777)
        (project / "notes.txt").write_text("hello\n")
        (project / "notes.txt").chmod(0o666)
        outer.chmod(0o311 if os.geteuid() == 0 else 0o300)  # nobody may list it
        assert _in_a_child_without_rights_to_list(lambda: (
            read_regular(project / "notes.txt", project / "notes.txt", 100) == b"hello\n"
            and write_atomically(project / "new.txt", "written\n") == 8))
        assert (project / "new.txt").read_text() == "written\n"
    finally:
        outer.chmod(0o700)
        shutil.rmtree(outer)


def _in_a_child_without_rights_to_list(check: Callable[[], bool]) -> bool:
    """Whether ``check`` holds in a child process without root's rights (as ``nobody`` when
    this one is root), which then cannot list a directory lacking read permission."""
    pid = os.fork()
    if pid == 0:  # the child
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            os._exit(0 if check() else 1)
        except BaseException:
            os._exit(2)
    return os.waitpid(pid, 0)[1] == 0


def _release(fifo: Path) -> None:
    """Let a reader blocked on opening ``fifo`` go on (it then reads nothing)."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@contextlib.contextmanager
def _fifo(path: Path) -> Iterator[Path]:
    """A FIFO at ``path``; a reader that blocked on it is let go after :data:`QUICK` s, so
    that a test of a tool that blocks fails instead of hanging."""
    os.mkfifo(path)
    timer = threading.Timer(QUICK, _release, [path])
    timer.start()
    try:
        yield path
    finally:
        timer.cancel()


def test_read_refuses_a_fifo_a_socket_or_a_device_at_once(project: Path) -> None:
    workspace = Workspace(project)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(project / "sock.txt"))
    with _fifo(project / "fifo.txt") as fifo, server:
        for special, kind in ((fifo, "a FIFO"), (project / "sock.txt", "a socket"),
                              (Path("/dev/null"), "a character device")):
            with pytest.raises(ToolInputError, match=f"is {kind}"):
                asyncio.run(Read().run({"file_path": str(special)}, workspace,
                                       lambda _: None))


def test_a_read_of_a_fifo_fails_at_once_without_asking_anyone(
        project: Path, tmp_path: Path) -> None:
    """Bound to fail as things stand: like an Edit of a file not read, nobody is asked."""
    with _fifo(project / "pipe.txt"):
        outcome = _calls(project, tmp_path).certain_failure(_call("Read", file_path="pipe.txt"))
    assert outcome is not None and not outcome.ok and "is a FIFO" in outcome.text
    (project / "notes.txt").write_text("hello\n")
    assert _calls(project, tmp_path).certain_failure(
        _call("Read", file_path="notes.txt")) is None
    # Outside the directory not even whether a file is there is told before the user allows.
    assert _calls(project, tmp_path).certain_failure(
        _call("Read", file_path=str(tmp_path / "missing.txt"))) is None


def test_grep_refuses_a_fifo_named_as_its_path_at_once(project: Path) -> None:
    with _fifo(project / "fifo.txt"), pytest.raises(ToolInputError, match="FIFO"):
        asyncio.run(Grep(use_ripgrep=False).run({"pattern": "x", "path": "fifo.txt"},
                                                Workspace(project), lambda _: None))


def test_the_preview_of_a_write_over_a_fifo_does_not_open_it(project: Path) -> None:
    with _fifo(project / "fifo.txt") as fifo:
        started = time.monotonic()
        Write().preview({"file_path": str(fifo), "content": "x\n"}, Workspace(project))
        assert time.monotonic() - started < QUICK


#: A Read whose file system never answers, stopped by the user; then the app ends.
STUCK_READ = textwrap.dedent("""
    import asyncio, threading
    from pathlib import Path
    import openletta.tools.files as files

    def never_answers(*args):
        threading.Event().wait()

    files.read_text = never_answers

    async def main():
        task = asyncio.create_task(files.Read().run({"file_path": "x"},
                                   files.Workspace(Path.cwd()), lambda _: None))
        await asyncio.sleep(0.2)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(main())
    print("exited")
""")


def test_a_stopped_call_stuck_in_its_thread_does_not_keep_the_app_from_exiting(
        project: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", STUCK_READ], cwd=project,
                               stdout=subprocess.PIPE, text=True)
    try:
        output, _ = process.communicate(timeout=QUICK)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the app did not exit: a stopped call's thread held it")
    assert "exited" in output


def test_where_the_calls_of_earlier_rounds_led_is_forgotten(
        project: Path, tmp_path: Path) -> None:
    # A denied call never runs: what it pinned goes when the next round is judged.
    local = _calls(project, tmp_path)
    denied = _call("Read", file_path="a.txt")
    asked = _call("Write", file_path="b.txt", content="x\n")
    local.pin(denied)
    local.keep_pins_of([asked])
    local.pin(asked)
    assert list(local._pinned) == [asked.tool_call_id]
