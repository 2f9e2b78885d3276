"""The messages sent, kept across runs for ↑: only the newest, not twice in a row, in a
private file; a broken file costs only the recall."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from openletta import recall
from openletta.recall import (
    KEPT,
    PROMPTS_KEPT,
    CallsRunHere,
    Drafts,
    LastConversations,
    PromptsLeft,
    SentMessages,
)


def test_messages_are_kept_across_runs_in_a_private_file(tmp_path: Path) -> None:
    path = tmp_path / "config" / "sent.jsonl"
    sent = SentMessages(path)
    for text in ("hello", "two\nlines ünïcode", "two\nlines ünïcode", "hello"):
        sent.add(text)
    assert sent.entries == ["hello", "two\nlines ünïcode", "hello"]
    assert SentMessages(path).entries == sent.entries  # the next run
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_text().splitlines()) == 3  # one line each


def test_only_the_newest_are_kept(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(recall, "KEPT", 3)
    path = tmp_path / "sent.jsonl"
    sent = SentMessages(path)
    for number in range(7):
        sent.add(f"message {number}")
    assert sent.entries[-3:] == ["message 4", "message 5", "message 6"]
    assert len(path.read_text().splitlines()) <= 2 * 3
    again = SentMessages(path)
    assert again.entries == ["message 4", "message 5", "message 6"]


def test_a_long_file_from_many_runs_is_cut_down_when_read(tmp_path: Path) -> None:
    path = tmp_path / "sent.jsonl"
    path.write_text("".join(json.dumps(f"m{number}") + "\n" for number in range(3 * KEPT)))
    sent = SentMessages(path)
    assert len(sent.entries) == KEPT and sent.entries[-1] == f"m{3 * KEPT - 1}"
    assert len(path.read_text().splitlines()) == KEPT


def test_a_broken_file_costs_only_the_recall(tmp_path: Path) -> None:
    path = tmp_path / "sent.jsonl"
    path.write_bytes(b'"ok"\nnot json\n[1, 2]\n""\n"\xff\xfe"\n"kept"')
    assert SentMessages(path).entries == ["ok", "kept"]  # a line not UTF-8 is skipped alone
    path.write_text('"ok"\nnot json\n[1, 2]\n""\n"fine"\n')
    assert SentMessages(path).entries == ["ok", "fine"]
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    unwritable = SentMessages(blocked / "sent.jsonl")  # its directory is a file
    unwritable.add("still recalled this run")
    assert unwritable.entries == ["still recalled this run"]


def test_drafts_are_kept_by_server_agent_and_conversation_in_a_private_file(
        tmp_path: Path) -> None:
    path = tmp_path / "drafts.json"
    here = Drafts("http://here", path)
    here.keep("agent-1", None, "default thread draft")
    here.keep("agent-1", "conv-1", "side draft")
    assert here.save() is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert Drafts("http://there", path).take("agent-1", None) == ""  # another server's
    again = Drafts("http://here", path)
    assert again.take("agent-1", "conv-1") == "side draft"
    assert again.take("agent-1", "conv-1") == ""  # taken: it is in the prompt now…
    assert Drafts("http://here", path).take("agent-1", "conv-1") == ""  # …and not on disk
    assert Drafts("http://here", path).take("agent-1", None) == "default thread draft"
    assert not path.exists()  # nothing left: no file


def test_two_runs_at_once_keep_each_others_drafts(tmp_path: Path) -> None:
    path = tmp_path / "drafts.json"
    first, second = Drafts("http://here", path), Drafts("http://here", path)
    first.keep("agent-1", None, "typed in the first window")
    first.save()
    second.keep("agent-1", "conv-2", "typed in the second")
    second.save()  # quits last: it changes its own draft only
    third = Drafts("http://here", path)
    assert third.take("agent-1", None) == "typed in the first window"
    assert third.take("agent-1", "conv-2") == "typed in the second"


def test_a_draft_that_cannot_be_written_is_said_and_kept_for_printing(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    drafts = Drafts("http://here", blocker / "drafts.json")  # its folder is a file
    drafts.keep("agent-1", None, "do not lose me")
    assert isinstance(drafts.save(), OSError)
    assert drafts.kept == ["do not lose me"]


def test_a_broken_drafts_file_costs_only_the_drafts(tmp_path: Path) -> None:
    path = tmp_path / "drafts.json"
    for content in ("{not json", "[1, 2]", json.dumps({"key": 5})):
        path.write_text(content)
        assert Drafts("http://here", path).take("agent-1", None) == ""
    assert Drafts("http://here", None).take("agent-1", None) == ""  # kept in memory only


def test_the_messages_of_replies_left_are_kept_by_run_the_newest_few(tmp_path: Path) -> None:
    path = tmp_path / "replies-left.json"
    first, other = PromptsLeft(path), PromptsLeft(path)
    for number in range(PROMPTS_KEPT + 3):
        first.keep(f"run-{number}", f"message {number}")
    first.save()
    other.keep("run-other", "from another window")
    other.save()  # it adds its own, the others stay
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = PromptsLeft(path)
    assert again.take("run-0") == ""  # the oldest went: a reply ends soon
    assert again.take("run-other") == "from another window"
    assert again.take(f"run-{PROMPTS_KEPT + 2}") == f"message {PROMPTS_KEPT + 2}"
    assert PromptsLeft(path).take(f"run-{PROMPTS_KEPT + 2}") == ""  # taken: off the disk
    assert len(json.loads(path.read_text())) == PROMPTS_KEPT - 2  # (both taken are gone)


def test_the_last_conversation_of_each_agent_is_kept_for_the_next_run(tmp_path: Path) -> None:
    path = tmp_path / "last-conversations.json"
    here = LastConversations("http://here", path)
    here.opened("agent-1", "conv-1")
    here.opened("agent-2", "conv-2")
    here.opened("agent-2", None)  # its default thread: nothing to remember
    assert here.save() is None
    again = LastConversations("http://here", path)
    assert (again.of("agent-1"), again.of("agent-2")) == ("conv-1", None)
    assert again.of("agent-1") == "conv-1"  # (read, not taken)
    assert LastConversations("http://there", path).of("agent-1") is None  # another server's


def test_the_calls_run_here_are_known_in_the_next_run_of_this_server_only(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(recall, "CALLS_KEPT", 3)
    path = tmp_path / "config" / "calls.json"
    here = CallsRunHere("http://here", path)
    here.ran({"call-1": "Bash"})
    here.ran({"call-2": "Write", "call-3": "Read"})
    here.ran({})
    other = CallsRunHere("http://there", path)
    other.ran({"call-9": "Bash"})  # another server's, in the same file
    again = CallsRunHere("http://here", path)
    assert [call in again for call in ("call-1", "call-2", "call-3", "call-9", None)] == [
        False, True, True, False, False]  # the oldest went; call-9 is another server's
    assert "call-9" in CallsRunHere("http://there", path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "call-2" not in CallsRunHere("http://here")  # kept nowhere: the demo's
