"""What was said in a run, printed into the terminal as openletta exits."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pytest
from chat_helpers import open_chat
from rich.console import Console

from openletta.api.client import LettaClient
from openletta.api.messages import AssistantMessage, ToolReturnMessage, parse_message
from openletta.api.resources import Agent
from openletta.api.sse import parse_sse_text
from openletta.chat.session import ChatSession
from openletta.config import ResumeHint, Server
from openletta.replay import render_item
from openletta.settings import Settings
from openletta.tools.budget import ReturnBudget
from openletta.tools.output import Capture, seen_by_agent
from openletta.transcript import EventItem, ReasoningItem, ToolCallItem, ToolStatus, UserItem
from openletta.transcript.items import COMPACTION_SUMMARY
from openletta.transcript.packed import SUMMARY_FOLLOWS
from openletta.ui import launch, printout
from openletta.ui.app import OpenLettaApp
from openletta.ui.printout import RESULT_LINES, ChatsOfThisRun, print_chats

FIXTURES = Path(__file__).parent.parent / "fixtures"


def session(name: str = "helper", conversation: str | None = None, *,
            history: bool = True) -> ChatSession:
    """A chat whose history (the captured default page) is loaded; nothing is sent."""
    chat = ChatSession(LettaClient("http://127.0.0.1:9"), Agent(id="agent-1", name=name),
                       conversation)
    if history:
        page = json.loads((FIXTURES / "agent_messages_default.json").read_text())
        chat.transcript.load_history([parse_message(entry) for entry in page])
    return chat


def say(chat: ChatSession, text: str, capture: str = "hello_tokens.sse") -> None:
    """Send ``text`` and feed the captured reply."""
    chat.transcript.add_user(text)
    chat.transcript.feed_all(parse_sse_text((FIXTURES / capture).read_text()).messages)


def printed(chats: ChatsOfThisRun) -> str:
    out = io.StringIO()
    print_chats(chats.said(), Console(file=out, width=100, force_terminal=True))
    return out.getvalue()


def test_only_what_was_said_in_this_run_is_printed_under_the_chats_title() -> None:
    chats, chat = ChatsOfThisRun(), session()
    chats.opened(chat)
    history = [item.text for item in chat.transcript.items if isinstance(item, UserItem)]
    assert history and chats.said() == []  # history alone is not printed
    say(chat, "first of this run")
    say(chat, "second of this run")
    (title, (items,), _), = chats.said()
    assert title == "helper · default thread"
    assert items[0] is chat.transcript.first_sent
    texts = [item.text for item in items if isinstance(item, UserItem)]
    assert texts == ["first of this run", "second of this run"]
    shown = printed(chats)
    assert "helper · default thread" in shown and "first of this run" in shown
    assert not any(text in shown for text in history)
    assert shown.count("tokens") == 2  # each turn's footer line


def test_a_chat_left_before_its_turn_ended_says_so() -> None:
    chats, chat = ChatsOfThisRun(), session()
    chats.opened(chat)
    say(chat, "finished")
    assert "left before" not in printed(chats)
    chat.transcript.add_user("cut off")
    chunks = parse_sse_text((FIXTURES / "hello_tokens.sse").read_text()).messages
    chat.transcript.feed_all(chunks[:5])  # the chat was left while the reply streamed
    shown = re.sub(r"\x1b\[[0-9;]*m", "", printed(chats))
    assert shown.rstrip().endswith(
        "… left before the turn ended: what the agent did after that is in the conversation.")
    waiting = session(history=False)
    chats.opened(waiting)
    say(waiting, "run it", "approval_request_tokens.sse")
    assert "… waiting for your approval" in printed(chats)


def test_chats_in_which_nothing_was_said_are_forgotten() -> None:
    chats = ChatsOfThisRun()
    browsed, talked, last = session("browsed"), session("talked", "conv-9"), session("last")
    chats.opened(browsed)
    chats.opened(talked)
    say(talked, "hello")
    chats.opened(last)
    assert chats._sessions == [talked, last]  # what was only browsed is let go
    assert [title for title, *_ in chats.said()] == ["talked · “hello” · conv-9"]


def test_a_conversation_opened_again_is_printed_once_with_each_visit_in_order() -> None:
    chats = ChatsOfThisRun()
    first, other = session("helper", "conv-1"), session("helper", "conv-2")
    chats.opened(first)
    say(first, "on the first visit")
    chats.opened(other)
    say(other, "elsewhere")
    again = session("helper", "conv-1")  # the same conversation, opened anew
    chats.opened(again)
    say(again, "on the second visit")
    assert [(title, len(visits)) for title, visits, _ in chats.said()] == [
        ("helper · “hello” · conv-1", 2), ("helper · “hello” · conv-2", 1)]
    shown = printed(chats)
    assert shown.count("helper · “hello” · conv-1") == 1
    assert shown.index("on the first visit") < shown.index("on the second visit") \
        < shown.index("helper · “hello” · conv-2")


def test_a_conversation_renamed_on_a_later_visit_is_printed_under_its_new_name() -> None:
    chats = ChatsOfThisRun()
    first = session("helper", "conv-1")
    first.conversation_name = "mu"
    chats.opened(first)
    say(first, "hello mu")
    chats.opened(session("helper", "conv-2"))
    again = session("helper", "conv-1")  # back, and renamed without a word sent
    again.conversation_name = "mu"
    chats.opened(again)
    again.conversation_name = "nu"
    assert [title for title, *_ in chats.said()] == ["helper · nu"]
    chats.opened(session("helper", "conv-3"))  # and left again
    assert [title for title, *_ in chats.said()] == ["helper · nu"]


UNNAMED = "conv-3d560979-bd3b-4c82-920f-8831a46de7ca"


def test_a_conversation_without_a_name_is_titled_by_its_first_message_not_its_id() -> None:
    chats, chat = ChatsOfThisRun(), session("helper", UNNAMED, history=False)
    chats.opened(chat)
    say(chat, "please look at the flaky build on main before the release tomorrow")
    say(chat, "and then the docs")
    (title, _, _), = chats.said()
    assert title == "helper · “please look at the flaky build on main before…” · conv-3d560979"
    assert UNNAMED not in printed(chats)
    assert chats.first_messages() == {
        UNNAMED: "please look at the flaky build on main before the release tomorrow"}
    chat.has_more_history = True  # its first message is older than what is loaded
    assert [title for title, *_ in chats.said()] == ["helper · New conversation · conv-3d560979"]


def test_a_long_message_of_the_users_is_cut_like_a_tool_result() -> None:
    chats, chat = ChatsOfThisRun(), session(history=False)
    chats.opened(chat)
    say(chat, "\n".join(f"pasted line {n}" for n in range(1, 2001)))
    shown = printed(chats)
    assert f"pasted line {RESULT_LINES}" in shown
    assert f"pasted line {RESULT_LINES + 1}\n" not in shown
    assert f"… {2000 - RESULT_LINES:,} more lines not shown" in shown


def test_a_long_tool_result_is_cut_and_server_text_cannot_reach_the_terminal() -> None:
    chats, chat = ChatsOfThisRun(), session(history=False)
    chats.opened(chat)
    say(chat, "run it", "approval_request_tokens.sse")
    call = next(iter(chat.transcript._calls))
    output = "\n".join(f"line {number}" for number in range(1, 51))
    chat.transcript.feed(ToolReturnMessage.model_validate({
        "id": "message-r", "message_type": "tool_return_message",
        "tool_returns": [{"tool_call_id": call, "status": "success", "tool_return": output}]}))
    chat.transcript.feed(AssistantMessage(id="message-a", content="\x1b]0;pwned\x07done \x1b[2J"))
    shown = printed(chats)
    half = RESULT_LINES // 2
    assert f"line {half}" in shown and f"line {half + 1}\n" not in shown  # its first lines,
    assert f"… {50 - RESULT_LINES} lines not shown …" in shown  # how many between,
    assert f"line {50 - half}\n" not in shown and f"line {50 - half + 1}" in shown  # its last
    assert "done" in shown and "\x1b]0;" not in shown and "\x1b[2J" not in shown


def test_a_huge_command_output_is_printed_by_its_ends_with_the_true_count_between() -> None:
    """``seq 1 300000; echo done; exit 3``, of which the agent saw the ends: printed as its
    card shows it, the last lines (where errors are) too."""
    capture = Capture()
    capture.add("".join(f"{n}\n" for n in range(1, 300_001)) + "done\n")
    call = ToolCallItem(key="call:1", name="Bash", status=ToolStatus.ERROR,
                        result=capture.told("Exit code: 3", ReturnBudget(20_000)),
                        arguments_text=json.dumps({"command": "seq 1 300000; exit 3"}))
    out = io.StringIO()
    Console(file=out, width=140).print(printout.printed(call))
    lines = [line.strip("│ ") for line in out.getvalue().splitlines()[1:-1]]
    seen = seen_by_agent(call.result or "")
    assert lines[:4] == ["seq 1 300000; exit 3", f"⚠ the agent saw only the {seen} (its "
                         "context window holds no more)", "→", "Exit code: 3"]
    assert lines[4:] == [*map(str, range(1, 10)), "… 299,982 lines not shown …",
                         *map(str, range(299_992, 300_001)), "done"]


def test_printed_lines_end_with_their_text_not_with_padding() -> None:
    chats, chat = ChatsOfThisRun(), session(history=False)
    chats.opened(chat)
    say(chat, "hello")
    say(chat, "long one", "long_markdown_tokens.sse")
    lines = re.sub(r"\x1b\[[0-9;]*m", "", printed(chats)).splitlines()
    assert any(line.startswith("› hello") for line in lines)
    padded = [line for line in lines if line != line.rstrip()]
    assert not padded


def test_a_call_is_printed_with_its_status_in_words() -> None:
    chats, chat = ChatsOfThisRun(), session(history=False)
    chats.opened(chat)
    say(chat, "run it", "approval_request_tokens.sse")
    shown = printed(chats)
    assert "awaiting approval" in shown and "awaiting_approval" not in shown


def test_a_call_never_run_is_printed_with_why_as_its_card_says() -> None:
    chats, chat = ChatsOfThisRun(), session(history=False)
    chats.opened(chat)
    say(chat, "read twice", "approval_request_tokens.sse")
    (call,) = [item for item in chat.transcript.items if isinstance(item, ToolCallItem)]
    call.status = ToolStatus.NOT_RUN  # the agent ran another call of its step
    shown = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", printed(chats)).split())
    assert "not run" in shown and "Not run: the agent runs one call at a time" in shown


@pytest.mark.parametrize("wanted", [True, False])
def test_the_chat_is_printed_on_exit_unless_turned_off(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        wanted: bool) -> None:
    def run(app: OpenLettaApp) -> None:  # the user says something, then quits
        chat = session()
        app.chats.opened(chat)
        say(chat, "remember this")
        app.resume_hint = ResumeHint("openletta --agent agent-1", "helper")

    monkeypatch.setattr(OpenLettaApp, "run", run)
    args = argparse.Namespace(agent="helper", conversation=None, theme=None,
                              no_local_tools=True)
    launch.run(args, Settings(print_chat_on_exit=wanted), Server(demo=False, base_url="http://127.0.0.1:9"),
               None)
    out = capsys.readouterr().out
    assert ("remember this" in out) is wanted
    assert out.rstrip().endswith("Resume this chat (helper) with: openletta --agent agent-1")


def test_a_chat_that_ends_with_a_compaction_was_not_left_mid_turn() -> None:
    chats, chat = ChatsOfThisRun(), session()
    chats.opened(chat)
    say(chat, "hello")
    summary = {"message_type": "user_message", "id": "message-summary",
               "date": "2026-11-27T10:00:00+00:00",
               "content": json.dumps({"type": "system_alert", "message":
                                      f"Note: …\n{SUMMARY_FOLLOWS}messages:\n hello and so on"})}
    chat.transcript.load_history([parse_message(summary)])
    assert isinstance(chat.transcript.items[-1], EventItem)
    assert "left before" not in printed(chats)


def rendered(item: object) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=100).print(render_item(item))  # type: ignore[arg-type]
    return out.getvalue().splitlines()


def test_a_result_of_several_lines_keeps_its_columns() -> None:
    """A file read's lines are numbered and tab-aligned: the first one no longer follows the
    arrow, which pushed its text to another tab stop than the next lines'."""
    read = ToolCallItem(key="call:1", name="Read", status=ToolStatus.SUCCESS,
                        result="     1\thello world\n     2\tline two\n")
    lines = rendered(read)
    first = next(line for line in lines if "hello world" in line)
    second = next(line for line in lines if "line two" in line)
    assert first.index("hello world") == second.index("line two")
    assert any(line.strip("│ ") == "→" for line in lines)
    one_line = rendered(ToolCallItem(key="call:2", name="Bash", status=ToolStatus.SUCCESS,
                                     result="done"))
    assert any("→ done" in line for line in one_line)


