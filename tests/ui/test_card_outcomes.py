"""What a tool card says of its call's outcome: where the call ran, and that a write or edit
that failed (or never ran) changed nothing; the same live and read back from history."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from chat_fakes import FakeClient, FakeStream, Listener
from widget_app import ItemsApp, shown_text

from openletta.api.answers import ToolReturnAnswer
from openletta.api.messages import Message, parse_message
from openletta.api.resources import Agent
from openletta.chat.controller import ChatController
from openletta.chat.local_calls import LocalCalls
from openletta.chat.session import ChatSession
from openletta.recall import CallsRunHere
from openletta.tools.base import Workspace
from openletta.tools.files import Write
from openletta.tools.permissions import PermissionMode, Permissions, ProjectRules
from openletta.transcript import ToolCallItem, ToolStatus, Transcript

SIZE = (100, 40)
NOT_READ = "/work/notes.md exists and has not been read yet: read it first."
NOT_FOUND = "old_string was not found in the file."


def local_call(name: str, arguments: dict[str, Any], *, live: bool,
               **fields: Any) -> ToolCallItem:
    """A call of a local tool: as this client ran it (``live``), or as history gives it
    back (a client sent its result; nothing says it was this one, nor shows a preview)."""
    where = {"runs_here": True, "auto_approved": True} if live else {"client_result": True}
    return ToolCallItem(key=f"{name}:{live}", name=name, arguments_text=json.dumps(arguments),
                        needs_approval=True, **where, **fields)


async def cards(*items: ToolCallItem) -> list[list[str]]:
    """The lines each item's card shows."""
    app = ItemsApp(items)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return [shown_text(app.widget_of(item)).split("\n") for item in items]


