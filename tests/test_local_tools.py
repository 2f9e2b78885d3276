"""The local toolset (Bash, Read, Write, Edit, Glob, Grep, LS) in temporary workspaces."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from openletta.tools import LOCAL_TOOLS, declarations, local_tool
from openletta.tools.base import (
    DEFAULT_BUDGET,
    Access,
    LocalTool,
    ToolInputError,
    ToolOutcome,
    Workspace,
)
from openletta.tools.bash import Bash
from openletta.tools.budget import ReturnBudget
from openletta.tools.files import Edit, Read, Write
from openletta.tools.grep import Grep
from openletta.tools.search import LS, Glob

HAS_RIPGREP = shutil.which("rg") is not None


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path, environment=dict(os.environ))


async def call(tool: LocalTool, workspace: Workspace, budget: ReturnBudget = DEFAULT_BUDGET,
               **args: Any) -> ToolOutcome:
    return await tool.run(args, workspace, lambda _: None, budget)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


async def wait_for_file(path: Path) -> str:
    for _ in range(200):
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# The registry


def test_registry_order_and_lookup() -> None:
    names = [tool.name for tool in LOCAL_TOOLS]
    assert names == ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "LS"]
    assert local_tool("Grep") is LOCAL_TOOLS[5]
    assert local_tool("grep") is None
    assert [item["name"] for item in declarations()] == names


@pytest.mark.parametrize("tool", LOCAL_TOOLS, ids=lambda tool: tool.name)
def test_schemas_are_closed_objects(tool: LocalTool) -> None:
    schema = tool.declaration()["parameters"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])
    assert all(spec.get("description") for spec in schema["properties"].values())
    assert tool.description


def test_access_levels() -> None:
    access = {tool.name: tool.access for tool in LOCAL_TOOLS}
    assert access == {"Bash": Access.EXECUTE, "Read": Access.READ, "Write": Access.EDIT,
                      "Edit": Access.EDIT, "Glob": Access.READ, "Grep": Access.READ,
                      "LS": Access.READ}


async def test_missing_and_mistyped_arguments(workspace: Workspace) -> None:
    with pytest.raises(ToolInputError, match="Missing required argument 'command'"):
        await call(Bash(), workspace)
    with pytest.raises(ToolInputError, match="'limit' must be of type integer, not string"):
        await call(Read(), workspace, file_path="x", limit="5")
    with pytest.raises(ToolInputError, match="'replace_all' must be of type boolean"):
        await call(Edit(), workspace, file_path="x", old_string="a", new_string="b",
                   replace_all=1)


def test_paths(workspace: Workspace) -> None:
    root = workspace.root
    assert Read().paths({"file_path": "a/b.txt"}, workspace) == [root / "a" / "b.txt"]
    assert Write().paths({"file_path": "/etc/x"}, workspace) == [Path("/etc/x")]
    assert Glob().paths({"pattern": "*"}, workspace) == [root]
    assert LS().paths({"path": "sub"}, workspace) == [root / "sub"]
    assert Bash().paths({"command": "ls"}, workspace) == []


# Bash


async def test_bash_streams_output_in_order(workspace: Workspace) -> None:
    heard: list[str] = []
    outcome = await Bash().run({"command": "printf 'a\\n'; sleep 0.2; printf 'b\\n'"},
                               workspace, heard.append)
    assert heard == ["a\n", "b\n"]
    assert outcome.ok
    assert outcome.text == "Exit code: 0\na\nb\n"  # the exit code first, where it survives
    assert outcome.stdout == ["a\nb\n"]


async def test_bash_exit_code_and_combined_streams(workspace: Workspace) -> None:
    outcome = await call(Bash(), workspace, command="echo out; echo err >&2; exit 3")
    assert not outcome.ok
    assert outcome.text == "Exit code: 3\nout\nerr\n"


async def test_bash_runs_in_the_workspace(workspace: Workspace) -> None:
    outcome = await call(Bash(), workspace, command="pwd")
    assert outcome.text.splitlines()[1] == str(workspace.root)


async def test_bash_timeout_kills_the_process_group(workspace: Workspace) -> None:
    started = time.monotonic()
    outcome = await call(Bash(), workspace, timeout=300,
                         command="echo started; sleep 30 & echo $! > pidfile; sleep 30")
    assert time.monotonic() - started < 5
    assert not outcome.ok
    assert "timed out after 0.3 s" in outcome.text
    assert "started" in outcome.text
    pid = int((workspace.root / "pidfile").read_text())
    assert not alive(pid)


async def test_bash_cancel_kills_grandchildren(workspace: Workspace) -> None:
    task = asyncio.create_task(call(Bash(), workspace,
                                    command="sleep 100 & echo $! > pidfile; wait"))
    pid = int(await wait_for_file(workspace.root / "pidfile"))
    assert alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not alive(pid)


async def test_bash_returns_when_the_shell_exits(workspace: Workspace) -> None:
    started = time.monotonic()
    outcome = await call(Bash(), workspace, command="sleep 20 & echo $! > pidfile; echo hi")
    pid = int((workspace.root / "pidfile").read_text())
    os.kill(pid, signal.SIGKILL)
    assert time.monotonic() - started < 5
    assert outcome.text == "Exit code: 0\nhi\n"


async def test_bash_truncates_huge_output(workspace: Workspace) -> None:
    outcome = await call(Bash(), workspace,
                         command="printf 'S'; head -c 100000 /dev/zero | tr '\\0' x; "
                                 "printf 'E'")
    # The user sees 15,000 characters of each end; the agent as much as its budget holds.
    assert outcome.stdout is not None and len(outcome.stdout[0]) < 31_000
    assert "\n[… 70,002 characters cut …]\n" in outcome.stdout[0]
    assert DEFAULT_BUDGET.fits(outcome.text)
    lead, note, head, gap, tail = outcome.text.split("\n")
    assert lead == "Exit code: 0"
    assert note.startswith(f"[Output too long for your context window: you get its first "
                           f"{len(head):,} and last {len(tail):,} of 100,002 characters.")
    assert head.startswith("S" + "x" * 100) and tail.endswith("xE")
    assert gap == f"[… {100_002 - len(head) - len(tail):,} characters cut …]"


async def test_bash_environment_has_no_api_key(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path, environment={
        "LETTA_API_KEY": "sk-secret", "OTHER": "x sk-secret y", "KEPT": "fine",
        "PATH": os.environ["PATH"]})
    outcome = await call(Bash(), workspace, command="env")
    assert "sk-secret" not in outcome.text
    assert "LETTA_API_KEY" not in outcome.text
    assert "OTHER=" not in outcome.text
    assert "KEPT=fine" in outcome.text


async def test_bash_rejects_bad_timeout(workspace: Workspace) -> None:
    with pytest.raises(ToolInputError, match="positive"):
        await call(Bash(), workspace, command="true", timeout=0)


# Read


async def test_read_numbers_lines(workspace: Workspace) -> None:
    write(workspace.root / "a.txt", "one\ntwo\nthree\n")
    outcome = await call(Read(), workspace, file_path="a.txt")
    assert outcome.text == "     1\tone\n     2\ttwo\n     3\tthree"


async def test_read_offset_limit_and_paging_note(workspace: Workspace) -> None:
    write(workspace.root / "a.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    outcome = await call(Read(), workspace, file_path="a.txt", offset=3, limit=4)
    lines = outcome.text.splitlines()
    assert lines[0] == "[Showing lines 3–6 of 10. Use offset=7 to read on.]"  # first: it stays
    assert lines[2:] == ["     3\tline 3", "     4\tline 4", "     5\tline 5", "     6\tline 6"]
    last = await call(Read(), workspace, file_path="a.txt", offset=9)
    assert last.text == "     9\tline 9\n    10\tline 10"
    with pytest.raises(ToolInputError, match="past the end"):
        await call(Read(), workspace, file_path="a.txt", offset=11)


async def test_read_cuts_long_lines(workspace: Workspace) -> None:
    write(workspace.root / "long.txt", "y" * 2500 + "\n")
    outcome = await call(Read(), workspace, file_path="long.txt")
    assert outcome.text == "     1\t" + "y" * 2000 + " [… line cut, 500 more characters]"


async def test_read_empty_file(workspace: Workspace) -> None:
    path = write(workspace.root / "empty.txt", "")
    outcome = await call(Read(), workspace, file_path="empty.txt")
    assert outcome.text == f"{path} is empty."


async def test_read_refusals(workspace: Workspace) -> None:
    (workspace.root / "bin.dat").write_bytes(b"abc\0def")
    (workspace.root / "pic.PNG").write_bytes(b"not really")
    (workspace.root / "dir").mkdir()
    with pytest.raises(ToolInputError, match="binary"):
        await call(Read(), workspace, file_path="bin.dat")
    with pytest.raises(ToolInputError, match="image"):
        await call(Read(), workspace, file_path="pic.PNG")
    with pytest.raises(ToolInputError, match=r"directory.*LS"):
        await call(Read(), workspace, file_path="dir")
    with pytest.raises(ToolInputError, match="does not exist"):
        await call(Read(), workspace, file_path="missing.txt")


async def test_read_allows_svg(workspace: Workspace) -> None:
    write(workspace.root / "icon.svg", "<svg/>\n")
    assert (await call(Read(), workspace, file_path="icon.svg")).text == "     1\t<svg/>"


# Write


async def test_write_creates_a_file(workspace: Workspace) -> None:
    outcome = await call(Write(), workspace, file_path="new/dir/f.txt", content="a\nb\n")
    path = workspace.root / "new" / "dir" / "f.txt"
    assert path.read_text() == "a\nb\n"
    assert outcome.text == f"Created {path} (4 bytes, 2 lines)"
    assert workspace.unchanged_since_read(path) is None


async def test_write_refuses_an_unread_file(workspace: Workspace) -> None:
    path = write(workspace.root / "f.txt", "old\n")
    with pytest.raises(ToolInputError, match="has not been read"):
        await call(Write(), workspace, file_path="f.txt", content="new\n")
    assert path.read_text() == "old\n"


async def test_write_refuses_a_file_changed_since_read(workspace: Workspace) -> None:
    path = write(workspace.root / "f.txt", "old\n")
    await call(Read(), workspace, file_path="f.txt")
    path.write_text("changed by someone else\n")
    with pytest.raises(ToolInputError, match="changed on disk"):
        await call(Write(), workspace, file_path="f.txt", content="new\n")
    assert path.read_text() == "changed by someone else\n"


async def test_write_replaces_a_read_file_keeping_its_mode(workspace: Workspace) -> None:
    path = write(workspace.root / "run.sh", "echo old\n")
    path.chmod(0o751)
    await call(Read(), workspace, file_path="run.sh")
    outcome = await call(Write(), workspace, file_path="run.sh", content="echo new\n")
    assert outcome.text == f"Wrote 9 bytes (1 line) to {path}"
    assert path.read_text() == "echo new\n"
    assert path.stat().st_mode & 0o777 == 0o751
    assert [p.name for p in workspace.root.iterdir()] == ["run.sh"]  # no temporary left


def test_write_preview(workspace: Workspace) -> None:
    write(workspace.root / "f.txt", "one\ntwo\n")
    diff = Write().preview({"file_path": "f.txt", "content": "one\n2\n"}, workspace)
    assert diff == "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    new = Write().preview({"file_path": "sub/g.txt", "content": "hi\n"}, workspace)
    assert new == "--- /dev/null\n+++ b/sub/g.txt\n@@ -0,0 +1 @@\n+hi\n"
    # An empty new file is a new file all the same; content as on disk replaces nothing.
    empty = Write().preview({"file_path": "empty.txt", "content": ""}, workspace)
    assert empty == "--- /dev/null\n+++ b/empty.txt\n"
    assert Write().preview({"file_path": "f.txt", "content": "one\ntwo\n"}, workspace) == ""
    (workspace.root / "dir").mkdir()
    assert Write().preview({"file_path": "dir", "content": "x"}, workspace) is None


# Edit


async def read_then_edit(workspace: Workspace, text: str, **args: Any) -> ToolOutcome:
    write(workspace.root / "f.py", text)
    await call(Read(), workspace, file_path="f.py")
    return await call(Edit(), workspace, file_path="f.py", **args)


async def test_edit_unique_match(workspace: Workspace) -> None:
    outcome = await read_then_edit(workspace, "a = 1\nb = 2\n", old_string="b = 2",
                                   new_string="b = 3")
    path = workspace.root / "f.py"
    assert outcome.text == f"Replaced 1 occurrence in {path}"
    assert path.read_text() == "a = 1\nb = 3\n"
    assert workspace.unchanged_since_read(path) is None
    # The change made goes with the result (kept in history): what the card shows numbered.
    assert outcome.stdout == ["--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"]


async def test_edit_windows_line_endings(workspace: Workspace) -> None:
    path = workspace.root / "f.py"
    path.write_bytes(b"a = 1\r\nb = 2\r\n")
    await call(Read(), workspace, file_path="f.py")
    await call(Edit(), workspace, file_path="f.py", old_string="a = 1\nb = 2",
               new_string="a = 0\nb = 0")
    assert path.read_bytes() == b"a = 0\r\nb = 0\r\n"


async def test_edit_keeps_undecodable_bytes(workspace: Workspace) -> None:
    path = workspace.root / "f.txt"
    path.write_bytes(b"caf\xe9 = 1\n")
    await call(Read(), workspace, file_path="f.txt")
    outcome = await call(Edit(), workspace, file_path="f.txt", old_string="= 1",
                         new_string="= 2")
    assert path.read_bytes() == b"caf\xe9 = 2\n"
    assert outcome.stdout is not None and "-caf\ufffd = 1\n+caf\ufffd = 2\n" in outcome.stdout[0]
    outcome.stdout[0].encode()  # sendable: no lone surrogate from the undecodable byte


async def test_edit_not_found(workspace: Workspace) -> None:
    with pytest.raises(ToolInputError, match=r"not found.*read the file again"):
        await read_then_edit(workspace, "a = 1\n", old_string="z = 9", new_string="z = 0")


async def test_edit_multiple_matches(workspace: Workspace) -> None:
    with pytest.raises(ToolInputError, match=r"occurs 3 times.*replace_all"):
        await read_then_edit(workspace, "x\nx\nx\n", old_string="x", new_string="y")
    assert (workspace.root / "f.py").read_text() == "x\nx\nx\n"


async def test_edit_replace_all(workspace: Workspace) -> None:
    outcome = await read_then_edit(workspace, "x\nx\nx\n", old_string="x", new_string="y",
                                   replace_all=True)
    assert outcome.text.startswith("Replaced 3 occurrences in ")
    assert (workspace.root / "f.py").read_text() == "y\ny\ny\n"


async def test_edit_identical_strings(workspace: Workspace) -> None:
    with pytest.raises(ToolInputError, match="the same"):
        await read_then_edit(workspace, "x\n", old_string="x", new_string="x")


async def test_edit_missing_file(workspace: Workspace) -> None:
    with pytest.raises(ToolInputError, match="does not exist"):
        await call(Edit(), workspace, file_path="nope.py", old_string="a", new_string="b")


async def test_edit_refuses_a_file_changed_since_read(workspace: Workspace) -> None:
    path = write(workspace.root / "f.py", "a = 1\n")
    await call(Read(), workspace, file_path="f.py")
    path.write_text("a = 1\nb = 2\n")
    with pytest.raises(ToolInputError, match="changed on disk"):
        await call(Edit(), workspace, file_path="f.py", old_string="a = 1", new_string="a = 0")
    assert path.read_text() == "a = 1\nb = 2\n"


async def test_edit_refuses_an_unread_file(workspace: Workspace) -> None:
    write(workspace.root / "f.py", "a = 1\n")
    with pytest.raises(ToolInputError, match="has not been read"):
        await call(Edit(), workspace, file_path="f.py", old_string="a", new_string="b")


def test_edit_preview(workspace: Workspace) -> None:
    write(workspace.root / "f.py", "a = 1\nb = 2\n")
    edit: Mapping[str, Any] = {"file_path": "f.py", "old_string": "b = 2",
                               "new_string": "b = 3"}
    assert Edit().preview(edit, workspace) == (
        "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n")
    assert Edit().preview({**edit, "old_string": "nowhere"}, workspace) is None
    assert Edit().preview({**edit, "file_path": "missing.py"}, workspace) is None


# Glob


async def test_glob_newest_first(workspace: Workspace) -> None:
    for age, name in enumerate(["new.py", "sub/mid.py", "old.py"]):
        path = write(workspace.root / name, "")
        os.utime(path, (1_000_000 - age * 100, 1_000_000 - age * 100))
    write(workspace.root / "notes.txt", "")
    (workspace.root / "dir.py").mkdir()
    outcome = await call(Glob(), workspace, pattern="**/*.py")
    assert outcome.text.splitlines() == ["new.py", "sub/mid.py", "old.py"]


async def test_glob_shows_where_a_link_points_as_ls_does(workspace: Workspace) -> None:
    write(workspace.root / "real.py", "")
    (workspace.root / "link.py").symlink_to("/etc/passwd")
    glob = await call(Glob(), workspace, pattern="*.py")
    ls = await call(LS(), workspace)
    assert sorted(glob.text.splitlines()) == ["link.py -> /etc/passwd", "real.py"]
    assert "  link.py -> /etc/passwd" in ls.text.splitlines()


async def test_glob_relative_to_the_searched_dir(workspace: Workspace) -> None:
    write(workspace.root / "sub" / "deep" / "a.py", "")
    outcome = await call(Glob(), workspace, pattern="**/*.py", path="sub")
    assert outcome.text == "deep/a.py"


async def test_glob_skips_noise_directories(workspace: Workspace) -> None:
    write(workspace.root / "a.py", "")
    write(workspace.root / ".venv" / "lib" / "b.py", "")
    write(workspace.root / "node_modules" / "c.py", "")
    assert (await call(Glob(), workspace, pattern="**/*.py")).text == "a.py"
    assert (await call(Glob(), workspace, pattern=".venv/**/*.py")).text == ".venv/lib/b.py"


async def test_glob_cap(workspace: Workspace) -> None:
    for n in range(105):
        write(workspace.root / f"f{n:03}.txt", "")
    lines = (await call(Glob(), workspace, pattern="*.txt")).text.splitlines()
    assert len([line for line in lines if line.endswith(".txt")]) == 100
    assert "100 most recently modified of 105" in lines[0]


async def test_glob_nothing_and_bad_arguments(workspace: Workspace) -> None:
    assert (await call(Glob(), workspace, pattern="*.rs")).text == "No files found"
    with pytest.raises(ToolInputError, match="does not exist"):
        await call(Glob(), workspace, pattern="*", path="nowhere")
    with pytest.raises(ToolInputError, match="relative to path"):
        await call(Glob(), workspace, pattern="/etc/*")


# Grep


@pytest.fixture
def tree(workspace: Workspace) -> Workspace:
    root = workspace.root
    write(root / "a.py", "import os\n\ndef main():\n    return os.getcwd()\n")
    write(root / "b.txt", "alpha\nbeta\nOS is here\ngamma\ndelta\nos again\n")
    write(root / "sub" / "c.py", "x = 1\n")
    write(root / ".git" / "config", "os\n")
    write(root / "node_modules" / "m.js", "os\n")
    (root / "blob.bin").write_bytes(b"os\0os")
    return workspace


GREPS = [Grep(use_ripgrep=False), *([Grep()] if HAS_RIPGREP else [])]
GREP_IDS = ["python", *(["ripgrep"] if HAS_RIPGREP else [])]


@pytest.fixture(params=GREPS, ids=GREP_IDS)
def grep(request: pytest.FixtureRequest) -> Grep:
    tool: Grep = request.param
    return tool


async def test_grep_files_with_matches(tree: Workspace) -> None:
    outcome = await call(Grep(use_ripgrep=False), tree, pattern="os")
    assert outcome.text == "a.py\nb.txt"


async def test_grep_count(tree: Workspace) -> None:
    outcome = await call(Grep(use_ripgrep=False), tree, pattern="os", output_mode="count")
    assert outcome.text == "a.py:2\nb.txt:1"


async def test_grep_quotes_a_file_name_as_ls_and_glob_do(tree: Workspace, grep: Grep) -> None:
    """A name with a newline in it is one quoted line, not two names (nor a count's line
    cut in two)."""
    write(tree.root / "nl\nname.txt", "os\n")
    files = await call(grep, tree, pattern="os")
    assert files.text == "a.py\nb.txt\n'nl\\nname.txt'"
    counts = await call(grep, tree, pattern="os", output_mode="count")
    assert counts.text == "a.py:2\nb.txt:1\n'nl\\nname.txt':1"


async def test_grep_content_and_ignore_case(tree: Workspace) -> None:
    outcome = await call(Grep(use_ripgrep=False), tree, pattern="^os", output_mode="content",
                         **{"-i": True})
    assert outcome.text == "b.txt:3:OS is here\nb.txt:6:os again"
    plain = await call(Grep(use_ripgrep=False), tree, pattern="^os", output_mode="content",
                       **{"-n": False})
    assert plain.text == "b.txt:os again"


async def test_grep_context(tree: Workspace) -> None:
    outcome = await call(Grep(use_ripgrep=False), tree, pattern="beta|again",
                         output_mode="content", **{"-B": 1, "-A": 0})
    assert outcome.text == "b.txt-1-alpha\nb.txt:2:beta\n--\nb.txt-5-delta\nb.txt:6:os again"
    merged = await call(Grep(use_ripgrep=False), tree, pattern="beta|delta",
                        output_mode="content", **{"-C": 1})
    assert merged.text.splitlines() == ["b.txt-1-alpha", "b.txt:2:beta", "b.txt-3-OS is here",
                                        "b.txt-4-gamma", "b.txt:5:delta", "b.txt-6-os again"]


async def test_grep_glob_type_and_path(tree: Workspace) -> None:
    python = Grep(use_ripgrep=False)
    assert (await call(python, tree, pattern="=|os", glob="*.py")).text == "a.py\nsub/c.py"
    assert (await call(python, tree, pattern=".", glob="sub/*.py")).text == "sub/c.py"
    assert (await call(python, tree, pattern=".", glob="*.{txt,py}")).text.splitlines() == [
        "a.py", "b.txt", "sub/c.py"]
    assert (await call(python, tree, pattern="=", type="py")).text == "sub/c.py"
    assert (await call(python, tree, pattern=".", path="sub")).text == "sub/c.py"
    assert (await call(python, tree, pattern="os", path="b.txt")).text == "b.txt"


async def test_grep_multiline(tree: Workspace) -> None:
    outcome = await call(Grep(use_ripgrep=False), tree, pattern=r"def main.*getcwd",
                         output_mode="content", multiline=True)
    assert outcome.text == "a.py:3:def main():\na.py:4:    return os.getcwd()"
    single = await call(Grep(use_ripgrep=False), tree, pattern=r"def main.*getcwd")
    assert single.text == "No matches found"


async def test_grep_head_limit_and_offset(tree: Workspace) -> None:
    python = Grep(use_ripgrep=False)
    first = await call(python, tree, pattern="a$", output_mode="content", head_limit=2)
    assert first.text == ("[Showing lines 1–2 of 4. Use offset=2 to see more.]\n\n"
                          "b.txt:1:alpha\nb.txt:2:beta")
    rest = await call(python, tree, pattern="a$", output_mode="content", head_limit=2,
                      offset=2)
    assert rest.text == "b.txt:4:gamma\nb.txt:5:delta"
    everything = await call(python, tree, pattern="a$", output_mode="content", head_limit=0)
    assert len(everything.text.splitlines()) == 4
    past = await call(python, tree, pattern="a", offset=5)
    assert past.text == "Nothing past offset 5: 2 files in all."


async def test_grep_invalid_regex(tree: Workspace, grep: Grep) -> None:
    with pytest.raises(ToolInputError, match=r"Invalid regular expression|regex parse error"):
        await call(grep, tree, pattern="(unclosed")


async def test_grep_bad_arguments(tree: Workspace, grep: Grep) -> None:
    with pytest.raises(ToolInputError, match="output_mode"):
        await call(grep, tree, pattern="x", output_mode="lines")
    with pytest.raises(ToolInputError, match="must not be negative"):
        await call(grep, tree, pattern="x", **{"-A": -1})


@pytest.mark.parametrize("args", [
    {"pattern": "os"},
    {"pattern": "os", "output_mode": "count", "-i": True},
    {"pattern": "beta|again", "output_mode": "content", "-C": 1},
    {"pattern": "=", "glob": "*.py", "output_mode": "content", "-n": False},
    {"pattern": "a", "output_mode": "content", "head_limit": 3, "offset": 1},
    {"pattern": "os", "path": "b.txt", "output_mode": "content", "-i": True},
    {"pattern": r"main.*getcwd", "output_mode": "content", "multiline": True},
    {"pattern": ".", "type": "py", "output_mode": "count"},
    {"pattern": "nothing here"},
])
async def test_grep_same_output_with_either_search(tree: Workspace, grep: Grep,
                                                   args: dict[str, Any]) -> None:
    expected = await call(Grep(use_ripgrep=False), tree, **args)
    assert (await call(grep, tree, **args)).text == expected.text


# LS


async def test_ls_directories_first(workspace: Workspace) -> None:
    root = workspace.root
    for name in ["b.txt", "A.txt", ".hidden"]:
        write(root / name, "")
    (root / "zdir").mkdir()
    (root / "adir").mkdir()
    outcome = await call(LS(), workspace)
    assert outcome.text.splitlines() == [f"{root}/", "  adir/", "  zdir/", "  .hidden",
                                         "  A.txt", "  b.txt"]


async def test_ls_names_read_as_themselves_and_links_say_where_they_point(
        workspace: Workspace, tmp_path: Path) -> None:
    root = workspace.root
    for name in ["nl\nname.txt", "esc\x1b[31mred.txt", "rlo\u202etxt.exe", " spaced",
                 "'quoted'", "a -> b", "plain.txt"]:
        write(root / name, "")
    (root / "updir").symlink_to(tmp_path)
    (root / "gone").symlink_to("nowhere\nelse")
    outcome = await call(LS(), workspace)
    assert outcome.text.splitlines()[1:] == [
        f"  updir/ -> {tmp_path}", "  ' spaced'", "  \"'quoted'\"", "  'a -> b'",
        "  'esc\\x1b[31mred.txt'", "  gone -> 'nowhere\\nelse'", "  'nl\\nname.txt'",
        "  plain.txt", "  'rlo\\u202etxt.exe'"]


async def test_ls_ignore(workspace: Workspace) -> None:
    for name in ["a.py", "a.pyc", "b.pyc"]:
        write(workspace.root / "sub" / name, "")
    (workspace.root / "sub" / "__pycache__").mkdir()
    outcome = await call(LS(), workspace, path="sub", ignore=["*.pyc", "__pycache__"])
    assert outcome.text.splitlines()[1:] == ["  a.py"]


async def test_ls_cap(workspace: Workspace) -> None:
    for n in range(1005):
        (workspace.root / f"{n:04}").touch()
    lines = (await call(LS(), workspace, budget=ReturnBudget(100_000))).text.splitlines()
    assert lines[-1] == "  0999"
    assert "first 1,000 of 1,005" in lines[0]


async def test_ls_refusals(workspace: Workspace) -> None:
    write(workspace.root / "f.txt", "")
    with pytest.raises(ToolInputError, match="does not exist"):
        await call(LS(), workspace, path="missing")
    with pytest.raises(ToolInputError, match="not a directory"):
        await call(LS(), workspace, path="f.txt")
    with pytest.raises(ToolInputError, match="list of strings"):
        await call(LS(), workspace, ignore=[1])


CHECK_SCENARIOS = [  # (tool, arguments, the file's text or None, read first, changed since)
    (Edit(), {"old_string": "a = 1", "new_string": "a = 2"}, "a = 1\n", True, False),
    (Edit(), {"old_string": "a = 1", "new_string": "a = 2"}, "a = 1\n", False, False),
    (Edit(), {"old_string": "a = 1", "new_string": "a = 2"}, "a = 1\n", True, True),
    (Edit(), {"old_string": "a = 1", "new_string": "a = 2"}, None, False, False),
    (Edit(), {"old_string": "z = 9", "new_string": "z = 0"}, "a = 1\n", True, False),
    (Edit(), {"old_string": "x", "new_string": "y"}, "x\nx\n", True, False),
    (Edit(), {"old_string": "x", "new_string": "x"}, "x\n", True, False),
    (Edit(), {"old_string": "", "new_string": "x"}, "x\n", True, False),
    (Edit(), {"old_string": 3, "new_string": "x"}, "x\n", True, False),
    (Write(), {"content": "new\n"}, "old\n", True, False),
    (Write(), {"content": "new\n"}, "old\n", False, False),
    (Write(), {"content": "new\n"}, "old\n", True, True),
    (Write(), {"content": "new\n"}, None, False, False),
    (Write(), {}, None, False, False),
]


@pytest.mark.parametrize(("tool", "args", "text", "read_first", "changed"), CHECK_SCENARIOS)
async def test_check_fails_exactly_when_the_run_would_and_says_the_same(
        workspace: Workspace, tool: LocalTool, args: dict[str, Any], text: str | None,
        read_first: bool, changed: bool) -> None:
    path = workspace.root / "f.py"
    if text is not None:
        write(path, text)
    if read_first:
        await call(Read(), workspace, file_path="f.py")
    if changed:
        path.write_text(f"{text}# changed by someone else\n")
    before = path.read_bytes() if path.exists() else None
    try:
        tool.check({"file_path": "f.py", **args}, workspace)
    except ToolInputError as checked:
        assert (path.read_bytes() if path.exists() else None) == before  # nothing changed
        with pytest.raises(ToolInputError) as ran:
            await call(tool, workspace, file_path="f.py", **args)
        assert str(ran.value) == str(checked)
    else:
        assert (await call(tool, workspace, file_path="f.py", **args)).ok
