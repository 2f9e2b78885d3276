"""Local tools on the real Letta 0.16.8: openletta declares its toolset in every request, the
scripted model calls it (``local …`` keywords), the call runs here only as the user allows,
and its result reaches the agent, whose follow-up answer quotes it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import setup_agent
from chat_fakes import Listener
from e2e_turns import history_transcript, until

from openletta.api.answers import INTERRUPTED
from openletta.api.client import LettaClient
from openletta.api.messages import ToolReturnMessage
from openletta.chat.approvals import Choice
from openletta.chat.controller import ChatController
from openletta.chat.local_calls import LocalCalls
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.tools.base import Workspace
from openletta.tools.permissions import PermissionMode, Permissions, ProjectRules
from openletta.transcript import AssistantItem, ToolCallItem, ToolStatus


class LocalChat:
    """A controller with the local toolset in a scratch working directory."""

    def __init__(self, client: LettaClient, session: ChatSession, root: Path,
                 rules: Path) -> None:
        self.listener = Listener()
        self.permissions = Permissions(Workspace(root, environment={
            **os.environ, "LETTA_API_KEY": "sk-never-seen"}),
            project_rules=ProjectRules(rules))
        self.controller = ChatController(session, self.listener, LocalCalls(self.permissions))
        self.root, self.client = root, client

    @property
    def state(self):
        return self.controller.state

    async def ask(self, text: str) -> ToolCallItem:
        """Send ``text``; the call the user is asked about."""
        self.controller.submit(text)
        await until(lambda: self.state.asking is not None)
        assert self.state.asking is not None
        return self.state.asking

    async def settled(self) -> None:
        await until(lambda: self.state.phase is Phase.IDLE and self.state.stop_reason)

    def answer(self) -> str:
        """The agent's last answer."""
        replies = [item for item in self.controller.session.transcript.items
                   if isinstance(item, AssistantItem)]
        return replies[-1].text


@pytest.fixture
async def chat(letta_base_url: str, fresh_agent_id: str, tmp_path: Path
               ) -> AsyncIterator[LocalChat]:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("hello world\n")
    async with LettaClient(letta_base_url) as client:
        session = ChatSession(client, await client.get_agent(fresh_agent_id))
        chat = LocalChat(client, session, root, tmp_path / "rules.toml")
        yield chat
        await chat.controller.close()


async def test_an_approved_listing_runs_here_and_reaches_the_agent(chat: LocalChat) -> None:
    call = await chat.ask("local ls")
    assert call.name == "LS" and call.runs_here
    chat.controller.decide(call, Choice.APPROVE)
    await chat.settled()
    assert call.status is ToolStatus.SUCCESS and "notes.txt" in (call.result or "")
    assert "notes.txt" in chat.answer()  # the agent got the result


async def test_read_only_mode_reads_without_asking(chat: LocalChat) -> None:
    chat.permissions.mode = PermissionMode.READ_ONLY
    chat.controller.submit("local read notes.txt")
    await chat.settled()
    assert "hello world" in chat.answer()
    chat.controller.submit("local write other.txt")
    await chat.settled()
    assert not (chat.root / "other.txt").exists()
    assert "read-only mode" in chat.answer()


async def test_an_edit_shows_its_diff_then_changes_the_file(chat: LocalChat) -> None:
    chat.controller.decide(await chat.ask("local read notes.txt"), Choice.APPROVE)
    await chat.settled()
    call = await chat.ask("local edit notes.txt")
    assert call.preview is not None
    assert "-hello world" in call.preview and "+goodbye world" in call.preview
    assert (chat.root / "notes.txt").read_text() == "hello world\n"  # not before approval
    chat.controller.decide(call, Choice.APPROVE)
    await chat.settled()
    assert (chat.root / "notes.txt").read_text() == "goodbye world\n"
    assert call.status is ToolStatus.SUCCESS
    # The server keeps the diff sent with the result: history shows the change as live did.
    stored = await history_transcript(chat.client, chat.controller.session.agent.id)
    edit = next(item for item in stored.items
                if isinstance(item, ToolCallItem) and item.name == "Edit")
    assert edit.client_result and edit.stdout == call.stdout
    assert "@@ -1 +1 @@\n-hello world\n+goodbye world\n" in "".join(edit.stdout)


