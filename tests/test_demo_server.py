"""The embedded demo server speaks the wire format of the real Letta 0.16.8 captures."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from openletta.api.messages import (
    ApprovalRequestMessage,
    AssistantMessage,
    Ping,
    ReasoningMessage,
    StopReason,
    ToolCallMessage,
    ToolReturnMessage,
    UsageStatistics,
    parse_message,
)
from openletta.demo import DemoServer, DemoServerThread
from openletta.demo.ids import part_otid, previous_message_id
from openletta.demo.script import Outcome, ScriptedCall, _read_after_listing
from openletta.tools.base import Workspace
from openletta.tools.search import LS

FIXTURES = Path(__file__).parent / "fixtures"
CANCELLED_LINE = '{"message_type": "stop_reason", "stop_reason": "cancelled"}'


@dataclass
class Event:
    event: str
    data: str

    @property
    def chunk(self) -> dict[str, Any]:
        return json.loads(self.data)


@pytest.fixture
async def server() -> AsyncIterator[DemoServer]:
    demo = DemoServer(speed=0)
    await demo.start()
    try:
        yield demo
    finally:
        await demo.stop()


@pytest.fixture
async def client(server: DemoServer) -> AsyncIterator[httpx.AsyncClient]:
    assert server.base_url is not None
    async with httpx.AsyncClient(base_url=server.base_url, headers={"User-Agent": ""}) as http:
        yield http


async def first_agent_id(client: httpx.AsyncClient) -> str:
    return (await client.get("/v1/agents/")).json()[0]["id"]


async def stream(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> list[Event]:
    async with aconnect_sse(client, "POST", path, json=body) as source:
        assert source.response.status_code == 200
        return [Event(sse.event, sse.data) async for sse in source.aiter_sse()]


async def say(client: httpx.AsyncClient, agent_id: str, text: str, **options: Any) -> list[Event]:
    body = {"messages": [{"role": "user", "content": text}], "stream_tokens": True, **options}
    return await stream(client, f"/v1/agents/{agent_id}/messages/stream", body)


async def answer(client: httpx.AsyncClient, agent_id: str,
                 approvals: list[dict[str, Any]]) -> list[Event]:
    body = {"messages": [{"type": "approval", "approvals": approvals}], "stream_tokens": True}
    return await stream(client, f"/v1/agents/{agent_id}/messages/stream", body)


def messages(events: list[Event]) -> list[Any]:
    return [parse_message(event.chunk) for event in events
            if event.event == "message" and event.data != "[DONE]"]


def of_type(events: list[Event], message_type: str) -> list[dict[str, Any]]:
    return [event.chunk for event in events if event.event == "message"
            and event.data != "[DONE]" and event.chunk["message_type"] == message_type]


def captured_keys(*names: str) -> dict[str, list[str]]:
    """The key order of every message type in the named real captures."""
    keys: dict[str, list[str]] = {}
    for name in names:
        text = (FIXTURES / name).read_text()
        chunks = (json.loads(text) if name.endswith(".json") else
                  [json.loads(line[6:]) for line in text.splitlines()
                   if line.startswith("data: {")])
        for chunk in chunks:
            keys.setdefault(chunk["message_type"], list(chunk))
    return keys


STREAM_KEYS = captured_keys("read_tool_tokens.sse", "approval_request_tokens.sse",
                            "approval_approve_tokens.sse", "llm_error_tokens.sse")
HISTORY_KEYS = captured_keys("agent_messages_default.json")


def assert_wire_shape(events: list[Event]) -> None:
    """Every event has the key order of the captures and is compact JSON."""
    for event in events:
        if event.data == "[DONE]":
            continue
        chunk = event.chunk
        assert list(chunk) == STREAM_KEYS[chunk["message_type"]]
        assert event.data == json.dumps(chunk, separators=(",", ":"), ensure_ascii=False)


async def history(client: httpx.AsyncClient, agent_id: str, **params: Any) -> list[dict]:
    response = await client.get(f"/v1/agents/{agent_id}/messages", params=params)
    assert response.status_code == 200
    return response.json()


async def test_health_routes_and_trailing_slashes(client: httpx.AsyncClient) -> None:
    assert (await client.get("/v1/health/")).json() == {"version": "0.16.8", "status": "ok"}
    redirect = await client.get("/v1/agents")
    assert redirect.status_code == 307 and redirect.headers["location"] == "/v1/agents/"
    agent_id = await first_agent_id(client)
    assert (await client.get(f"/v1/agents/{agent_id}/")).status_code == 307
    missing = await client.get("/v1/nothing/here")
    assert missing.status_code == 404 and missing.json() == {"detail": "Not Found"}
    assert (await client.get("/v1/agents/", params={"limit": "many"})).status_code == 422
    wrong_method = await client.get("/v1/runs/run-1/stream")
    assert wrong_method.status_code == 405
    assert wrong_method.json() == {"detail": "Method Not Allowed"}


async def test_malformed_requests_get_a_400_and_the_server_goes_on(server: DemoServer,
                                                                     client: httpx.AsyncClient
                                                                     ) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"NONSENSE\r\n\r\n")
    assert (await reader.read()).startswith(b"HTTP/1.1 400 Bad Request\r\n")
    writer.close()
    assert (await client.get("/v1/health/")).status_code == 200


async def test_unknown_agent_is_a_404_with_its_id(client: httpx.AsyncClient) -> None:
    agent_id = "agent-00000000-0000-4000-8000-000000000000"
    response = await client.get(f"/v1/agents/{agent_id}")
    assert response.status_code == 404
    assert response.json() == {"detail": f"Agent with ID {agent_id} not found"}
    sent = await client.post(f"/v1/agents/{agent_id}/messages/stream",
                             json={"messages": [{"role": "user", "content": "hi"}]})
    assert sent.status_code == 404


async def test_agents_list_filters_and_pages(client: httpx.AsyncClient) -> None:
    agents = (await client.get("/v1/agents/")).json()
    assert len(agents) >= 3 and agents[0]["name"] == "demo-agent"
    assert agents[0]["tools"] == [] and agents[0]["llm_config"]["context_window"] == 32000
    assert agents[0]["llm_config"]["handle"] == "demo/scripted-model"
    found = (await client.get("/v1/agents/", params={"query_text": "RUNBOOK"})).json()
    assert [agent["name"] for agent in found] == ["ops-runbook"]
    page = (await client.get("/v1/agents/", params={"limit": 1, "after": agents[0]["id"]}))
    assert [agent["id"] for agent in page.json()] == [agents[1]["id"]]
    legacy = (await client.get("/v1/agents/", headers={"User-Agent": "python-httpx/0.28"}))
    assert {tool["name"] for tool in legacy.json()[0]["tools"]} >= {"bash", "read_file"}


async def test_created_agents_are_listed_with_their_memory(client: httpx.AsyncClient) -> None:
    body = {"name": "helper", "model": "demo/scripted-model",
            "memory_blocks": [{"label": "persona", "value": "I help."}]}
    first = (await client.post("/v1/agents/", json=body)).json()
    second = (await client.post("/v1/agents/", json=body)).json()
    assert first["name"] == second["name"] == "helper" and first["id"] != second["id"]
    blocks = (await client.get(f"/v1/agents/{first['id']}/core-memory/blocks")).json()
    assert [(block["label"], block["value"]) for block in blocks] == [("persona", "I help.")]
    found = (await client.get("/v1/agents/", params={"query_text": "help"})).json()
    assert {agent["id"] for agent in found} == {first["id"], second["id"]}
    unknown = await client.post("/v1/agents/", json={"name": "x", "model": "nope/none"})
    assert unknown.status_code == 404 and "nope/none" in unknown.json()["detail"]


async def test_an_agents_model_is_set_only_to_one_the_server_has(
        client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    same = await client.patch(f"/v1/agents/{agent_id}", json={"model": "demo/scripted-model"})
    assert same.status_code == 200 and same.json()["llm_config"]["handle"] == "demo/scripted-model"
    other = await client.patch(f"/v1/agents/{agent_id}", json={"model": "nope/none"})
    assert other.status_code == 404 and "nope/none" in other.json()["detail"]


async def test_hello_turn_has_the_captured_shape(client: httpx.AsyncClient) -> None:
    events = await say(client, await first_agent_id(client), "hello")
    parsed = messages(events)
    assert isinstance(parsed[0], Ping) and parsed[0].run_id
    reasoning = [m for m in parsed if isinstance(m, ReasoningMessage)]
    assistant = [m for m in parsed if isinstance(m, AssistantMessage)]
    assert len(reasoning) > 3 and len(assistant) > 3
    message_id = reasoning[0].id
    assert message_id is not None
    assert {m.id for m in reasoning + assistant} == {message_id}
    assert {m.otid for m in reasoning} == {part_otid(message_id, 0)}
    assert {m.otid for m in assistant} == {part_otid(message_id, 1)}
    assert parsed.index(reasoning[-1]) < parsed.index(assistant[0])
    stop, usage = parsed[-2], parsed[-1]
    assert isinstance(stop, StopReason) and stop.stop_reason == "end_turn"
    assert isinstance(usage, UsageStatistics) and usage.step_count == 1
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0
    assert events[-1].data == "[DONE]"
    assert_wire_shape(events)


async def test_send_message_ends_the_turn_after_one_step(client: httpx.AsyncClient) -> None:
    """An older agent type replies through ``send_message``: no follow-up step."""
    parsed = messages(await say(client, await first_agent_id(client), "legacy"))
    calls = [m for m in parsed if isinstance(m, ToolCallMessage)]
    returns = [m for m in parsed if isinstance(m, ToolReturnMessage)]
    assert {call.name for m in calls for call in m.tool_calls if call.name} == {"send_message"}
    assert [r.status for m in returns for r in m.tool_returns] == ["success"]
    assert not [m for m in parsed if isinstance(m, AssistantMessage)]
    stop, usage = parsed[-2], parsed[-1]
    assert isinstance(stop, StopReason) and stop.stop_reason == "end_turn"
    assert isinstance(usage, UsageStatistics) and usage.step_count == 1


async def test_context_tokens_grow_from_turn_to_turn(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    first = of_type(await say(client, agent_id, "hello"), "usage_statistics")[0]
    second = of_type(await say(client, agent_id, "bash"), "usage_statistics")[0]
    assert second["context_tokens"] > first["context_tokens"] > 0
    assert second["step_count"] == 2


async def test_server_tool_streams_name_then_argument_fragments(client: httpx.AsyncClient
                                                                 ) -> None:
    events = await say(client, await first_agent_id(client), "read the file")
    assert_wire_shape(events)
    calls = of_type(events, "tool_call_message")
    assert list(calls[0]["tool_calls"]) == ["name", "tool_call_id"]
    assert calls[0]["tool_call"] == calls[0]["tool_calls"]
    assert all(list(call["tool_calls"]) == ["arguments", "tool_call_id"] for call in calls[1:])
    arguments = json.loads("".join(call["tool_calls"]["arguments"] for call in calls[1:]))
    assert arguments["path"].endswith(".py")
    (returned,) = [m for m in messages(events) if isinstance(m, ToolReturnMessage)]
    call_id = calls[0]["tool_calls"]["tool_call_id"]
    assert returned.tool_returns[0].tool_call_id == call_id
    assert returned.tool_returns[0].status == "success"
    assert "def greet" in (returned.tool_returns[0].tool_return or "")
    follow_up = of_type(events, "assistant_message")
    assert follow_up and follow_up[0]["id"] not in {calls[0]["id"], returned.id}
    stored = [m for m in await history(client, await first_agent_id(client))
              if m["message_type"] == "tool_call_message"]
    assert isinstance(stored[-1]["tool_calls"], list)
    assert json.loads(stored[-1]["tool_calls"][0]["arguments"]) == arguments


async def test_step_mode_sends_whole_parts(client: httpx.AsyncClient) -> None:
    events = await say(client, await first_agent_id(client), "read", stream_tokens=False)
    (call,) = of_type(events, "tool_call_message")
    assert isinstance(call["tool_calls"], list) and call["tool_call"] == call["tool_calls"][0]
    (parsed,) = [m for m in messages(events) if isinstance(m, ToolCallMessage)]
    assert not parsed.is_delta and parsed.tool_calls[0].name == "read_file"
    assert len(of_type(events, "reasoning_message")) == 2
    assert len(of_type(events, "assistant_message")) == 1


async def test_keepalive_pings_fill_silences() -> None:
    demo = DemoServer(speed=1.0, keepalive=0.02)
    base_url = await demo.start()
    try:
        async with httpx.AsyncClient(base_url=base_url) as client:
            agent_id = await first_agent_id(client)
            body = {"messages": [{"role": "user", "content": "slow"}], "stream_tokens": True}
            seen: list[dict[str, Any]] = []
            async with aconnect_sse(client, "POST", f"/v1/agents/{agent_id}/messages/stream",
                                    json=body) as source:
                async for sse in source.aiter_sse():
                    seen.append(json.loads(sse.data))
                    if len(seen) > 1 and seen[-1]["message_type"] == "ping":
                        break
            assert seen[0]["message_type"] == "ping"
            assert seen[-1]["run_id"] == seen[0]["run_id"] and seen[-1]["id"] != seen[0]["id"]
    finally:
        await demo.stop()


async def test_tool_error_and_ansi_output_reach_the_client_verbatim(client: httpx.AsyncClient
                                                                     ) -> None:
    agent_id = await first_agent_id(client)
    (failed,) = of_type(await say(client, agent_id, "error"), "tool_return_message")
    assert failed["status"] == "error" and failed["stderr"][0].startswith("Traceback")
    (listing,) = of_type(await say(client, agent_id, "bash"), "tool_return_message")
    assert "\x1b[01;34m" in listing["tool_return"]
    assert listing["tool_return"].endswith("exit status 0")
    (hostile,) = of_type(await say(client, agent_id, "hostile"), "tool_return_message")
    assert "[bold red]markup[/]" in hostile["tool_return"]
    assert "\x1b]52;c;" in hostile["tool_return"] and "\x1b[2J" in hostile["tool_return"]


async def test_approval_request_uses_the_assistant_id_minus_one(client: httpx.AsyncClient
                                                                 ) -> None:
    agent_id = await first_agent_id(client)
    events = await say(client, agent_id, "approve")
    assert_wire_shape(events)
    assistant = of_type(events, "assistant_message")
    requests = of_type(events, "approval_request_message")
    assert {r["id"] for r in requests} == {previous_message_id(assistant[0]["id"])}
    assert all(r["otid"] == r["id"] for r in requests)
    assert requests[0]["tool_calls"]["name"] == "bash"
    assert requests[0]["tool_calls"]["arguments"] is None
    assert all(r["tool_calls"]["name"] is None for r in requests[1:])
    assert [m.stop_reason for m in messages(events) if isinstance(m, StopReason)] == [
        "requires_approval"]
    agent = (await client.get(f"/v1/agents/{agent_id}",
                              params={"include": "agent.pending_approval"})).json()
    pending = parse_message(agent["pending_approval"])
    assert isinstance(pending, ApprovalRequestMessage) and pending.id == requests[0]["id"]
    assert json.loads(pending.tool_calls[0].arguments or "") == {"command": "rm -rf build/"}


async def test_history_has_the_captured_shapes(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    await say(client, agent_id, "hello")
    await say(client, agent_id, "read")
    request = of_type(await say(client, agent_id, "approve"), "approval_request_message")[0]
    await answer(client, agent_id, [{"type": "approval", "approve": False, "reason": "no",
                                     "tool_call_id": request["tool_calls"]["tool_call_id"]}])
    stored = await history(client, agent_id)
    assert {m["message_type"] for m in stored} == set(HISTORY_KEYS)
    for message in stored:
        assert list(message) == HISTORY_KEYS[message["message_type"]]
    assert stored[0]["message_type"] == "system_message"
    assert all(parse_message(m).message_type == m["message_type"] for m in stored)


async def test_approve_runs_the_tool_then_continues(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    request = of_type(await say(client, agent_id, "danger"), "approval_request_message")[0]
    call_id = request["tool_calls"]["tool_call_id"]
    events = await answer(client, agent_id, [{"type": "approval", "tool_call_id": call_id,
                                              "approve": True}])
    assert_wire_shape(events)
    parsed = messages(events)
    assert isinstance(parsed[0], Ping) and isinstance(parsed[1], ToolReturnMessage)
    assert parsed[1].tool_returns[0].tool_call_id == call_id
    assert parsed[1].step_id == request["step_id"]
    assert any(isinstance(m, AssistantMessage) for m in parsed[2:])
    assert parsed[-2].stop_reason == "end_turn"  # type: ignore[union-attr]
    stored = await history(client, agent_id)
    kinds = [m["message_type"] for m in stored]
    assert kinds[kinds.index("approval_request_message") + 1:][:2] == [
        "approval_response_message", "tool_return_message"]
    agent = (await client.get(f"/v1/agents/{agent_id}",
                              params={"include": "agent.pending_approval"})).json()
    assert agent["pending_approval"] is None


async def test_deny_keeps_the_denial_in_history_only(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    request = of_type(await say(client, agent_id, "write"), "approval_request_message")[0]
    call_id = request["tool_calls"]["tool_call_id"]
    events = await answer(client, agent_id, [{"type": "approval", "tool_call_id": call_id,
                                              "approve": False, "reason": "not now"}])
    assert not of_type(events, "tool_return_message")
    reply = "".join(chunk["content"] for chunk in of_type(events, "assistant_message"))
    assert "not now" in reply
    stored = await history(client, agent_id)
    response = next(m for m in stored if m["message_type"] == "approval_response_message")
    assert response["approvals"] == [{"type": "approval", "tool_call_id": call_id,
                                      "approve": False, "reason": "not now"}]
    denial = next(m for m in stored if m["message_type"] == "tool_return_message")
    assert denial["tool_return"] == "Error: request to call tool denied. User reason: not now"
    assert denial["status"] == "error" and denial["name"] is None


async def test_answers_with_a_message_get_one_reply_to_the_message(
        client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    request = of_type(await say(client, agent_id, "write"), "approval_request_message")[0]
    call_id = request["tool_calls"]["tool_call_id"]
    body = {"messages": [
        {"type": "approval", "approvals": [{"type": "approval", "tool_call_id": call_id,
                                            "approve": False, "reason": "stopped"}]},
        {"type": "message", "role": "user", "content": "hello"}], "stream_tokens": True}
    events = await stream(client, f"/v1/agents/{agent_id}/messages/stream", body)
    assert_wire_shape(events)
    reply = "".join(chunk["content"] for chunk in of_type(events, "assistant_message"))
    assert "stopped" not in reply and reply == "".join(
        chunk["content"] for chunk in of_type(await say(client, agent_id, "hello"),
                                              "assistant_message"))
    kinds = [m["message_type"] for m in await history(client, agent_id)]
    response = kinds.index("approval_response_message")
    assert kinds[response + 1:response + 3] == ["tool_return_message", "user_message"]


async def test_parallel_requests_need_every_tool_call_id(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    events = await say(client, agent_id, "parallel")
    call_ids = list(dict.fromkeys(r["tool_calls"]["tool_call_id"]
                                  for r in of_type(events, "approval_request_message")))
    assert len(call_ids) == 2
    partial = await answer(client, agent_id, [{"type": "approval", "tool_call_id": call_ids[0],
                                               "approve": True}])
    assert [e.event for e in partial][-2:] == ["error", "message"]
    assert "Invalid tool call IDs" in partial[-2].chunk["detail"]
    both = await answer(client, agent_id, [{"type": "approval", "tool_call_id": call_id,
                                            "approve": True} for call_id in call_ids])
    (returned,) = of_type(both, "tool_return_message")
    assert [item["tool_call_id"] for item in returned["tool_returns"]] == call_ids


async def test_cancelling_a_run_that_waits_denies_its_calls(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    request = of_type(await say(client, agent_id, "danger"), "approval_request_message")[0]
    cancelled = await client.post(f"/v1/agents/{agent_id}/messages/cancel",
                                  json={"run_ids": [request["run_id"]]})
    assert cancelled.json() == {request["run_id"]: "cancelled"}
    denial = (await history(client, agent_id))[-1]
    assert denial["message_type"] == "tool_return_message"
    assert denial["tool_return"].endswith("so the tool call was denied.")
    assert of_type(await say(client, agent_id, "hello"), "assistant_message")


async def test_plain_message_while_waiting_is_refused_in_stream(client: httpx.AsyncClient
                                                                ) -> None:
    agent_id = await first_agent_id(client)
    await say(client, agent_id, "approve")
    before = await history(client, agent_id)
    events = await say(client, agent_id, "hello again")
    assert [e.chunk["message_type"] for e in events[:-1]] == [
        "ping", "stop_reason", "error_message"]
    assert events[1].chunk["stop_reason"] == "error" and events[2].event == "error"
    assert "waiting for approval" in events[2].chunk["message"]
    assert events[-1].data == "[DONE]"
    assert await history(client, agent_id) == before


async def test_llm_error_is_reported_in_stream(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    before = await history(client, agent_id)
    events = await say(client, agent_id, "llmerror")
    assert_wire_shape(events)
    assert events[1].chunk == {"message_type": "stop_reason", "stop_reason": "llm_api_error"}
    assert events[2].event == "error" and events[2].chunk["error_type"] == "llm_error"
    assert events[-1].data == "[DONE]"
    assert await history(client, agent_id) == before


async def test_cancel_ends_the_stream_and_drops_the_turn() -> None:
    demo = DemoServer(speed=0.2)
    base_url = await demo.start()
    try:
        async with httpx.AsyncClient(base_url=base_url) as client:
            agent_id = await first_agent_id(client)
            before = await history(client, agent_id)
            body = {"messages": [{"role": "user", "content": "slow"}], "stream_tokens": True}
            lines: list[str] = []
            cancel: httpx.Response | None = None
            async with client.stream("POST", f"/v1/agents/{agent_id}/messages/stream",
                                     json=body) as response:
                async for line in response.aiter_lines():
                    lines.append(line)
                    if '"assistant_message"' in line and cancel is None:
                        cancel = await client.post(f"/v1/agents/{agent_id}/messages/cancel")
            run_id = json.loads(lines[0][6:])["run_id"]
            assert cancel is not None and cancel.json() == {run_id: "cancelled"}
            data = [line for line in lines if line.startswith("data: ")]
            assert data[-1] == f"data: {CANCELLED_LINE}"
            assert "data: [DONE]" not in data
            run = (await client.get(f"/v1/runs/{run_id}")).json()
            assert run["status"] == "cancelled" and run["stop_reason"] == "cancelled"
            assert await history(client, agent_id) == before
            assert demo.cancelled == [run_id]
    finally:
        await demo.stop()


async def test_a_cancelled_continuation_keeps_the_answers_as_letta_does() -> None:
    """Seen on Letta 0.16.8: cancelling the run that continues after approved calls keeps
    the approval response and the tool returns; nothing waits any more."""
    demo = DemoServer(speed=0.2)
    base_url = await demo.start()
    try:
        async with httpx.AsyncClient(base_url=base_url) as client:
            agent_id = await first_agent_id(client)
            request = of_type(await say(client, agent_id, "danger"), "approval_request_message")
            call_id = request[0]["tool_call"]["tool_call_id"]
            body = {"messages": [{"type": "approval", "approvals": [
                {"type": "approval", "tool_call_id": call_id, "approve": True}]}],
                "stream_tokens": True}
            async with client.stream("POST", f"/v1/agents/{agent_id}/messages/stream",
                                     json=body) as response:
                async for line in response.aiter_lines():
                    if '"reasoning_message"' in line:
                        await client.post(f"/v1/agents/{agent_id}/messages/cancel")
            kinds = [message["message_type"] for message in await history(client, agent_id)]
            assert kinds[-2:] == ["approval_response_message", "tool_return_message"]
            agent = (await client.get(f"/v1/agents/{agent_id}",
                                      params={"include": ["agent.pending_approval"]})).json()
            assert agent["pending_approval"] is None
            assert of_type(await say(client, agent_id, "hello"), "assistant_message")
    finally:
        await demo.stop()


async def test_background_run_resumes_after_a_seq_id(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    events = await say(client, agent_id, "hello", background=True)
    numbered = [e.chunk for e in events[:-1] if "seq_id" in e.chunk]
    assert [c["seq_id"] for c in numbered] == list(range(1, len(numbered) + 1))
    run_id = numbered[0]["run_id"]
    resumed = await stream(client, f"/v1/runs/{run_id}/stream", {"starting_after": 3})
    assert [e.data for e in resumed] == [e.data for e in events if
                                         e.data == "[DONE]" or e.chunk.get("seq_id", 4) > 3]
    foreground = of_type(await say(client, agent_id, "hello"), "ping")[0]["run_id"]
    refused = await client.post(f"/v1/runs/{foreground}/stream", json={})
    assert refused.status_code == 400 and "background" in refused.json()["detail"]


async def test_history_pages_back_to_the_system_message() -> None:
    demo = DemoServer(speed=0, history_messages=120)
    base_url = await demo.start()
    try:
        async with httpx.AsyncClient(base_url=base_url) as client:
            agent_id = await first_agent_id(client)
            pages: list[list[dict]] = []
            params: dict[str, Any] = {"limit": 50}
            while True:
                page = await history(client, agent_id, **params)
                if not page:
                    break
                pages.append(page)
                params["before"] = page[0]["id"]
            assert [len({m["id"] for m in page}) for page in pages] == [50, 50, 21]
            assert pages[-1][0]["message_type"] == "system_message"
            everything = [m for page in reversed(pages) for m in page]
            assert [m["date"] for m in everything] == sorted(m["date"] for m in everything)
            assert len({(m["id"], m["message_type"]) for m in everything}) == len(everything)
            top = pages[0][0]
            assert top["message_type"] == "tool_return_message"
            call = pages[1][-1]
            assert call["message_type"] == "tool_call_message"
            assert call["tool_calls"][0]["tool_call_id"] == top["tool_call_id"]
            shared = next(m for m in pages[0] if m["message_type"] == "reasoning_message")
            assert shared["id"] in {m["id"] for m in pages[0]
                                    if m["message_type"] == "assistant_message"}
    finally:
        await demo.stop()


async def test_named_conversation_lists_newest_first(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    created = await client.post("/v1/conversations/", params={"agent_id": agent_id}, json={})
    conversation_id = created.json()["id"]
    assert conversation_id.startswith("conv-")
    listed = (await client.get("/v1/conversations/", params={"agent_id": agent_id})).json()
    assert [item["id"] for item in listed] == [conversation_id]
    events = await stream(client, f"/v1/conversations/{conversation_id}/messages",
                          {"messages": [{"role": "user", "content": "hello", "otid": "o-1"}],
                           "stream_tokens": True})
    assert events[-1].data == "[DONE]"
    newest_first = (await client.get(f"/v1/conversations/{conversation_id}/messages")).json()
    assert [m["message_type"] for m in newest_first] == [
        "reasoning_message", "assistant_message", "user_message", "system_message"]
    assert newest_first[2]["otid"] == "o-1"
    await stream(client, f"/v1/conversations/{conversation_id}/messages",
                 {"messages": [{"role": "user", "content": "danger"}], "stream_tokens": True})
    conversation = (await client.get(f"/v1/conversations/{conversation_id}")).json()
    last = (await client.get(f"/v1/messages/{conversation['in_context_message_ids'][-1]}"))
    assert [m["message_type"] for m in last.json()] == [
        "reasoning_message", "assistant_message", "approval_request_message"]
    default = await stream(client, "/v1/conversations/default/messages",
                           {"messages": [{"role": "user", "content": "hi"}],
                            "agent_id": agent_id, "stream_tokens": True})
    assert default[-1].data == "[DONE]"
    thread = (await client.get("/v1/conversations/default/messages",
                               params={"agent_id": agent_id})).json()
    assert thread[0]["message_type"] == "system_message"
    assert thread[-1]["message_type"] == "assistant_message"


async def test_long_reply_streams_the_requested_number_of_deltas(client: httpx.AsyncClient
                                                                 ) -> None:
    started = time.perf_counter()
    events = await say(client, await first_agent_id(client), "long 5000")
    assert len(of_type(events, "assistant_message")) == 5000
    for _ in range(5):
        events = await say(client, await first_agent_id(client), "long 5000")
        assert of_type(events, "usage_statistics")[0]["context_tokens"] < 32000
    assert time.perf_counter() - started < 10


async def test_tool_approval_rules_can_be_toggled(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    changed = await client.patch(f"/v1/agents/{agent_id}/tools/approval/bash",
                                 json={"requires_approval": True})
    assert changed.status_code == 200 and changed.json() is None
    agent = (await client.get(f"/v1/agents/{agent_id}")).json()
    assert {"tool_name": "bash", "type": "requires_approval",
            "prompt_template": None} in agent["tool_rules"]
    events = await say(client, agent_id, "bash")
    assert of_type(events, "approval_request_message")
    assert not of_type(events, "tool_call_message")


async def test_configured_start_states() -> None:
    demo = DemoServer(speed=0, pending_approval=True, history_messages=10_000)
    started = time.perf_counter()
    base_url = await demo.start()
    try:
        assert time.perf_counter() - started < 2
        async with httpx.AsyncClient(base_url=base_url) as client:
            agent_id = await first_agent_id(client)
            agent = (await client.get(f"/v1/agents/{agent_id}",
                                      params={"include": "agent.pending_approval"})).json()
            assert agent["pending_approval"]["message_type"] == "approval_request_message"
            newest = await history(client, agent_id, limit=5)
            assert newest[-1]["id"] == agent["pending_approval"]["id"]
            oldest = await history(client, agent_id, limit=3, order="asc")
            assert oldest[0]["message_type"] == "system_message"
    finally:
        await demo.stop()


def test_thread_launcher_serves_sync_clients() -> None:
    with DemoServerThread(speed=0) as demo:
        assert demo.base_url is not None
        response = httpx.get(f"{demo.base_url}/v1/health/")
        assert response.json()["status"] == "ok"
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{demo.base_url}/v1/health/")


async def test_stop_drops_an_open_stream() -> None:
    demo = DemoServer(speed=1.0)
    base_url = await demo.start()
    async with httpx.AsyncClient(base_url=base_url) as client:
        agent_id = await first_agent_id(client)
        body = {"messages": [{"role": "user", "content": "slow"}], "stream_tokens": True}
        with pytest.raises(httpx.RemoteProtocolError):
            async with client.stream("POST", f"/v1/agents/{agent_id}/messages/stream",
                                     json=body) as response:
                async for line in response.aiter_lines():
                    if line.startswith("data: "):
                        await asyncio.wait_for(demo.stop(), 5)


async def test_compacting_summarises_the_thread_as_a_stored_note(
        client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    compact = "/v1/conversations/default/compact"
    refused = await client.post(compact, json={"agent_id": agent_id})
    assert refused.status_code == 400 and "failed to reduce" in refused.json()["detail"]
    for text in ("hello", "hello again"):
        await say(client, agent_id, text)
    done = (await client.post(compact, json={"agent_id": agent_id})).json()
    assert done["num_messages_after"] == 2 < done["num_messages_before"]
    assert "hello; hello again" in done["summary"]
    rows = (await client.get(f"/v1/agents/{agent_id}/messages",
                             params={"conversation_id": "default", "limit": 1})).json()
    note = parse_message(rows[-1])
    assert note.message_type == "user_message"
    assert json.loads(note.content)["type"] == "system_alert"  # type: ignore[union-attr]
    context = (await client.get(f"/v1/agents/{agent_id}/context")).json()
    assert context["num_messages"] == 2
    again = await client.post(compact, json={"agent_id": agent_id})
    assert again.status_code == 400


async def test_a_deleted_conversation_is_gone(client: httpx.AsyncClient) -> None:
    agent_id = await first_agent_id(client)
    made = (await client.post("/v1/conversations/", params={"agent_id": agent_id},
                              json={"summary": "gone soon"})).json()
    deleted = await client.delete(f"/v1/conversations/{made['id']}")
    assert deleted.status_code == 200 and deleted.json() is None
    assert (await client.get(f"/v1/conversations/{made['id']}")).status_code == 404
    listed = (await client.get("/v1/conversations/", params={"agent_id": agent_id})).json()
    assert made["id"] not in [conversation["id"] for conversation in listed]
    assert (await client.delete(f"/v1/conversations/{made['id']}")).status_code == 404


@pytest.mark.parametrize(("names", "read"), [
    ([], None), (["sub/"], None), (["sub/", "my notes.txt", "z.txt"], "my notes.txt"),
    (["a link", "a\nb.txt", "z.txt"], "z.txt")])
async def test_the_files_demo_reads_the_first_file_the_ls_tool_listed(
        tmp_path: Path, names: list[str], read: str | None) -> None:
    for name in names:
        if name.endswith("/"):
            (tmp_path / name).mkdir()
        elif name.endswith("link"):
            (tmp_path / name).symlink_to(tmp_path / "z.txt")
        else:
            (tmp_path / name).write_text("x")
    listing = await LS().run({"path": str(tmp_path)}, Workspace(tmp_path), lambda _: None)
    call = ScriptedCall("LS", {"path": "."}, "")
    step = _read_after_listing([Outcome(call, "call-1", "client", "success", listing.text)])
    assert step is not None
    assert [called.arguments["file_path"] for called in step.calls] == ([read] if read else [])
