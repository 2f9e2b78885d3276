"""Calls of local tools through the controller: declared in every request, asked about or
decided by the permission mode and the user's rules, run here, and answered in one message
with the server's calls; Esc stops a running call and the agent is told."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from chat_fakes import FakeClient, FakeStream, Listener

from openletta.api.answers import INTERRUPTED, ApprovalAnswer, ToolReturnAnswer
from openletta.api.errors import APIConnectionError
from openletta.api.messages import Message, parse_message
from openletta.api.resources import Agent, LLMConfig
from openletta.api.sse import parse_sse_text
from openletta.chat.approvals import CANCELLED_REASON, Choice
from openletta.chat.controller import ChatController
from openletta.chat.local_calls import PRINTED_SO_FAR, LocalCalls
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.tools.base import (
    DEFAULT_BUDGET,
    Access,
    LocalTool,
    OnOutput,
    ToolInputError,
    ToolOutcome,
    Workspace,
)
from openletta.tools.budget import ReturnBudget, sent_length
from openletta.tools.files import Write
from openletta.tools.permissions import PermissionMode, Permissions, ProjectRules
from openletta.transcript import EventItem, ToolCallItem, ToolStatus, UserItem
from openletta.transcript.export import to_markdown
from openletta.transcript.interruption import HELD, TOLD, TOLD_ON_QUIT

FIXTURES = Path(__file__).parent / "fixtures"
#: What the agent is told of a "Run" call (which says hi first) that the user stopped.
SAID_HI_THEN_STOPPED = f"{PRINTED_SO_FAR}\nRun says hi\n"
HELLO = "hello_tokens.sse"


class Probe(LocalTool):
    """A local tool that records its runs; ``hold`` makes a run wait (to be interrupted)."""

    description = "A test tool."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    def __init__(self, name: str, access: Access) -> None:
        self.name = name  # type: ignore[misc]
        self.access = access  # type: ignore[misc]
        self.runs: list[Mapping[str, Any]] = []
        self.budgets: list[ReturnBudget] = []
        #: What a run says (``None``: "<name> ran").
        self.says: str | None = None
        self.hold: asyncio.Event | None = None
        self.stopped = False
        #: A call "doomed" fails its check until this tool ran (it read the file first).
        self.doomed_until: Probe | None = None

    def paths(self, args: Mapping[str, Any], workspace: Workspace) -> list[Path]:
        return [workspace.resolve(args["path"])] if "path" in args else []

    def preview(self, args: Mapping[str, Any], workspace: Workspace) -> str | None:
        return f"--- a/{args.get('path')}\n+++ b/{args.get('path')}\n+new line\n"

    def check(self, args: Mapping[str, Any], workspace: Workspace) -> None:
        if "doomed" in args and not (self.doomed_until and self.doomed_until.runs):
            raise ToolInputError(args["doomed"])

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        self.runs.append(args)
        self.budgets.append(budget)
        on_output(f"{self.name} says hi\n")
        if self.hold is not None:
            try:
                await self.hold.wait()
            except asyncio.CancelledError:
                self.stopped = True
                raise
        return ToolOutcome(self.says or f"{self.name} ran", stdout=[f"{self.name} says hi\n"])


def asks_for(*calls: tuple[str, str, dict[str, Any]]) -> list[Message]:
    """A reply that stops for approval of ``calls`` (``(tool_call_id, name, arguments)``)."""
    request = parse_message({
        "message_type": "approval_request_message", "id": "message-asks", "otid": "asks",
        "tool_calls": [{"tool_call_id": call_id, "name": name, "arguments": json.dumps(args)}
                       for call_id, name, args in calls]})
    return [request, parse_message({"message_type": "stop_reason",
                                    "stop_reason": "requires_approval"})]


def recorded(name: str) -> list[Message]:
    return parse_sse_text((FIXTURES / name).read_bytes()).messages


class LocalChat:
    def __init__(self, tmp_path: Path, mode: PermissionMode,
                 context_window: int | None = None) -> None:
        self.client = FakeClient()
        self.listener = Listener()
        self.run_tool = Probe("Run", Access.EXECUTE)
        self.edit_tool = Probe("Change", Access.EDIT)
        self.read_tool = Probe("Look", Access.READ)
        self.workspace = Workspace(tmp_path / "project")
        self.workspace.root.mkdir(parents=True)
        self.rules = ProjectRules(tmp_path / "config" / "local-tools.toml")
        self.permissions = Permissions(self.workspace, mode=mode, project_rules=self.rules)
        self.local = LocalCalls(self.permissions,
                                tools=(self.run_tool, self.edit_tool, self.read_tool))
        agent = Agent(id="agent-1", name="tester",
                      llm_config=LLMConfig(context_window=context_window))
        session = ChatSession(self.client, agent)  # type: ignore[arg-type]
        self.controller = ChatController(session, self.listener, self.local)

    @property
    def transcript(self):
        return self.controller.session.transcript

    async def until(self, condition: Any, what: str = "condition") -> None:
        for _ in range(500):
            if condition():
                return
            await asyncio.sleep(0.002)
        raise AssertionError(f"{what} never happened; phases {self.listener.phases}")

    async def send(self, *calls: tuple[str, str, dict[str, Any]]) -> None:
        """Send a message whose reply asks about ``calls``; the continuation is a greeting."""
        self.client.turns.append(FakeStream(asks_for(*calls)))
        self.client.answers.append(FakeStream(recorded(HELLO)))
        self.controller.submit("do it")
        await self.until(lambda: self.controller.state.asking is not None
                         or self.client.answered
                         or self.controller.state.phase is Phase.RUNNING, "a decision")

    async def settled(self) -> None:
        await self.until(lambda: self.controller.state.phase is Phase.IDLE
                         and self.client.answered, "the answers")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[LocalChat]:
    chat = LocalChat(tmp_path, PermissionMode.ASK)
    yield chat
    await chat.controller.close()


def only_answer(chat: LocalChat) -> list[Any]:
    assert len(chat.client.answered) == 1
    return chat.client.answered[0]


async def test_the_tools_are_declared_in_every_request(chat: LocalChat) -> None:
    await chat.send(("call-1", "Run", {}))
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    assert chat.client.declared == [["Run", "Change", "Look"]] * 2


async def test_an_approved_call_runs_here_and_its_result_goes_back(chat: LocalChat) -> None:
    await chat.send(("call-1", "Run", {}))
    call = chat.controller.state.asking
    assert call is not None and call.runs_here and chat.run_tool.runs == []
    chat.controller.decide(call, Choice.APPROVE)
    await chat.settled()
    assert chat.run_tool.runs == [{}]
    assert only_answer(chat) == [ToolReturnAnswer(
        tool_call_id="call-1", tool_return="Run ran", status="success",
        stdout=["Run says hi\n"])]
    assert call.status is ToolStatus.SUCCESS and call.result == "Run ran"
    assert Phase.RUNNING in chat.listener.phases


async def test_a_denied_call_never_runs_and_the_reason_goes_back(chat: LocalChat) -> None:
    await chat.send(("call-1", "Run", {}))
    chat.controller.decide(chat.controller.state.asking, Choice.DENY, "not today")  # type: ignore[arg-type]
    await chat.settled()
    assert chat.run_tool.runs == []
    assert only_answer(chat) == [ApprovalAnswer(tool_call_id="call-1", approve=False,
                                                reason="not today")]


async def test_output_shows_while_the_call_runs(chat: LocalChat) -> None:
    chat.run_tool.hold = asyncio.Event()
    await chat.send(("call-1", "Run", {}))
    call = chat.controller.state.asking
    assert call is not None
    chat.controller.decide(call, Choice.APPROVE)
    await chat.until(lambda: call.stdout == ["Run says hi\n"], "live output")
    assert call.status is ToolStatus.RUNNING and chat.controller.state.phase is Phase.RUNNING
    chat.run_tool.hold.set()
    await chat.settled()


async def test_esc_stops_a_running_call_and_the_agent_is_told_with_the_next_message(
        chat: LocalChat) -> None:
    chat.run_tool.hold = asyncio.Event()
    await chat.send(("call-1", "Run", {}), ("call-2", "Run", {}), ("call-3", "Serve", {}))
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE_ALL)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.phase is Phase.RUNNING)
    chat.controller.submit("typed meanwhile")
    chat.controller.interrupt()
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "the stop")
    assert chat.run_tool.stopped and len(chat.run_tool.runs) == 1  # the second never started
    assert chat.controller.state.stop_reason == "interrupted"
    assert not chat.client.answered  # the agent does not answer the interruption alone
    assert chat.listener.restored == ["typed meanwhile"]
    calls = [chat.transcript.call(f"call-{n}") for n in (1, 2, 3)]
    assert [call.status for call in calls if call is not None] == [
        ToolStatus.CANCELLED, ToolStatus.CANCELLED, ToolStatus.DENIED]  # nothing else runs
    assert isinstance(chat.transcript.items[-2], EventItem)
    assert chat.transcript.items[-2].text == HELD
    chat.controller.submit("stop that, say hi")
    await chat.settled()
    assert chat.client.answered_with == ["stop that, say hi"] and not chat.client.sent[1:]
    # The agent reads what the stopped call printed, after the word that it was stopped.
    assert [(answer.tool_call_id, getattr(answer, "tool_return", None))
            for answer in only_answer(chat)] == [
        ("call-1", SAID_HI_THEN_STOPPED),
        ("call-2", INTERRUPTED), ("call-3", None)]
    # It goes as stdout too (read back from history), as its card shows it.
    assert [getattr(answer, "stdout", None) for answer in only_answer(chat)] == [
        ["Run says hi\n"], None, None]
    assert calls[0] is not None and calls[0].stdout == ["Run says hi\n"]
    assert only_answer(chat)[2] == ApprovalAnswer(tool_call_id="call-3", approve=False,
                                                  reason=CANCELLED_REASON)
    user = next(item for item in reversed(chat.transcript.items) if isinstance(item, UserItem))
    assert user.text == "stop that, say hi"
    assert chat.controller.state.stop_reason == "end_turn"
    event = next(item for item in chat.transcript.items if isinstance(item, EventItem))
    assert event.text == TOLD  # no longer "hears of it with your next message"


async def test_quitting_after_esc_stopped_a_call_tells_the_agent_first(
        chat: LocalChat) -> None:
    chat.run_tool.hold = asyncio.Event()
    await chat.send(("call-1", "Run", {}))
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.phase is Phase.RUNNING)
    chat.controller.interrupt()
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "the stop")
    assert not chat.client.answered
    # (not left to come back as a new request)
    assert chat.controller.leave_after_local_calls(quitting=True)
    await chat.until(lambda: chat.listener.exits == 1, "the exit")
    assert chat.client.answered_with == [None]
    assert [answer.tool_return for answer in only_answer(chat)] == [SAID_HI_THEN_STOPPED]
    event = next(item for item in chat.transcript.items if isinstance(item, EventItem))
    assert event.text == TOLD_ON_QUIT  # what the printout says of it


async def test_a_round_with_server_and_local_calls_is_answered_in_one_message(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "bash", {"command": "ls"}), ("call-2", "Run", {}))
    server_call = chat.controller.state.asking
    assert server_call is not None and not server_call.runs_here
    chat.controller.decide(server_call, Choice.APPROVE)
    local_call = chat.controller.state.asking
    assert local_call is not None and local_call.runs_here
    chat.controller.decide(local_call, Choice.APPROVE)
    await chat.settled()
    assert only_answer(chat) == [
        ApprovalAnswer(tool_call_id="call-1", approve=True),
        ToolReturnAnswer(tool_call_id="call-2", tool_return="Run ran", status="success",
                         stdout=["Run says hi\n"])]


async def test_read_only_mode_runs_reads_and_denies_the_rest_with_a_reason(
        tmp_path: Path) -> None:
    chat = LocalChat(tmp_path, PermissionMode.READ_ONLY)
    await chat.send(("call-1", "Look", {}), ("call-2", "Run", {}), ("call-3", "Change", {}))
    await chat.settled()
    answers = only_answer(chat)
    assert isinstance(answers[0], ToolReturnAnswer) and chat.read_tool.runs == [{}]
    for denied in answers[1:]:
        assert isinstance(denied, ApprovalAnswer) and not denied.approve
        assert denied.reason is not None and "read-only mode" in denied.reason
    assert chat.run_tool.runs == chat.edit_tool.runs == []
    await chat.controller.close()


async def test_accept_edits_runs_edits_inside_and_asks_for_commands(tmp_path: Path) -> None:
    chat = LocalChat(tmp_path, PermissionMode.ACCEPT_EDITS)
    await chat.send(("call-1", "Change", {"path": "notes.txt"}), ("call-2", "Run", {}))
    asking = chat.controller.state.asking
    assert asking is not None and asking.name == "Run"
    assert chat.controller.state.undecided == 1
    chat.controller.decide(asking, Choice.APPROVE)
    await chat.settled()
    assert chat.edit_tool.runs == [{"path": "notes.txt"}]
    await chat.controller.close()


async def test_a_path_outside_the_directory_asks_in_every_mode_but_yolo(
        tmp_path: Path) -> None:
    for mode in (PermissionMode.ACCEPT_EDITS, PermissionMode.READ_ONLY, PermissionMode.YOLO):
        chat = LocalChat(tmp_path / mode.value, mode)
        await chat.send(("call-1", "Look", {"path": str(tmp_path / "elsewhere.txt")}))
        if mode is PermissionMode.YOLO:
            await chat.settled()
            assert chat.read_tool.runs
        else:
            assert chat.controller.state.asking is not None and not chat.read_tool.runs
        await chat.controller.close()


async def test_a_result_is_made_to_fit_the_agent_s_context_window(tmp_path: Path) -> None:
    """Letta cuts a longer one from its end: the tool gets the budget of the agent's window
    (Letta's minimum when unknown), and what goes over it is cut here, notes first kept."""
    for window, budget in ((30_000, ReturnBudget(23_800)), (None, ReturnBudget(4_800))):
        chat = LocalChat(tmp_path / str(window), PermissionMode.YOLO, context_window=window)
        chat.run_tool.says = "[a note first]\n" + "x" * 100_000
        await chat.send(("call-1", "Run", {}))
        await chat.settled()
        assert chat.run_tool.budgets == [budget]
        (answer,) = only_answer(chat)
        assert answer.tool_return.startswith("[a note first]\nxxx")
        assert sent_length(answer.tool_return) == budget.chars  # all of the room, no more
        await chat.controller.close()


def test_a_call_the_user_edited_leaves_room_for_the_note_that_says_so(tmp_path: Path) -> None:
    local = LocalCalls(Permissions(Workspace(tmp_path)))
    call = ToolCallItem(key="call:1", name="Bash", runs_here=True, edited=True,
                        arguments_text=json.dumps({"command": "make test"}))
    note = local.edited_result(call, "")
    assert note.startswith("The user edited the command") and "make test" in note
    assert local.budget(call, 30_000) == ReturnBudget(23_800).after(note)
    call.edited = False
    assert local.budget(call, 30_000) == ReturnBudget(23_800)


def test_a_link_in_the_directory_to_a_place_outside_is_named_with_where_it_points(
        tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (elsewhere / "outside.txt").write_text("secret")
    (root / "link.txt").symlink_to(elsewhere / "outside.txt")
    (root / "linked").symlink_to(elsewhere)
    local = LocalCalls(Permissions(Workspace(root)))

    def said(path: str) -> list[str]:
        call = ToolCallItem(key="call:1", name="Read", runs_here=True,
                            arguments_text=json.dumps({"file_path": path}))
        return local.outside_said(call, str)

    assert said("link.txt") == [f"link.txt points to {elsewhere / 'outside.txt'}, outside it"]
    assert said("linked/outside.txt") == [
        f"linked/outside.txt points to {elsewhere / 'outside.txt'}, outside it"]
    assert said("../elsewhere/outside.txt") == [f"{elsewhere / 'outside.txt'} is outside it"]
    assert said("inside.txt") == []


async def test_a_session_rule_answers_the_next_call(chat: LocalChat) -> None:
    await chat.send(("call-1", "Run", {}))
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE_FOR_SESSION)  # type: ignore[arg-type]
    await chat.settled()
    chat.client.answered.clear()
    await chat.send(("call-2", "Run", {}))
    await chat.settled()
    assert len(chat.run_tool.runs) == 2
    assert chat.transcript.call("call-2").auto_approved  # type: ignore[union-attr]


async def test_always_allow_is_saved_for_the_project_not_on_the_server(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "a.txt"}))
    chat.controller.decide(chat.controller.state.asking, Choice.ALWAYS_ALLOW)  # type: ignore[arg-type]
    await chat.settled()
    assert chat.client.rules == {}  # nothing changed on the agent
    assert ProjectRules(chat.rules.path).allowed(chat.workspace.root) == ["Change"]
    assert len(chat.edit_tool.runs) == 1