def test_a_denial_reason_the_result_holds_is_printed_once() -> None:
    denied = ToolCallItem(key="call:1", name="Write", status=ToolStatus.DENIED,
                          result="Error: request to call tool denied. User reason: keep it",
                          reason="keep it")
    assert sum(line.count("keep it") for line in rendered(denied)) == 1
    told = ToolCallItem(key="call:2", name="Write", status=ToolStatus.DENIED, reason="not now")
    assert any("reason: not now" in line for line in rendered(told))


def test_every_denial_is_printed_in_one_wording_as_its_card_has_it() -> None:
    """A user's denial (the server's result quotes the reason, or only the result has it,
    read back) and read-only mode's read ``reason: …``, not the server's error text."""
    quoted = "Error: request to call tool denied. User reason: no echo today"
    denials = [
        ToolCallItem(key="call:1", name="Bash", status=ToolStatus.DENIED, result=quoted,
                     reason="no echo today"),
        ToolCallItem(key="call:2", name="Bash", status=ToolStatus.DENIED, result=quoted),
        ToolCallItem(key="call:3", name="Bash", status=ToolStatus.DENIED,
                     reason="Bash is not allowed: read-only mode"),
    ]
    printed = [" ".join(line.strip("│ ") for line in rendered(call)) for call in denials]
    assert all("→" not in text and "request to call tool denied" not in text
               for text in printed)
    assert "reason: no echo today" in printed[0] and "reason: no echo today" in printed[1]
    assert "reason: Bash is not allowed: read-only mode" in printed[2]


