"""Switching the permission mode while local calls wait for an answer: the calls already
asked about keep asking (the switch answers none of them, whatever modes it passes through);
the new mode answers the calls the agent asks for next."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_local_calls import LocalChat

from openletta.api.answers import ApprovalAnswer, ToolReturnAnswer
from openletta.chat.approvals import Choice
from openletta.chat.controller import ChatController
from openletta.chat.turn_state import Phase
from openletta.tools import LOCAL_TOOLS
from openletta.tools.base import Workspace
from openletta.tools.permissions import PermissionMode, Permissions, ProjectRules

#: Longer than any mode was ever left to "settle" before it answered the calls waiting.
LONGER_THAN_SETTLING = 0.7


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[LocalChat]:
    chat = LocalChat(tmp_path, PermissionMode.ASK)
    yield chat
    await chat.controller.close()


def switch_to(controller: ChatController, mode: PermissionMode) -> None:
    """Press the switching key until ``mode`` is on."""
    while controller.switch_mode() is not mode:
        pass


async def still_asking(chat: LocalChat, call_id: str) -> None:
    """After a while, the call still asks and nothing was run or answered."""
    await asyncio.sleep(LONGER_THAN_SETTLING)
    state = chat.controller.state
    assert state.phase is Phase.AWAITING_APPROVAL
    assert state.asking is chat.transcript.call(call_id)
    assert not chat.client.answered
    assert chat.edit_tool.runs == chat.run_tool.runs == []


async def test_an_edit_waiting_is_not_approved_by_switching_to_accept_edits(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "notes.txt"}))
    switch_to(chat.controller, PermissionMode.ACCEPT_EDITS)
    await still_asking(chat, "call-1")
    switch_to(chat.controller, PermissionMode.READ_ONLY)  # (through accept-edits: the same)
    await still_asking(chat, "call-1")
    chat.controller.decide(chat.controller.state.asking, Choice.DENY, "no")  # type: ignore[arg-type]
    await chat.settled()
    assert only_answer_of(chat) == [ApprovalAnswer(tool_call_id="call-1", approve=False,
                                                   reason="no")]


async def test_a_command_waiting_is_not_denied_by_passing_through_read_only(
        chat: LocalChat) -> None:
    await chat.send(("call-1", "Run", {}))
    switch_to(chat.controller, PermissionMode.READ_ONLY)
    await still_asking(chat, "call-1")
    switch_to(chat.controller, PermissionMode.ASK)
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    assert chat.run_tool.runs == [{}]


async def test_the_new_mode_answers_the_calls_asked_next(chat: LocalChat) -> None:
    await chat.send(("call-1", "Change", {"path": "a.txt"}))
    switch_to(chat.controller, PermissionMode.ACCEPT_EDITS)
    assert chat.controller.state.asking is chat.transcript.call("call-1")
    chat.controller.decide(chat.controller.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    await chat.send(("call-2", "Change", {"path": "b.txt"}))
    await chat.until(lambda: len(chat.client.answered) == 2
                     and chat.controller.state.phase is Phase.IDLE, "both answered")
    assert chat.edit_tool.runs == [{"path": "a.txt"}, {"path": "b.txt"}]
    assert [type(answer) for answer in chat.client.answered[1]] == [ToolReturnAnswer]
    first, second = chat.transcript.call("call-1"), chat.transcript.call("call-2")
    assert first is not None and not first.auto_approved
    assert second is not None and second.auto_approved


def only_answer_of(chat: LocalChat) -> list[object]:
    assert len(chat.client.answered) == 1
    return list(chat.client.answered[0])


async def test_switching_with_no_request_waiting_answers_nothing(chat: LocalChat) -> None:
    switch_to(chat.controller, PermissionMode.READ_ONLY)
    assert chat.controller.state.phase is Phase.IDLE and not chat.client.answered


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
