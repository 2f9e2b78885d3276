"""Tool renderers: registry lookup, summaries and bodies (plain text and styles)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.content import Content
from textual.style import Style

from openletta.tools.budget import ReturnBudget
from openletta.tools.output import Capture, seen_by_agent
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import GenericRenderer, register, registered_names, renderer_for
from openletta.ui.renderers.base import (
    ADDED,
    MUTED,
    REMOVED,
    ToolRenderer,
    lines_left_out,
)
from openletta.ui.renderers.bash import BashRenderer, parse_result
from openletta.ui.renderers.conversation_search import ConversationSearchRenderer
from openletta.ui.renderers.edit_file import EditFileRenderer, diff_lines
from openletta.ui.renderers.languages import language_for
from openletta.ui.renderers.memory import MemoryRenderer
from openletta.ui.renderers.read_file import ReadFileRenderer
from openletta.ui.renderers.write_file import WriteFileRenderer, outcome, size_of

NARROW, WIDE = 80, 120


def call(name: str, arguments: dict[str, Any] | str, status: ToolStatus = ToolStatus.SUCCESS,
         result: str | None = None, **fields: Any) -> ToolCallItem:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCallItem(key=f"call:{name}", name=name, arguments_text=text, status=status,
                        result=result, **fields)


def text_of(blocks: list[Content]) -> str:
    return "\n".join(block.plain for block in blocks)


def styles_of_line(blocks: list[Content], needle: str) -> list[str | Style]:
    """Styles of the spans on the first line that contains ``needle``."""
    for block in blocks:
        offset = 0
        for line in block.plain.split("\n"):
            if needle in line:
                end = offset + len(line)
                return [span.style for span in block.spans
                        if span.start < end and span.end > offset]
            offset += len(line) + 1
    raise AssertionError(f"{needle!r} not shown")


# --- registry ------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "renderer"), [
    ("bash", BashRenderer), ("Bash", BashRenderer), ("run_command", BashRenderer),
    ("client_bash", BashRenderer), ("read_file", ReadFileRenderer), ("Read", ReadFileRenderer),
    ("cat", ReadFileRenderer), ("edit_file", EditFileRenderer), ("str_replace", EditFileRenderer),
    ("Edit", EditFileRenderer), ("write_file", WriteFileRenderer), ("Write", WriteFileRenderer),
    ("memory_insert", MemoryRenderer), ("conversation_search", ConversationSearchRenderer),
    ("no_such_tool", GenericRenderer), ("", GenericRenderer),
])
def test_renderer_chosen_by_name_any_case(name: str, renderer: type[ToolRenderer]) -> None:
    assert type(renderer_for(name)) is renderer


def test_a_second_renderer_cannot_claim_a_name() -> None:
    class Impostor(ToolRenderer):
        names = ("BASH",)

    with pytest.raises(ValueError, match=r"(?i)bash"):
        register(Impostor)
    assert type(renderer_for("bash")) is BashRenderer


@pytest.mark.parametrize("name", [*registered_names(), "memory_replace", "unknown"])
@pytest.mark.parametrize("status", list(ToolStatus))
def test_every_renderer_copes_with_every_status_and_odd_arguments(
        name: str, status: ToolStatus) -> None:
    renderer = renderer_for(name)
    for arguments in ({}, {"path": 3, "command": ["x"], "old": None}):
        item = call(name, arguments, status, result="out")
        assert "\n" not in renderer.summary(item)
        for width in (NARROW, WIDE):
            assert all(isinstance(block, Content) for block in renderer.body(item, width))


# --- bash ----------------------------------------------------------------------------------


def test_bash_summary_is_the_first_line_of_the_command() -> None:
    item = call("bash", {"command": "ls -la\necho done"})
    assert BashRenderer().summary(item) == "ls -la…"


def test_bash_shows_command_output_and_success() -> None:
    item = call("bash", {"command": "ls"}, result="\x1b[32mgreen\x1b[0m file\n")
    blocks = BashRenderer().body(item, NARROW)
    assert text_of(blocks) == "$ ls\ngreen file\n✓ done"
    (style,) = styles_of_line(blocks, "green")
    assert isinstance(style, Style) and style.foreground and style.foreground.ansi == 2


@pytest.mark.parametrize(("result", "status", "code", "output"), [
    ("Error executing function bash: RuntimeError: exit code 2: ls: no such file",
     ToolStatus.ERROR, 2, "ls: no such file"),
    ("hello\nExit status: 0", ToolStatus.SUCCESS, 0, "hello\nExit status: 0"),
    ('{"stdout": "out", "stderr": "warn", "exit_code": 1}', ToolStatus.SUCCESS, 1, "out"),
    ("plain output", ToolStatus.SUCCESS, None, "plain output"),
])
def test_bash_exit_status_is_parsed(result: str, status: ToolStatus, code: int | None,
                                    output: str) -> None:
    parsed = parse_result(call("bash", {"command": "x"}, status, result), result)
    assert (parsed.exit_code, parsed.stdout) == (code, output)


def test_bash_failure_shows_exit_code_and_cross() -> None:
    item = call("bash", {"command": "false"}, ToolStatus.ERROR,
                "Error executing function bash: RuntimeError: exit code 1: boom")
    assert text_of(BashRenderer().body(item, NARROW)) == "$ false\nboom\n✗ exit 1"


def test_bash_stderr_is_labelled_and_tinted() -> None:
    item = call("bash", {"command": "make"}, result="ignored", stdout=["built\n"],
                stderr=["warning: x\n"])
    blocks = BashRenderer().body(item, NARROW)
    assert text_of(blocks) == "$ make\nbuilt\nstderr\nwarning: x\n✓ done"
    assert "$text-error" in styles_of_line(blocks, "warning: x")


def test_bash_output_markup_and_escapes_stay_literal() -> None:
    item = call("bash", {"command": "cat x"}, result="[bold]hi[/] \x1b]52;c;SGk=\x07\x1b[2Jok")
    assert text_of(BashRenderer().body(item, NARROW)) == "$ cat x\n[bold]hi[/] ok\n✓ done"


def test_bash_while_running_shows_only_the_command() -> None:
    item = call("bash", {"command": "sleep 5"}, ToolStatus.RUNNING)
    assert text_of(BashRenderer().body(item, NARROW)) == "$ sleep 5"


def test_a_stopped_command_keeps_what_it_printed() -> None:
    item = call("Bash", {"command": "count"}, ToolStatus.CANCELLED, stdout=["line 1\n", "line 2\n"],
                result="Interrupted by the user: the call was stopped before it finished.")
    assert text_of(BashRenderer().body(item, NARROW)).split("\n") == [
        "$ count", "line 1", "line 2", "⊘ stopped before it finished"]


def test_the_agent_s_description_of_a_command_is_a_dim_plain_line_above_it() -> None:
    item = call("Bash", {"command": "seq 3", "description": "Count to [b]3[/b]\x1b[31m"},
                result="Exit code: 0\n1\n2\n3\n", stdout=["1\n2\n3\n"])
    blocks = BashRenderer().body(item, NARROW)
    assert text_of(blocks).split("\n") == ["Count to [b]3[/b]␛[31m", "$ seq 3", "1", "2", "3",
                                            "✓ exit 0"]
    assert styles_of_line(blocks, "Count to") == [MUTED]
    blank = call("Bash", {"command": "seq 3", "description": "  "}, ToolStatus.RUNNING)
    assert text_of(BashRenderer().body(blank, NARROW)) == "$ seq 3"


def test_a_command_card_says_when_the_agent_got_less_of_the_output_than_it_shows() -> None:
    told = Capture()
    told.add("".join(f"{n}\n" for n in range(1, 20_001)))
    result = told.told("Exit code: 3", ReturnBudget(4_800))
    item = call("Bash", {"command": "seq 20000; exit 3"}, ToolStatus.ERROR, result,
                stdout=[told.text()])
    lines = text_of(BashRenderer().body(item, NARROW)).split("\n")
    seen = seen_by_agent(result)
    assert seen is not None and seen.endswith(" of 20,000 lines")
    assert lines[:3] == ["$ seq 20000; exit 3", f"⚠ the agent saw only the {seen} (its context "
                         "window holds no more)", "1"]
    assert lines[-1] == "✗ exit 3"
    whole = call("Bash", {"command": "seq 2"}, result="Exit code: 0\n1\n2\n", stdout=["1\n2\n"])
    assert "agent saw" not in text_of(BashRenderer().body(whole, NARROW))


def huge_output_call(*, with_stdout: bool) -> ToolCallItem:
    """The QA case: ``seq 1 300000; echo done; exit 3``, told to a small window; with the
    output the user's copy kept, or (as a server may keep it) only what the agent was told."""
    capture = Capture()
    capture.add("".join(f"{n}\n" for n in range(1, 300_001)) + "done\n")
    result = capture.told("Exit code: 3", ReturnBudget(20_000))
    return call("Bash", {"command": "seq 1 300000; echo done; exit 3"}, ToolStatus.ERROR,
                result, stdout=[capture.text()] if with_stdout else [])