async def test_a_denial_goes_back_with_the_reason(chat: LocalChat) -> None:
    call = await chat.ask("local count")
    chat.controller.decide(call, Choice.DENY, "not on my laptop")
    await chat.settled()
    assert call.status is ToolStatus.DENIED and not call.stdout
    assert "not on my laptop" in chat.answer()


async def test_a_command_streams_its_output_live(chat: LocalChat) -> None:
    seen: list[tuple[ToolStatus, str]] = []
    call = await chat.ask("local count")
    original = chat.listener.transcript_changed

    def watch(change):
        seen.append((call.status, "".join(call.stdout)))
        original(change)

    chat.listener.transcript_changed = watch  # type: ignore[method-assign]
    chat.controller.decide(call, Choice.APPROVE)
    await chat.settled()
    running = [output for status, output in seen if status is ToolStatus.RUNNING]
    assert any("line 1" in output and "line 3" not in output for output in running)
    assert "Exit code: 0" in (call.result or "") and "line 3" in (call.result or "")


async def test_esc_stops_a_long_command_and_the_agent_is_told_with_the_next_message(
        chat: LocalChat) -> None:
    call = await chat.ask("local sleep")
    chat.controller.decide(call, Choice.APPROVE)
    await until(lambda: call.status is ToolStatus.RUNNING)
    await asyncio.sleep(0.3)
    started = asyncio.get_running_loop().time()
    chat.controller.interrupt()
    await chat.settled()
    assert asyncio.get_running_loop().time() - started < 10
    assert call.result == INTERRUPTED and call.status is ToolStatus.CANCELLED
    assert chat.state.stop_reason == "interrupted"
    chat.controller.submit("hello again")
    await until(lambda: chat.state.phase is Phase.IDLE and chat.state.stop_reason == "end_turn")
    assert "Hello" in chat.answer()  # the agent answered the message, the call's result read
    page = await chat.client.list_messages(chat.controller.session.agent.id)
    returns = [result.tool_return for message in page.messages
               if isinstance(message, ToolReturnMessage) for result in message.tool_returns]
    assert INTERRUPTED in returns


async def test_the_child_never_sees_the_api_key(chat: LocalChat) -> None:
    chat.permissions.mode = PermissionMode.YOLO  # runs at once (the status bar warns)
    chat.controller.submit("local env")
    await chat.settled()
    call = next(item for item in chat.controller.session.transcript.items
                if isinstance(item, ToolCallItem) and item.name == "Bash")
    assert "secrets: 0" in (call.result or "")
    assert "secrets: 0" in chat.answer()


async def test_a_round_of_a_server_call_and_a_local_call_goes_back_in_one_message(
        letta_base_url: str, chat: LocalChat) -> None:
    agent_id = chat.controller.session.agent.id
    agent = setup_agent.call(letta_base_url, "GET", f"/v1/agents/{agent_id}")
    setup_agent.call(letta_base_url, "PATCH", f"/v1/agents/{agent_id}", {
        "llm_config": {**agent["llm_config"], "parallel_tool_calls": True}})
    first = await chat.ask("local mixed")
    names = {first.name}
    chat.controller.decide(first, Choice.APPROVE)
    await until(lambda: chat.state.asking is not first)
    second = chat.state.asking
    assert second is not None
    names.add(second.name)
    chat.controller.decide(second, Choice.APPROVE)
    await chat.settled()
    assert names == {"Bash", "bash"}
    local = first if first.runs_here else second
    server = second if local is first else first
    assert local.runs_here and not server.runs_here
    assert local.status is ToolStatus.SUCCESS and "mixed" in (local.result or "")
    assert server.status is ToolStatus.SUCCESS
    assert chat.state.stop_reason == "end_turn"