async def test_a_local_write_that_failed_shows_its_error_and_no_change(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("kept on disk\n")
    arguments = {"file_path": "notes.md", "content": "never written\n"}
    preview = Write().preview(arguments, Workspace(tmp_path))
    live = local_call("Write", arguments, live=True, status=ToolStatus.ERROR, result=NOT_READ,
                      preview=preview)
    history = local_call("Write", arguments, live=False, status=ToolStatus.ERROR,
                         result=NOT_READ)
    live_card, history_card = await cards(live, history)
    assert live_card[1:] == history_card[1:]  # the same body, live and from history
    assert live_card[1] == f"▌ ✗ Not written: {NOT_READ}"
    assert live_card[2:] == ["▌ What it would have written:", "▌ 1 │ never written"]
    assert not any("kept on disk" in line for line in live_card)  # no diff against the disk


async def test_a_local_write_asked_about_says_whether_it_creates_or_replaces_the_file(
        tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("kept on disk\n")
    workspace = Workspace(tmp_path)
    asked = [local_call("Write", {"file_path": name, "content": "hello from the agent\n"},
                        live=True, status=ToolStatus.AWAITING_APPROVAL)
             for name in ("new.txt", "notes.md")]
    app = ItemsApp(asked)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for item in asked:  # the preview comes once the card is there (the call was judged)
            item.preview = Write().preview(json.loads(item.arguments_text), workspace)
            app.widget_of(item).sync()
        await pilot.pause()
        headers = [shown_text(app.widget_of(item)).split("\n")[0] for item in asked]
    assert "Write  new.txt (creates it: 21 bytes, 1 line)" in headers[0]
    assert "Write  notes.md (replaces it: 21 bytes, 1 line)" in headers[1]


async def test_a_local_edit_that_failed_says_first_that_nothing_changed() -> None:
    arguments = {"file_path": "notes.md", "old_string": "absent", "new_string": "present"}
    live, history = (local_call("Edit", arguments, live=where, status=ToolStatus.ERROR,
                                result=NOT_FOUND) for where in (True, False))
    live_card, history_card = await cards(live, history)
    assert live_card[1:] == history_card[1:]
    assert live_card[1] == f"▌ ✗ Not changed: {NOT_FOUND}"
    assert live_card[2] == "▌ The edit it would have made:"


async def test_a_denied_write_says_it_wrote_nothing_above_the_denial() -> None:
    item = local_call("Write", {"file_path": "a.txt", "content": "x\n"}, live=True,
                      status=ToolStatus.DENIED, approved=False, reason="not now")
    [card] = await cards(item)
    assert card[1:] == ["▌ Not written. What it would have written:", "▌ 1 │ x",
                        "▌ ⊘ Denied: not now"]


async def test_every_card_says_where_its_call_runs() -> None:
    server = ToolCallItem(key="server", name="memory_insert", status=ToolStatus.SUCCESS,
                          arguments_text='{"label": "human", "new_str": "tea"}', result="ok")
    asked = ToolCallItem(key="asked", name="bash", needs_approval=True,
                         status=ToolStatus.SUCCESS, arguments_text='{"command": "ls"}')
    here = local_call("LS", {"path": "."}, live=True, status=ToolStatus.SUCCESS, result="a")
    client = local_call("LS", {"path": "."}, live=False, status=ToolStatus.SUCCESS, result="a")
    streaming = ToolCallItem(key="streaming", name="LS", needs_approval=True,
                             status=ToolStatus.STREAMING, arguments_text='{"path": "."}')
    headers = [card[0] for card in await cards(server, asked, here, client, streaming)]
    assert ["runs on server" in header for header in headers] == [True, True, False, False,
                                                                   False]
    assert "⌂ runs here" in headers[2] and "ran on a client" in headers[3]
    # An approval request still streaming may be for this machine: it does not say yet.
    assert not any(word in headers[4] for word in ("server", "here", "client"))


async def test_a_call_run_here_says_so_when_read_back_in_a_later_run(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("line 15\n")
    kept = tmp_path / "config" / "calls-run-here.json"
    _live, answer = await edited_here(tmp_path, calls_run_here=CallsRunHere("http://s", kept))
    later = CallsRunHere("http://s", kept)  # the next run of openletta
    here = from_history(answer, calls_run_here=later)
    elsewhere = from_history(answer, calls_run_here=CallsRunHere("http://other", kept))
    header_here, header_elsewhere = (card[0] for card in await cards(here, elsewhere))
    assert "⌂ ran here" in header_here and "client" not in header_here
    assert "ran on a client" in header_elsewhere and "here" not in header_elsewhere


EDIT_REQUEST = {"message_type": "approval_request_message", "id": "message-asks",
                "tool_calls": [{"tool_call_id": "call-1", "name": "Edit", "arguments": json.dumps(
                    {"file_path": "notes.md", "old_string": "line 15\n",
                     "new_string": "line fifteen\n"})}]}


async def edited_here(root: Path, request: dict[str, Any] = EDIT_REQUEST, *,
                      read: bool = True, calls_run_here: CallsRunHere | None = None,
                      ) -> tuple[ToolCallItem, ToolReturnAnswer]:
    """The card's item of ``request`` run here (accept-edits mode: it runs without asking),
    and what was sent to the server for it; ``read``: notes.md was read first."""
    client = FakeClient()
    client.turns.append(FakeStream([parse_message(request), parse_message(
        {"message_type": "stop_reason", "stop_reason": "requires_approval"})]))
    client.answers.append(FakeStream([]))
    workspace = Workspace(root)
    if read:
        workspace.note_read(root / "notes.md")
    local = LocalCalls(Permissions(workspace, mode=PermissionMode.ACCEPT_EDITS,
                                   project_rules=ProjectRules(root / "rules.toml")))
    session = ChatSession(client, Agent(id="agent-1", name="tester"),  # type: ignore[arg-type]
                          calls_run_here=calls_run_here)
    controller = ChatController(session, Listener(), local)
    controller.submit("edit it")
    while not client.answered:
        await asyncio.sleep(0.002)
    await controller.close()
    (call,) = [item for item in session.transcript.items if isinstance(item, ToolCallItem)]
    (answer,) = client.answered[0]
    assert isinstance(answer, ToolReturnAnswer)
    return call, answer


def stored(answer: ToolReturnAnswer,
           request: dict[str, Any] = EDIT_REQUEST) -> list[Message]:
    """The call and its answer as the server gives them back in the history."""
    sent = answer.model_dump()
    returned = {name: sent[name] for name in ("tool_call_id", "tool_return", "status",
                                              "stdout", "stderr")}
    return [parse_message(request),
            parse_message({"message_type": "approval_response_message", "id": "message-answer",
                           "approvals": [sent]}),
            parse_message({"message_type": "tool_return_message", "id": "message-return",
                           **returned, "tool_returns": [sent]})]


def from_history(answer: ToolReturnAnswer, request: dict[str, Any] = EDIT_REQUEST,
                 calls_run_here: CallsRunHere | None = None) -> ToolCallItem:
    """The card's item of ``request`` read back from history with ``answer`` (by a chat
    that knows ``calls_run_here``)."""
    transcript = Transcript()
    if calls_run_here is not None:
        transcript.calls_run_here = calls_run_here
    transcript.load_history(stored(answer, request))
    (history,) = [item for item in transcript.items if isinstance(item, ToolCallItem)]
    assert history.client_result
    return history


async def test_a_local_edit_is_numbered_by_the_files_lines_live_and_from_history(
        tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("".join(f"line {number}\n" for number in range(1, 21)))
    live, answer = await edited_here(tmp_path)
    assert (tmp_path / "notes.md").read_text().count("line fifteen") == 1
    transcript = Transcript()
    transcript.load_history(stored(answer))
    (history,) = [item for item in transcript.items if isinstance(item, ToolCallItem)]
    assert live.runs_here and history.client_result and history.status is ToolStatus.SUCCESS
    live_card, history_card = await cards(live, history)
    assert live_card[1:] == history_card[1:]  # the same body, live and from history
    assert "▌ 15    - line 15" in history_card  # numbered by the file's lines
    assert "▌    15 + line fifteen" in history_card


async def test_a_local_edit_that_failed_keeps_its_numbered_change_in_history(
        tmp_path: Path) -> None:
    # Before, the change it would have made went with the call's card only: read back from
    # history, the card showed the agent's two strings, unnumbered ("line 15 │ line fifteen").
    (tmp_path / "notes.md").write_text("".join(f"line {number}\n" for number in range(1, 21)))
    live, answer = await edited_here(tmp_path, read=False)  # not read: it fails unrun
    assert live.status is ToolStatus.ERROR and "line fifteen" not in (
        tmp_path / "notes.md").read_text()
    history = from_history(answer)
    assert history.status is ToolStatus.ERROR
    live_card, history_card = await cards(live, history)
    assert live_card[1:] == history_card[1:]  # the same body, live and from history
    assert "▌ The edit it would have made:" in history_card
    assert "▌ 15    - line 15" in history_card  # numbered by the file's lines
    assert "▌    15 + line fifteen" in history_card


def write_request(path: str) -> dict[str, Any]:
    return {"message_type": "approval_request_message", "id": "message-asks",
            "tool_calls": [{"tool_call_id": "call-1", "name": "Write", "arguments": json.dumps(
                {"file_path": path, "content": "hello from the agent\n"})}]}


async def test_a_local_write_says_from_history_whether_it_created_or_replaced_the_file(
        tmp_path: Path) -> None:
    # Before, history read "Write  new.txt (21 bytes, 1 line)": whether it created the file
    # was known from the preview alone, which history does not keep.
    (tmp_path / "notes.md").write_text("kept on disk\n")
    made: list[tuple[ToolCallItem, ToolCallItem]] = []
    for path in ("new.txt", "notes.md"):
        live, answer = await edited_here(tmp_path, write_request(path))
        made.append((live, from_history(answer, write_request(path))))
    cards_made = await cards(*(item for pair in made for item in pair))
    (new_live, new_history), (old_live, old_history) = cards_made[:2], cards_made[2:]
    assert "Write  new.txt (creates it: 21 bytes, 1 line)" in new_history[0]
    assert "Write  notes.md (replaces it: 21 bytes, 1 line)" in old_history[0]
    assert new_live[1:] == new_history[1:] and old_live[1:] == old_history[1:]
    assert "▌ 1   - kept on disk" in old_history  # what it replaced, as live
    assert (tmp_path / "notes.md").read_text() == "hello from the agent\n"


async def test_a_write_a_mode_allows_but_its_tool_refuses_is_not_called_auto_approved(
        tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("kept on disk\n")
    request = {**EDIT_REQUEST, "tool_calls": [{
        "tool_call_id": "call-1", "name": "Write",
        "arguments": json.dumps({"file_path": "notes.md", "content": "never written\n"})}]}
    call, answer = await edited_here(tmp_path, request, read=False)
    assert (tmp_path / "notes.md").read_text() == "kept on disk\n"
    assert answer.status == "error" and "has not been read yet" in answer.tool_return
    [card] = await cards(call)
    assert card[0].endswith("⌂ runs here  ✗ error") and "auto-approved" not in card[0]
    assert card[1].startswith("▌ ✗ Not written: ")


def server_calls_from_history() -> list[ToolCallItem]:
    """Three server calls read back from history: one approved (by the user or a rule of a
    client's: the server stores both as ``approve: true``), one that asked nothing (its tool
    was always allowed), one denied."""
    def call(call_id: str, kind: str) -> dict[str, Any]:
        return {"message_type": kind, "id": f"message-{call_id}",
                "tool_call": {"tool_call_id": call_id, "name": "bash",
                              "arguments": '{"command": "ls"}'}}

    def returned(call_id: str, result: str, status: str = "success") -> dict[str, Any]:
        return {"message_type": "tool_return_message", "id": f"message-r{call_id}",
                "tool_call_id": call_id, "tool_return": result, "status": status}

    def answer(call_id: str, approve: bool) -> dict[str, Any]:
        return {"message_type": "approval_response_message", "id": f"message-a{call_id}",
                "approvals": [{"type": "approval", "tool_call_id": call_id,
                               "approve": approve, "reason": None}]}

    transcript = Transcript()
    transcript.load_history([parse_message(message) for message in (
        call("1", "approval_request_message"), answer("1", True), returned("1", "a.txt"),
        call("2", "tool_call_message"), returned("2", "a.txt"),
        call("3", "approval_request_message"), answer("3", False),
        returned("3", "Error: request to call tool denied. User reason: None", "error"))])
    return [item for item in transcript.items if isinstance(item, ToolCallItem)]


async def test_a_server_call_read_from_history_says_it_was_approved() -> None:
    """What history keeps of an approval shows, as it did live for a call the user approved:
    an approved call reads "approved", a call that asked nothing does not (by whom it was
    approved, the user or a session's rule, the server does not keep)."""
    approved, unasked, denied = (" ".join(card[0].split())
                                 for card in await cards(*server_calls_from_history()))
    assert approved.endswith("runs on server approved ✓ success")
    assert unasked.endswith("runs on server ✓ success")
    assert "approved" not in unasked and "approved" not in denied


async def test_a_server_call_approved_live_reads_as_it_will_from_history() -> None:
    live = ToolCallItem(key="live", name="bash", arguments_text='{"command": "ls"}',
                        needs_approval=True, approved=True, status=ToolStatus.SUCCESS,
                        result="a.txt")
    auto = ToolCallItem(key="auto", name="bash", arguments_text='{"command": "ls"}',
                        needs_approval=True, approved=True, auto_approved=True,
                        status=ToolStatus.SUCCESS, result="a.txt")
    history = server_calls_from_history()[0]
    live_card, auto_card, history_card = await cards(live, auto, history)
    assert live_card[0] == history_card[0]
    assert "auto-approved" in auto_card[0]