def test_a_compaction_summary_is_printed_under_a_line_that_names_it() -> None:
    summary = EventItem(key="event:1", event_type=COMPACTION_SUMMARY,
                        text="The user said hello.\nThe agent answered.")
    assert rendered(summary)[:3] == [
        "── Compaction summary ──", "The user said hello.", "The agent answered."]
    note = EventItem(key="event:2", event_type="compaction", text="Compacting context")
    assert rendered(note) == ["── Compacting context ──"]


def test_a_call_is_printed_as_its_card_sums_it_up_and_a_thought_is_named() -> None:
    """The scrollback reads as the chat did: ``Bash`` with its command, not the arguments'
    JSON; a thought is marked as one, not printed like the reply."""
    call = ToolCallItem(key="call:1", name="Bash", status=ToolStatus.SUCCESS, result="ok",
                        arguments_text=json.dumps({"command": "sleep 1 && ls",
                                                   "description": "Wait, then list"}))
    out = io.StringIO()
    Console(file=out, width=100).print(printout.printed(call))
    lines = out.getvalue().splitlines()
    assert any("sleep 1 && ls" in line for line in lines)
    assert not any('"command"' in line or "{" in line for line in lines)
    thought = ReasoningItem(key="reasoning:1", text="The user wants a listing.")
    assert "Thought: The user wants a listing." in "".join(rendered(thought))


