"""A call the agent will not run says so from the moment that is known, never "waiting":
with one call per step (``parallel_tool_calls: false``) the server keeps only the call it
asks about, and drops a server call streamed with it."""

from __future__ import annotations

import pytest
from chat_fakes import FakeClient

from openletta.api.messages import ApprovalRequestMessage, parse_message
from openletta.api.resources import Agent, LLMConfig
from openletta.chat.session import ChatSession
from openletta.transcript import ToolStatus
from openletta.transcript.change import Change

LOCAL = {"tool_call_id": "call-local", "name": "Bash", "arguments": '{"command": "echo mixed"}'}
SERVER = {"tool_call_id": "call-server", "name": "bash", "arguments": '{"command": "ls -la"}'}


def stopped_for_the_local_call(session: ChatSession) -> None:
    """The step of ``local mixed``: a call of this client's, which the server asks about,
    and a server call that needs no approval; then the run stops for the answer."""
    session.transcript.feed(parse_message({
        "message_type": "approval_request_message", "id": "message-1", "tool_call": LOCAL}))
    session.transcript.feed(parse_message({
        "message_type": "tool_call_message", "id": "message-1", "tool_call": SERVER}))
    session.transcript.feed(parse_message({
        "message_type": "stop_reason", "stop_reason": "requires_approval"}))


@pytest.mark.parametrize(("parallel", "shown"), [
    (False, ToolStatus.NOT_RUN), (True, ToolStatus.WAITING), (None, ToolStatus.WAITING)])
async def test_a_server_call_beside_the_one_asked_about_is_not_run_with_one_call_per_step(
        parallel: bool | None, shown: ToolStatus) -> None:
    """As the run stops, and while the agent asks: only an agent that runs every call of a
    step runs the server's call once answered (it waits); otherwise it never shows waiting."""
    client = FakeClient()
    client.held = ApprovalRequestMessage.model_validate({
        "message_type": "approval_request_message", "id": "message-1",
        "tool_calls": [LOCAL]})
    agent = Agent(id="agent-1", llm_config=LLMConfig(parallel_tool_calls=parallel))
    session = ChatSession(client, agent)  # type: ignore[arg-type]
    statuses: list[ToolStatus] = []

    def seen(_change: Change) -> None:
        statuses.append(session.transcript.call("call-server").status)

    stopped_for_the_local_call(session)
    seen(Change())
    round_ = await session.pending_round(seen)

    assert round_ is not None and [call.tool_call_id for call in round_.calls] == ["call-local"]
    assert set(statuses) == {shown}