async def test_the_preview_of_a_change_is_shown_before_approval(chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "a.txt"}))
    call = chat.controller.state.asking
    assert call is not None and call.preview is not None and "+new line" in call.preview


async def ran_then_refused(chat: LocalChat) -> None:
    """A call approved and run here, whose result the server could not be reached for."""
    chat.client.turns.append(FakeStream(asks_for(("call-1", "Run", {}))))
    chat.client.answers.extend([FakeStream([], refuse=APIConnectionError("offline")),
                                FakeStream(recorded(HELLO))])
    chat.controller.submit("do it")
    await chat.until(lambda: chat.controller.state.asking is not None)
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.answer_error is not None)
    assert chat.controller.state.offline


async def test_a_call_that_ran_is_not_run_again_when_the_answers_are_refused(
        chat: LocalChat) -> None:
    await ran_then_refused(chat)
    ran = chat.controller.state.asking
    assert ran is not None and ran.tool_call_id == "call-1"  # asked to send it again…
    chat.controller.decide(ran, Choice.DENY, "too late")  # …not to deny what ran
    assert chat.controller.state.phase is Phase.AWAITING_APPROVAL and len(chat.client.answered) == 1
    chat.controller.decide(ran, Choice.APPROVE)
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE)
    assert len(chat.run_tool.runs) == 1
    assert chat.client.answered[0] == chat.client.answered[1]