def test_a_result_a_few_lines_over_the_limit_is_printed_whole() -> None:
    """A 20-line read with its note is 22 lines: leaving out 2 of them saves nothing."""
    result = ("[Showing lines 1–20 of 90, as many as fit in your context window. Use "
              "offset=21 to read on.]\n\n" + "".join(f"{n:>6}\tline {n}\n" for n in range(1, 21)))
    call = ToolCallItem(key="call:1", name="Read", status=ToolStatus.SUCCESS, result=result,
                        arguments_text=json.dumps({"file_path": "notes.txt"}))
    out = io.StringIO()
    Console(file=out, width=100).print(printout.printed(call))
    shown = out.getvalue()
    assert "line 20" in shown and "not shown" not in shown


def test_a_call_the_user_edited_says_so_in_its_printed_title() -> None:
    call = ToolCallItem(key="call:1", name="Bash", status=ToolStatus.ERROR, result="Exit code: 3",
                        arguments_text=json.dumps({"command": "exit 3"}), edited=True)
    out = io.StringIO()
    Console(file=out, width=100).print(printout.printed(call))
    assert "Bash  ✗ error  edited by you" in out.getvalue().splitlines()[0]


@pytest.mark.parametrize(("fields", "note"), [({"approved": True}, "approved"),
                                              ({"approved": True, "auto_approved": True},
                                               "auto-approved")])