@pytest.mark.parametrize("with_stdout", [True, False])
def test_a_huge_output_shows_its_first_and_last_lines_and_how_many_lie_between(
        with_stdout: bool) -> None:
    blocks = BashRenderer().body(huge_output_call(with_stdout=with_stdout), NARROW)
    lines = text_of(blocks).split("\n")
    gap = lines.index("… 299,601 lines not shown …")
    assert lines[2:gap] == [str(n) for n in range(1, 201)]
    assert lines[gap + 1:] == [*map(str, range(299_802, 300_001)), "done", "✗ exit 3"]
    assert lines_left_out(blocks) == 299_600  # (the note takes a line itself)


def test_a_long_output_shows_its_end_too_and_a_little_over_the_limit_shows_whole() -> None:
    long = call("Bash", {"command": "seq 1000"}, result="".join(f"{n}\n" for n in range(1, 1001)))
    lines = text_of(BashRenderer().body(long, NARROW)).split("\n")
    assert lines[200:203] == ["200", "… 600 lines not shown …", "801"]
    assert lines[-2:] == ["1000", "✓ done"]
    over = call("Bash", {"command": "seq 405"}, result="".join(f"{n}\n" for n in range(1, 406)))
    assert text_of(BashRenderer().body(over, NARROW)).split("\n")[1:] == [
        *map(str, range(1, 406)), "✓ done"]