async def test_results_that_could_not_be_sent_go_once_the_server_is_back(
        chat: LocalChat) -> None:
    await ran_then_refused(chat)
    chat.client.reach(True)  # the server answers again
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "sent again")
    assert len(chat.run_tool.runs) == 1 and len(chat.client.answered) == 2


async def test_switching_modes_cycles_and_is_reported(chat: LocalChat) -> None:
    modes = [chat.controller.switch_mode() for _ in range(3)]
    assert modes == [PermissionMode.ACCEPT_EDITS, PermissionMode.READ_ONLY, PermissionMode.ASK]
    assert chat.listener.states[-1].permission_mode is PermissionMode.ASK


async def test_quitting_while_a_call_runs_stops_it_tells_the_agent_then_exits(
        chat: LocalChat) -> None:
    chat.run_tool.hold = asyncio.Event()
    await chat.send(("call-1", "Run", {}))
    # (nothing runs yet: quit as usual)
    assert not chat.controller.leave_after_local_calls(quitting=True)
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.phase is Phase.RUNNING)
    assert chat.controller.leave_after_local_calls(quitting=True)
    await chat.until(lambda: chat.listener.exits == 1, "the exit")
    assert chat.run_tool.stopped
    assert [answer.tool_return for answer in only_answer(chat)] == [SAID_HI_THEN_STOPPED]