def test_a_call_approved_says_so_in_its_printed_title_as_its_card_does(
        fields: dict[str, bool], note: str) -> None:
    call = ToolCallItem(key="call:1", name="bash", status=ToolStatus.SUCCESS, result="ok",
                        arguments_text=json.dumps({"command": "ls"}), needs_approval=True,
                        **fields)
    out = io.StringIO()
    Console(file=out, width=100).print(printout.printed(call))
    assert out.getvalue().splitlines()[0].rstrip(" ─╮").endswith(f"bash  ✓ success  {note}")


def test_the_users_message_is_printed_with_its_controls_as_the_chat_shows_them() -> None:
    """``hello ␛[31mRED``, as the prompt and the chat showed it: not ``hello RED``, red."""
    chats, chat = ChatsOfThisRun(), session(history=False)
    chats.opened(chat)
    say(chat, "hello \x1b[31mRED\x1b[0m bell\x07 nbsp\xa0x")
    shown = printed(chats)
    assert "› hello ␛[31mRED␛[0m bell␇ nbsp\xa0x" in re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert "\x1b[31m" not in shown and "\x07" not in shown


async def test_messages_queued_when_the_app_quits_are_printed_as_not_sent(
        make_app, wait_until) -> None:
    """Quitting returns them to the prompt, kept as its draft: the printout says so, after
    what was said, each as the chat showed it."""
    app = make_app(demo=True, demo_speed=1.0, agent="demo-agent")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press(*"slow four", "enter")
        await wait_until(pilot, lambda: screen.session.turn_open, what="the reply streaming")
        screen.prompt.insert("my queued\x1b draft")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.controller.state.queued == (
            "my queued\x1b draft",), what="queued")
        app.exit()
    shown = re.sub(r"\x1b\[[0-9;]*m", "", printed(app.chats))
    assert "✎ not sent (kept as a draft): my queued␛ draft" in shown
    assert shown.index("› slow four") < shown.index("✎ not sent")


def test_a_message_never_sent_where_no_draft_lasts_is_not_said_kept(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def run(app: OpenLettaApp) -> None:  # the demo keeps no drafts for the next run
        chat = session()
        app.chats.opened(chat)
        say(chat, "slow four")
        chat.left_unsent = ("my queued draft",)

    monkeypatch.setattr(OpenLettaApp, "run", run)
    args = argparse.Namespace(agent="demo-agent", conversation=None, theme=None,
                              no_local_tools=True)
    launch.run(args, Settings(), Server(demo=True), None)
    out = capsys.readouterr().out
    assert "✎ not sent: my queued draft" in out and "kept as a draft" not in out


def test_what_was_typed_while_connecting_is_said_kept_as_a_draft(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def run(app: OpenLettaApp) -> None:  # quit on the connect screen, with text typed there
        app.typed_left = "typed during startup"

    monkeypatch.setattr(OpenLettaApp, "run", run)
    args = argparse.Namespace(agent="someone", conversation=None, theme=None,
                              no_local_tools=True)
    launch.run(args, Settings(), Server(demo=False, base_url="http://127.0.0.1:1"), None)
    out = capsys.readouterr().out
    assert "✎ not sent (kept as a draft): typed during startup" in out