def test_the_agents_description_of_a_command_the_user_edited_says_it_was_the_agents() -> None:
    item = call("Bash", {"command": "seq 2", "description": "Count to 3"}, result="1\n2\n",
                edited=True)
    assert text_of(BashRenderer().body(item, NARROW)).split("\n")[0] == (
        "agent: Count to 3 (before your edit)")


# --- read_file -----------------------------------------------------------------------------


def test_a_read_cut_to_fit_the_window_shows_its_note_first_then_the_numbered_lines() -> None:
    result = ("[Showing lines 41–42 of 900, as many as fit in your context window. Use "
              "offset=43 to read on.]\n\n    41\tx\n    42\ty")
    blocks = ReadFileRenderer().body(call("Read", {"file_path": "a.txt", "offset": 41},
                                          result=result), NARROW)
    assert text_of(blocks).split("\n") == [result.split("\n")[0], "41 │ x", "42 │ y"]


@pytest.mark.parametrize(("path", "language"), [
    ("/src/app.py", "python"), ("main.rs", "rust"), ("Makefile", "make"),
    ("notes.unknownext", "text"), (None, "text"),
])
def test_language_from_the_extension(path: str | None, language: str) -> None:
    assert language_for(path) == language


def test_read_file_shows_numbered_highlighted_content() -> None:
    item = call("read_file", {"path": "/p/hello.py"}, result="def f():\n    return 1\n")
    renderer = ReadFileRenderer()
    blocks = renderer.body(item, NARROW)
    assert renderer.summary(item) == "/p/hello.py"
    assert text_of(blocks) == "1 │ def f():\n2 │     return 1"
    assert "$text-accent" in styles_of_line(blocks, "def f")  # the keyword is highlighted


def test_read_file_numbers_from_an_offset() -> None:
    item = call("read_file", {"path": "a.txt", "offset": 41}, result="x\ny")
    assert text_of(ReadFileRenderer().body(item, NARROW)) == "41 │ x\n42 │ y"


def test_a_lone_carriage_return_stays_in_its_line_so_the_numbers_are_the_file_s() -> None:
    output = "     1\tline1\n     2\tclear\rOVER\n     3\t\x1b[2Jevil\n     4\tTAB\there"
    item = call("Read", {"file_path": "evil.txt"}, result=output)
    assert text_of(ReadFileRenderer().body(item, NARROW)).split("\n") == [
        "1 │ line1", "2 │ clear␍OVER", "3 │ ␛[2Jevil", "4 │ TAB\there"]


def test_read_file_error_shows_the_message() -> None:
    item = call("read_file", {"path": "/nope"}, ToolStatus.ERROR,
                "Error executing function read_file: FileNotFoundError: [Errno 2] No such file")
    assert text_of(ReadFileRenderer().body(item, NARROW)) == "[Errno 2] No such file"


def test_a_failed_call_shows_its_traceback_after_the_error() -> None:
    item = call("read_file", {"path": "/nope"}, ToolStatus.ERROR,
                "Error executing function read_file: FileNotFoundError: [Errno 2] No such file")
    item.stderr = ["Traceback (most recent call last):\n", '  File "x.py", line 1\n']
    for renderer in (ReadFileRenderer(), GenericRenderer()):
        shown = text_of(renderer.body(item, NARROW))
        assert shown.endswith('[Errno 2] No such file\nstderr\nTraceback (most recent call '
                              'last):\n  File "x.py", line 1')