async def test_a_command_edited_on_the_prompt_is_what_runs_and_the_agent_is_told(
        chat: LocalChat) -> None:
    chat.run_tool.editable_argument = "command"  # type: ignore[misc]
    await chat.send(("call-1", "Run", {"command": "rm -rf build", "timeout": 5}))
    call = chat.controller.state.asking
    assert call is not None and chat.local.editable(call) == "rm -rf build"
    chat.controller.decide(call, Choice.EDIT, edited="")  # nothing to run: still asked
    assert chat.controller.state.asking is call and not call.edited
    chat.controller.decide(call, Choice.EDIT, edited="rm -rf build/tmp")
    await chat.settled()
    assert chat.run_tool.runs == [{"command": "rm -rf build/tmp", "timeout": 5}]
    (answer,) = only_answer(chat)
    assert answer.tool_return == ("The user edited the command before approving it; this ran "
                                  "instead: rm -rf build/tmp\n\nRun ran")
    assert call.edited and call.arguments == {"command": "rm -rf build/tmp", "timeout": 5}
    assert call.result == "Run ran" and call.status is ToolStatus.SUCCESS


async def test_a_command_of_several_lines_can_be_edited(chat: LocalChat) -> None:
    chat.run_tool.editable_argument = "command"  # type: ignore[misc]
    await chat.send(("call-1", "Run", {"command": "cat <<EOF\nx\nEOF"}))
    call = chat.controller.state.asking
    assert call is not None and chat.local.editable(call) == "cat <<EOF\nx\nEOF"
    chat.controller.decide(call, Choice.EDIT, edited="cat <<EOF\ny\nEOF")
    await chat.settled()
    assert chat.run_tool.runs == [{"command": "cat <<EOF\ny\nEOF"}]


