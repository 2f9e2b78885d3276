"""Switching the permission mode while local calls wait for an answer: each gets the answer
the new mode gives (it runs, marked auto-approved, or is denied with the mode's reason), or
keeps asking; nothing runs that the new mode would not have let run."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_local_calls import LocalChat, only_answer

from openletta.api.answers import ApprovalAnswer, ToolReturnAnswer
from openletta.chat import approval_flow
from openletta.chat.approvals import Choice
from openletta.chat.turn_state import Phase
from openletta.tools import LOCAL_TOOLS
from openletta.tools.base import Workspace
from openletta.tools.permissions import PermissionMode, Permissions, ProjectRules, read_only_denial
from openletta.transcript import ToolStatus


@pytest.fixture(autouse=True)
def quick_settling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(approval_flow, "MODE_SETTLE_SECONDS", 0.01)


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[LocalChat]:
    chat = LocalChat(tmp_path, PermissionMode.ASK)
    yield chat
    await chat.controller.close()


async def switch_to(chat: LocalChat, mode: PermissionMode) -> None:
    """Press the switching key until ``mode`` is on, and let it settle."""
    while chat.controller.switch_mode() is not mode:
        pass
    settling = chat.controller._approvals._settling
    await chat.until(lambda: settling is None or settling.done(), "the mode settled")


async def test_an_edit_waiting_runs_once_accept_edits_is_on(chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "notes.txt"}))
    assert chat.controller.state.asking is not None and chat.edit_tool.runs == []
    await switch_to(chat, PermissionMode.ACCEPT_EDITS)
    await chat.settled()
    assert chat.edit_tool.runs == [{"path": "notes.txt"}]
    assert only_answer(chat) == [ToolReturnAnswer(
        tool_call_id="call-1", tool_return="Change ran", status="success",
        stdout=["Change says hi\n"])]
    call = chat.transcript.call("call-1")
    assert call is not None and call.auto_approved and call.status is ToolStatus.SUCCESS


async def test_a_command_keeps_asking_in_accept_edits_and_read_only_denies_it(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Run", {}))
    await switch_to(chat, PermissionMode.ACCEPT_EDITS)
    assert chat.controller.state.asking is chat.transcript.call("call-1")
    assert chat.controller.state.phase is Phase.AWAITING_APPROVAL
    await switch_to(chat, PermissionMode.READ_ONLY)
    await chat.settled()
    assert chat.run_tool.runs == []
    assert only_answer(chat) == [ApprovalAnswer(
        tool_call_id="call-1", approve=False, reason=read_only_denial(chat.run_tool))]
    call = chat.transcript.call("call-1")
    assert call is not None and call.status is ToolStatus.DENIED and not call.auto_approved


async def test_each_of_several_calls_waiting_gets_the_new_modes_answer(
        chat: LocalChat, tmp_path: Path) -> None:
    outside = str(tmp_path / "elsewhere.txt")
    await chat.send(("call-1", "Run", {}), ("call-2", "Change", {"path": "notes.txt"}),
                    ("call-3", "Change", {"path": outside}), ("call-4", "bash", {}),
                    ("call-5", "Look", {}))
    await switch_to(chat, PermissionMode.ACCEPT_EDITS)
    state = chat.controller.state
    assert state.asking is chat.transcript.call("call-1") and state.undecided == 3
    assert chat.edit_tool.runs == chat.read_tool.runs == []  # nothing runs while one asks
    chat.controller.decide(state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    assert chat.controller.state.asking is chat.transcript.call("call-3")
    chat.controller.decide(chat.controller.state.asking, Choice.DENY, "not there")  # type: ignore[arg-type]
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    assert len(chat.run_tool.runs) == 1 and chat.read_tool.runs == [{}]
    assert chat.edit_tool.runs == [{"path": "notes.txt"}]  # not the one outside
    answers = only_answer(chat)
    assert [type(answer) for answer in answers] == [
        ToolReturnAnswer, ToolReturnAnswer, ApprovalAnswer, ApprovalAnswer, ToolReturnAnswer]
    assert answers[2] == ApprovalAnswer(tool_call_id="call-3", approve=False,
                                        reason="not there")
    assert [chat.transcript.call(f"call-{n}").auto_approved  # type: ignore[union-attr]
            for n in range(1, 6)] == [False, True, False, False, True]


async def test_what_a_mode_answered_is_answered_again_by_the_next_one(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "notes.txt"}), ("call-2", "Run", {}))
    await switch_to(chat, PermissionMode.ACCEPT_EDITS)
    assert chat.controller.state.asking is chat.transcript.call("call-2")
    await switch_to(chat, PermissionMode.READ_ONLY)  # the edit accept-edits let through: denied
    await chat.settled()
    assert chat.edit_tool.runs == chat.run_tool.runs == []
    assert only_answer(chat) == [
        ApprovalAnswer(tool_call_id="call-1", approve=False,
                       reason=read_only_denial(chat.edit_tool)),
        ApprovalAnswer(tool_call_id="call-2", approve=False,
                       reason=read_only_denial(chat.run_tool))]


async def test_back_in_ask_mode_what_a_mode_answered_asks_again(
        chat: LocalChat, tmp_path: Path) -> None:
    await chat.send(("call-1", "Change", {"path": "notes.txt"}),
                    ("call-2", "Change", {"path": str(tmp_path / "elsewhere.txt")}))
    await switch_to(chat, PermissionMode.READ_ONLY)  # the one outside asks in every mode
    assert chat.controller.state.asking is chat.transcript.call("call-2")
    await switch_to(chat, PermissionMode.ASK)
    state = chat.controller.state
    assert state.asking is chat.transcript.call("call-1") and state.undecided == 2
    assert chat.edit_tool.runs == [] and not chat.client.answered


async def test_a_request_left_pending_stays_so_with_fewer_calls_waiting(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "a.txt"}), ("call-2", "Run", {}))
    chat.controller.leave(deny=False, quitting=False)
    await switch_to(chat, PermissionMode.ACCEPT_EDITS)
    state = chat.controller.state
    assert state.asking is None and state.undecided == 1 and chat.edit_tool.runs == []
    chat.controller.ask_again()
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    assert chat.edit_tool.runs == [{"path": "a.txt"}] and chat.run_tool.runs == [{}]


async def test_switching_with_no_request_waiting_answers_nothing(chat: LocalChat) -> None:
    await switch_to(chat, PermissionMode.READ_ONLY)
    assert chat.controller.state.phase is Phase.IDLE and not chat.client.answered


async def test_a_mode_passed_through_on_the_way_to_another_answers_nothing(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "notes.txt"}))
    assert chat.controller.switch_mode() is PermissionMode.ACCEPT_EDITS  # would run it…
    await switch_to(chat, PermissionMode.READ_ONLY)  # …but the key goes on at once
    await chat.settled()
    assert chat.edit_tool.runs == []
    assert only_answer(chat) == [ApprovalAnswer(
        tool_call_id="call-1", approve=False, reason=read_only_denial(chat.edit_tool))]


def test_a_mode_is_described_with_the_tools_the_users_rules_let_run(tmp_path: Path) -> None:
    rules = ProjectRules(tmp_path / "local-tools.toml")
    permissions = Permissions(Workspace(tmp_path), project_rules=rules)
    tools = LOCAL_TOOLS
    assert permissions.described(tools) == "Mode: ask. Every local call asks first."
    permissions.session.add("LS")
    assert permissions.described(tools) == (
        "Mode: ask. Every local call asks first. Your rules let LS run without asking.")
    permissions.allow_always("Read")
    assert permissions.described(tools).endswith("Your rules let LS and Read run without asking.")
    permissions.mode = PermissionMode.ACCEPT_EDITS  # reads run anyway: only commands count
    assert permissions.described(tools).endswith("commands still ask.")
    permissions.allow_always("Bash")
    assert permissions.described(tools).endswith(
        "commands still ask. Your rules let Bash run without asking.")
    permissions.mode = PermissionMode.READ_ONLY  # the mode decides: rules do not count
    assert permissions.described(tools) == (
        f"Mode: read-only. {PermissionMode.READ_ONLY.explained}")