# --- edit_file -----------------------------------------------------------------------------


def test_diff_lines_number_old_and_new() -> None:
    (hunk,) = diff_lines("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(row.tag, row.text, row.old_number, row.new_number) for row in hunk] == [
        (" ", "a", 1, 1), ("-", "b", 2, None), ("+", "B", None, 2), (" ", "c", 3, 3),
        ("+", "d", None, 4),
    ]


@pytest.mark.parametrize(("old_key", "new_key"), [
    ("old", "new"), ("old_string", "new_string"), ("old_str", "new_str"),
])
def test_edit_shows_a_unified_diff_whatever_the_argument_names(old_key: str,
                                                               new_key: str) -> None:
    item = call("edit_file", {"path": "a.py", old_key: "x = 1\ny = 2\n",
                              new_key: "x = 1\ny = 3\n"}, result="edited a.py")
    renderer = EditFileRenderer()
    blocks = renderer.body(item, NARROW)
    assert renderer.summary(item) == "a.py  +1 −1"
    # A snippet's lines are not the file's: no line numbers.
    assert text_of(blocks) == "  x = 1\n- y = 2\n+ y = 3\nedited a.py"
    assert REMOVED in styles_of_line(blocks, "- y = 2")
    assert ADDED in styles_of_line(blocks, "+ y = 3")


def test_edit_is_side_by_side_when_wide() -> None:
    item = call("edit", {"file_path": "a.py", "old_string": "keep\nold line",
                         "new_string": "keep\nnew line"}, ToolStatus.AWAITING_APPROVAL)
    lines = text_of(EditFileRenderer().body(item, WIDE)).split("\n")
    assert len(lines) == 2
    assert lines[0].startswith("keep") and "│ keep" in lines[0]
    assert lines[1].startswith("old line") and lines[1].rstrip().endswith("│ new line")
    assert len(lines[1]) <= WIDE and lines[0].index("│") == lines[1].index("│")


def test_a_whole_new_file_is_numbered() -> None:
    item = call("edit_file", {"path": "a.py", "old": "", "new": "x = 1\ny = 2\n"})
    assert text_of(EditFileRenderer().body(item, NARROW)).split("\n") == [
        "  1 + x = 1", "  2 + y = 2"]


def test_edit_separates_distant_hunks() -> None:
    old = "\n".join(f"line {n}" for n in range(1, 21))
    new = old.replace("line 2\n", "line two\n").replace("line 19", "line nineteen")
    text = text_of(EditFileRenderer().body(call("edit_file", {"old": old, "new": new}), NARROW))
    assert "⋯" in text
    assert "line 10" not in text  # far from both changes


def test_a_patch_is_shown_as_any_edit_is_numbered_by_the_files_lines() -> None:
    item = call("apply_patch", {"input": "@@ -1 +1 @@\n-old\n+new"})
    blocks = EditFileRenderer().body(item, NARROW)
    assert text_of(blocks) == "1   - old\n  1 + new"
    assert ADDED in styles_of_line(blocks, "+ new")
    local = call("Edit", {"file_path": "a.py", "old_string": "b", "new_string": "c"},
                 ToolStatus.AWAITING_APPROVAL)
    local.preview = "--- a/a.py\n+++ b/a.py\n@@ -40,3 +40,3 @@\n a\n-b\n+c\n d\n"
    assert text_of(EditFileRenderer().body(local, NARROW)).split("\n") == [
        "40 40   a", "41    - b", "   41 + c", "42 42   d"]
    wide = text_of(EditFileRenderer().body(local, WIDE)).split("\n")
    assert wide[1].startswith("41 b") and wide[1].rstrip().endswith("│ 41 c")


def test_a_denied_edit_shows_the_diff_its_approval_prompt_showed() -> None:
    local = call("Edit", {"file_path": "a.py", "old_string": "b", "new_string": "c"},
                 ToolStatus.AWAITING_APPROVAL)
    local.preview = "--- a/a.py\n+++ b/a.py\n@@ -40,3 +40,3 @@\n a\n-b\n+c\n d\n"
    asked = text_of(EditFileRenderer().body(local, NARROW))
    local.status = ToolStatus.DENIED
    assert text_of(EditFileRenderer().body(local, NARROW)).split("\n") == [
        "Not changed. The edit it would have made:", *asked.split("\n")]