@pytest.mark.parametrize("command", ["ls\u200b -la", "ls\rrm -rf ~"])
async def test_a_command_that_does_not_show_as_it_is_cannot_be_edited(
        chat: LocalChat, command: str) -> None:
    chat.run_tool.editable_argument = "command"  # type: ignore[misc]
    await chat.send(("call-1", "Run", {"command": command}))
    call = chat.controller.state.asking
    assert call is not None and chat.local.editable(call) is None
    chat.controller.decide(call, Choice.EDIT, edited="ls")
    assert chat.controller.state.asking is call and chat.run_tool.runs == []


async def test_only_a_tool_with_an_editable_argument_can_be_edited(chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"command": "x"}))
    call = chat.controller.state.asking
    assert call is not None and chat.local.editable(call) is None


async def test_a_call_bound_to_fail_is_not_asked_about_and_fails_unrun(chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "a.txt", "doomed": "a.txt was not read"}))
    await chat.settled()
    assert chat.edit_tool.runs == []
    assert all(state.asking is None for state in chat.listener.states)  # never asked
    assert only_answer(chat) == [ToolReturnAnswer(
        tool_call_id="call-1", tool_return="a.txt was not read", status="error")]
    call = chat.transcript.call("call-1")
    assert call is not None and call.status is ToolStatus.ERROR
    assert call.result == "a.txt was not read" and not call.auto_approved


