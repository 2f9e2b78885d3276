"""What a local call returns reaches the agent whole: each tool fits its result to the budget
of the agent's context window, its notes (exit code, where to read on) first, as Letta 0.16.8
would otherwise cut the end of it."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openletta.tools.base import Workspace
from openletta.tools.bash import Bash
from openletta.tools.budget import ReturnBudget, sent_length
from openletta.tools.files import Read
from openletta.tools.grep import Grep
from openletta.tools.output import Capture, gap_in, seen_by_agent
from openletta.tools.search import LS, Glob

#: The scripted model's context window on the QA server.
WINDOW = 30_000
LETTA_TIME = "2025-11-27 05:13:00 PM CEST+0200"


def what_letta_keeps(tool_return: str, context_window: int, *, ok: bool) -> str:
    """The tool return as the model reads it after Letta 0.16.8's two cuts: the stored
    ``message`` (``letta_agent_v3.py``), then the JSON it is wrapped in, when the request is
    built (``schemas/message.py``). Raises when the JSON was cut (the model reads it broken)."""
    cap = max(5000, int(context_window * 0.2 * 4))
    packed = {"status": "OK" if ok else "Failed", "message": tool_return, "time": LETTA_TIME}
    wrapped = json.dumps(packed, indent=2, ensure_ascii=False)
    if len(tool_return) > cap:
        packed["message"] = f"{tool_return[:cap]}... [truncated {len(tool_return) - cap} chars]"
        wrapped = json.dumps(packed)
    if len(wrapped) > cap:
        wrapped = f"{wrapped[:cap]}... [truncated {len(wrapped) - cap} chars]"
    return str(json.loads(wrapped)["message"])


def run_tool(tool, root: Path, window: int, **args) -> str:  # type: ignore[no-untyped-def]
    outcome = asyncio.run(tool.run(args, Workspace(root), lambda _: None,
                                   ReturnBudget.for_window(window)))
    return str(outcome.text)


def test_the_budget_is_letta_s_cap_less_room_for_its_wrapping() -> None:
    assert ReturnBudget.for_window(WINDOW).chars == 24_000 - 200
    assert ReturnBudget.for_window(None) == ReturnBudget.for_window(1000) == ReturnBudget(4800)
    assert sent_length('a"b\\c\nd\te\x1b') == 10 + 4 + 5  # as JSON escapes them


async def test_a_huge_failing_command_keeps_its_exit_code_note_and_last_lines(
        tmp_path: Path) -> None:
    """The QA case: 300,000 lines, the error on stderr last, exit 3, a 30k window."""
    command = "seq 1 300000; echo FAILED: 3 tests broke >&2; exit 3"
    outcome = await Bash().run({"command": command}, Workspace(tmp_path), lambda _: None,
                               ReturnBudget.for_window(WINDOW))
    assert what_letta_keeps(outcome.text, WINDOW, ok=False) == outcome.text  # nothing cut
    lead, note, *rest = outcome.text.split("\n")
    assert lead == "Exit code: 3"
    seen = seen_by_agent(outcome.text)
    match = re.fullmatch(r"first ([\d,]+) and last ([\d,]+) of 300,001 lines", seen or "")
    assert match is not None and note.startswith("[Output too long")
    first, last = (int(number.replace(",", "")) for number in match.groups())
    gap = rest.index(f"[… {300_001 - first - last:,} lines cut …]")
    assert rest[:gap] == [str(n) for n in range(1, first + 1)]
    assert rest[gap + 1:] == [*map(str, range(300_001 - last + 1, 300_001)),
                              "FAILED: 3 tests broke", ""]
    assert first > 1000 and last > first  # the end, where errors are, has the most room
    # The user's card keeps 15,000 characters of each end, as before.
    assert outcome.stdout is not None and outcome.stdout[0].endswith("FAILED: 3 tests broke\n")


@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(st.text(max_size=120), max_size=12), times=st.integers(1, 1500),
       window=st.integers(0, 120_000), code=st.integers(-255, 255))
def test_any_output_told_to_any_window_reaches_the_agent_whole(
        pieces: list[str], times: int, window: int, code: int) -> None:
    capture = Capture()
    for _ in range(times):
        for piece in pieces:
            capture.add(piece)
    lead = f"Exit code: {code}"
    told = capture.told(lead, ReturnBudget.for_window(window))
    assert what_letta_keeps(told, window, ok=code == 0) == told
    whole = capture.text()
    if not whole:
        assert told == lead
    elif told != f"{lead}\n{whole}":  # cut: the exit code and the note come first
        assert told.startswith(f"{lead}\n[Output too long for your context window: you get")
        assert seen_by_agent(told) is not None


_LINE = st.text(st.characters(blacklist_characters="\n\r\x00", codec="utf-8"), max_size=300)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lines=st.lists(_LINE, min_size=1, max_size=300), copies=st.integers(1, 20),
       window=st.integers(0, 60_000), offset=st.integers(1, 50))
def test_a_read_reaches_the_agent_whole_with_where_to_read_on_first(
        lines: list[str], copies: int, window: int, offset: int) -> None:
    lines = lines * copies
    offset = min(offset, len(lines))
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "f.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        told = run_tool(Read(), Path(folder), window, file_path="f.txt", offset=offset)
    assert what_letta_keeps(told, window, ok=True) == told
    note = re.match(r"\[Showing lines ([\d,]+)–([\d,]+) of ([\d,]+)(, as many as fit in your "
                    r"context window)?\.(?: Use offset=(\d+) to read on\.)?\]\n\n", told)
    numbered = told[note.end():] if note else told
    shown = [int(line.split("\t")[0]) for line in numbered.split("\n")]
    assert shown == list(range(offset, offset + len(shown)))  # a page, from the offset
    last = offset + len(shown) - 1
    if note is None:
        assert last == len(lines)
    else:
        assert note[3].replace(",", "") == str(len(lines))
        assert int(note[2].replace(",", "")) == last
        assert note[5] == (str(last + 1) if last < len(lines) else None)


def test_the_qa_read_of_a_200_000_line_file_says_where_to_read_on_first(
        tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"line {n} lorem ipsum dolor sit amet\n"
                                              for n in range(1, 200_001)))
    told = run_tool(Read(), tmp_path, WINDOW, file_path="big.txt")
    assert what_letta_keeps(told, WINDOW, ok=True) == told
    note, _, first, *_, last = told.split("\n")
    shown = int(last.split("\t")[0])
    assert note == (f"[Showing lines 1–{shown} of 200,000, as many as fit in your context "
                    f"window. Use offset={shown + 1} to read on.]")
    assert first == "     1\tline 1 lorem ipsum dolor sit amet" and shown > 400


def test_searches_and_listings_reach_the_agent_whole_with_their_note_first(
        tmp_path: Path) -> None:
    for n in range(300):
        (tmp_path / f"{'a-rather-long-file-name-' * 3}{n:03}.txt").write_text("needle\n" * 40)
    window = 1000  # Letta's smallest cap
    listing = run_tool(LS(), tmp_path, window)
    found = run_tool(Glob(), tmp_path, window, pattern="*.txt")
    lines = run_tool(Grep(use_ripgrep=False), tmp_path, window, pattern="needle",
                     output_mode="content", head_limit=0)
    for told in (listing, found, lines):
        assert what_letta_keeps(told, window, ok=True) == told
        assert "as many as fit in your context window" in told.split("\n")[0]
    assert listing.split("\n")[2] == f"{tmp_path}/"
    assert re.match(r"\[Showing lines 1–([\d,]+) of 12,000, as many as fit in your context "
                    r"window\. Use offset=\1 to see more\.\]", lines)


def test_a_cut_output_kept_for_the_user_says_how_many_whole_lines_were_cut() -> None:
    """The user's copy keeps whole lines at both ends, and the line between them counts the
    output's lines it leaves out (not characters), so a card can say the true total."""
    capture = Capture()
    for number in range(1, 300_001):
        capture.add(f"{number}\n")
    capture.add("done\n")
    gap = gap_in(capture.text())
    assert gap is not None and gap.unit == "lines"
    head, tail = gap.before.split("\n")[:-1], gap.after.split("\n")[:-1]
    assert head == [str(n) for n in range(1, len(head) + 1)]
    assert tail[-2:] == ["300000", "done"] and tail[0] == str(300_001 - len(tail) + 1)
    assert len(head) + gap.cut + len(tail) == 300_001