def test_what_is_not_a_unified_diff_is_coloured_line_by_line() -> None:
    item = call("apply_patch", {"patch": "*** Begin Patch\n+new\n-old"})
    blocks = EditFileRenderer().body(item, NARROW)
    assert text_of(blocks) == "*** Begin Patch\n+new\n-old"
    assert "$text-success" in styles_of_line(blocks, "+new")


# --- write_file ----------------------------------------------------------------------------


def test_size_counts_bytes_and_lines() -> None:
    assert size_of("héllo\nworld\n") == "13 bytes, 2 lines"
    assert size_of("x") == "1 byte, 1 line"
    assert size_of("") == "0 bytes, 0 lines"


@pytest.mark.parametrize(("result", "expected"), [
    ("Created file /a.txt", "created"), ("overwrote /a.txt", "overwritten"),
    ("File overwritten", "overwritten"), ("wrote 26 bytes to /a.txt", None),
])
def test_write_outcome_from_the_result(result: str, expected: str | None) -> None:
    assert outcome(result) == expected


def test_write_file_shows_path_size_and_a_preview() -> None:
    content = "".join(f"print({n})\n" for n in range(30))
    item = call("write_file", {"path": "/p/gen.py", "content": content},
                result="Created /p/gen.py")
    renderer = WriteFileRenderer()
    lines = text_of(renderer.body(item, NARROW)).split("\n")
    assert renderer.summary(item) == "/p/gen.py (290 bytes, 30 lines)"
    assert lines[0] == "✓ created"
    assert lines[1] == " 1 │ print(0)"
    assert lines[20] == "20 │ print(19)"
    assert lines[21] == "… 10 more lines not shown"


def test_a_local_write_says_whether_it_creates_or_replaces_the_file() -> None:
    arguments = {"file_path": "new.txt", "content": "hello from the agent, here\n"}
    renderer = WriteFileRenderer()
    added = "@@ -0,0 +1 @@\n+hello from the agent, here\n"
    new = call("Write", arguments, ToolStatus.AWAITING_APPROVAL,
               preview=f"--- /dev/null\n+++ b/new.txt\n{added}")
    assert renderer.summary(new) == "new.txt (creates it: 27 bytes, 1 line)"
    existing = call("Write", arguments, ToolStatus.AWAITING_APPROVAL,
                    preview="--- a/new.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-hi\n+hello\n")
    assert renderer.summary(existing) == "new.txt (replaces it: 27 bytes, 1 line)"
    existing.preview = ""  # the same content as on disk: still the file there
    assert renderer.summary(existing) == "new.txt (replaces it: 27 bytes, 1 line)"
    unknown = call("Write", arguments)  # not previewed (the server's, or read from history)
    assert renderer.summary(unknown) == "new.txt (27 bytes, 1 line)"


# --- generic -------------------------------------------------------------------------------


def test_generic_summary_lists_arguments() -> None:
    item = call("memory_replace", {"label": "human", "old_string": "Alice", "new_string": "Bob"})
    assert GenericRenderer().summary(item) == (
        'label="human", old_string="Alice", new_string="Bob"')


def test_generic_pretty_prints_json_arguments_and_result() -> None:
    item = call("conversation_search", {"query": "x", "limit": 2},
                result='{"results": [1, 2]}')
    assert text_of(GenericRenderer().body(item, NARROW)) == (
        'arguments\n{\n  "query": "x",\n  "limit": 2\n}\n'
        'result\n{\n  "results": [\n    1,\n    2\n  ]\n}')


def test_generic_plain_result_stays_literal() -> None:
    item = call("memory_insert", {"label": "human"}, result="None [red]x[/]")
    assert text_of(GenericRenderer().body(item, NARROW)).endswith("result\nNone [red]x[/]")


def test_generic_error_result() -> None:
    item = call("t", {}, ToolStatus.ERROR, "Error executing function t: ValueError: bad")
    assert text_of(GenericRenderer().body(item, NARROW)) == "result\nbad"


@pytest.mark.parametrize("name", ["LS", "Glob", "Grep"])
def test_a_listing_shows_escapes_in_names_and_applies_none(name: str) -> None:
    """A file named ``evil<ESC>[31m.txt`` is listed as such, not as ``evil.txt`` partly red:
    paths and lines of files are not a terminal's output."""
    item = call(name, {"path": "."}, result="evil\x1b[31m.txt\nnotes.md\n")
    blocks = renderer_for(name).body(item, NARROW)
    assert "evil␛[31m.txt\nnotes.md" in text_of(blocks)
    assert styles_of_line(blocks, "notes.md") == styles_of_line(blocks, "evil")