async def test_a_call_another_local_call_runs_before_is_asked_about_all_the_same(
        chat: LocalChat) -> None:
    chat.edit_tool.doomed_until = chat.read_tool
    await chat.send(("call-1", "Look", {"path": "a.txt"}),
                    ("call-2", "Change", {"path": "a.txt", "doomed": "a.txt was not read"}))
    asked = [chat.controller.state.asking]
    chat.controller.decide(asked[0], Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.controller.state.asking is not asked[0], "the next prompt")
    asked.append(chat.controller.state.asking)
    assert [call.tool_call_id for call in asked if call] == ["call-1", "call-2"]
    chat.controller.decide(asked[1], Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    assert chat.edit_tool.runs == [{"path": "a.txt", "doomed": "a.txt was not read"}]


async def test_a_call_a_mode_allows_but_its_tool_refuses_fails_unrun_and_not_auto_approved(
        tmp_path: Path) -> None:
    chat = LocalChat(tmp_path, PermissionMode.ACCEPT_EDITS)
    await chat.send(("call-1", "Change", {"path": "a.txt", "doomed": "a.txt was not read"}))
    await chat.settled()
    assert chat.edit_tool.runs == []
    assert only_answer(chat) == [ToolReturnAnswer(
        tool_call_id="call-1", tool_return="a.txt was not read", status="error")]
    call = chat.transcript.call("call-1")
    assert call is not None and call.status is ToolStatus.ERROR
    assert not call.auto_approved  # its card says what refused it, not that it was let run
    await chat.controller.close()


async def test_a_call_still_refused_once_the_calls_before_it_ran_fails_unrun(
        tmp_path: Path) -> None:
    chat = LocalChat(tmp_path, PermissionMode.ACCEPT_EDITS)
    await chat.send(("call-1", "Look", {"path": "a.txt"}),
                    ("call-2", "Change", {"path": "a.txt", "doomed": "a.txt was not read"}))
    await chat.settled()
    assert chat.read_tool.runs and chat.edit_tool.runs == []
    looked, changed = chat.transcript.call("call-1"), chat.transcript.call("call-2")
    assert looked is not None and looked.auto_approved and looked.status is ToolStatus.SUCCESS
    assert changed is not None and changed.status is ToolStatus.ERROR
    assert changed.result == "a.txt was not read" and not changed.auto_approved
    await chat.controller.close()


@pytest.mark.parametrize("mode", [PermissionMode.ASK, PermissionMode.ACCEPT_EDITS])
async def test_the_export_claims_no_approval_of_a_call_its_tool_refused(
        tmp_path: Path, mode: PermissionMode) -> None:
    """Alone, or once the call before it ran (and the user approved both, when asked)."""
    for calls in ([("call-2", "Change", {"path": "a.txt", "doomed": "a.txt was not read"})],
                  [("call-1", "Look", {"path": "a.txt"}),
                   ("call-2", "Change", {"path": "a.txt", "doomed": "a.txt was not read"})]):
        chat = LocalChat(tmp_path / f"{len(calls)}", mode)
        await chat.send(*calls)
        if (asking := chat.controller.state.asking) is not None:
            chat.controller.decide(asking, Choice.APPROVE_ALL)
        await chat.settled()
        assert chat.edit_tool.runs == []
        markdown = to_markdown(chat.transcript.items, "tester")
        refused = markdown[markdown.index("### Tool call: `Change`"):]
        assert refused.startswith("### Tool call: `Change` (error)")
        assert "approved" not in refused.lower() and "a.txt was not read" in refused
        assert markdown.lower().count("approved") == len(calls) - 1  # the call that ran was
        await chat.controller.close()


async def test_a_link_planted_while_a_write_waits_for_approval_keeps_it_inside(
        chat: LocalChat, tmp_path: Path) -> None:
    chat.local.tools = (Write(),)
    await chat.send(("call-1", "Write", {"file_path": "new.txt", "content": "hi\n"}))
    call = chat.controller.state.asking
    assert call is not None
    outside = tmp_path / "outside.txt"
    (chat.workspace.root / "new.txt").symlink_to(outside)  # before the user says yes
    chat.controller.decide(call, Choice.APPROVE)
    await chat.settled()
    assert not outside.exists()
    assert call.status is ToolStatus.ERROR
    assert "changed since the call was approved" in (call.result or "")
