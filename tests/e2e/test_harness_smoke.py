"""Smoke tests of the end-to-end harness itself, with raw httpx (not openletta's client).

They check that the server is the real Letta 0.16.8, that the test agent is set up as the
e2e tests expect, and that the scripted model and the tools' scratch directory work.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import fake_llm
import httpx
import pytest

#: Letta treats a request without a User-Agent as a 1.0 SDK client (as in the recordings).
HEADERS = {"User-Agent": ""}
TIMEOUT = httpx.Timeout(60.0)
HELLO_REASONING = "The user said hello. I should greet them back."
HELLO_ANSWER = "Hello! I am a scripted fake model. How can I help?"


@pytest.fixture
def http(letta_base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=letta_base_url, headers=HEADERS, timeout=TIMEOUT) as client:
        yield client


def stream_events(http: httpx.Client, agent_id: str, text: str) -> list[Any]:
    """Send ``text`` to the agent's default conversation; the SSE ``data`` payloads."""
    body = {"agent_id": agent_id, "messages": [{"role": "user", "content": text}],
            "stream_tokens": True}
    events: list[Any] = []
    with http.stream("POST", "/v1/conversations/default/messages", json=body) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                payload = line.removeprefix("data: ")
                events.append(payload if payload == "[DONE]" else json.loads(payload))
    return events


def joined(events: list[Any], message_type: str, key: str) -> str:
    return "".join(event[key] for event in events
                   if isinstance(event, dict) and event.get("message_type") == message_type)


def of_type(events: list[Any], message_type: str) -> list[dict[str, Any]]:
    return [event for event in events
            if isinstance(event, dict) and event.get("message_type") == message_type]


def test_scripted_model_answers_what_the_user_typed_past_a_clients_reminders() -> None:
    """Letta Code sends its own ``<system-reminder>`` parts before what the user typed; their
    words ("Local time", "read") must not choose the reply (bench/bench_vs_letta_code.py)."""
    reminder = ("<system-reminder>\n- **Local time**: Saturday at 12:12 PM UTC\n"
                "- read the docs before you edit\n</system-reminder>")
    message = {"role": "user", "content": [{"type": "text", "text": reminder},
                                           {"type": "text", "text": "hello"}]}

    reply = fake_llm.choose_reply([message], stall_seconds=0)

    assert (reply.reasoning, reply.content) == (HELLO_REASONING, HELLO_ANSWER)


def test_health_reports_letta_0_16_8(http: httpx.Client) -> None:
    response = http.get("/v1/health/")

    assert response.status_code == 200
    assert response.json() == {"version": "0.16.8", "status": "ok"}


def test_test_agent_has_the_tools_and_their_approval_rules(
        http: httpx.Client, letta_agent_id: str) -> None:
    response = http.get(f"/v1/agents/{letta_agent_id}", params={"include": "agent.tools"})

    assert response.status_code == 200
    agent = response.json()
    assert agent["agent_type"] == "letta_v1_agent"
    assert agent["model"] == "openai-proxy/fake-model"
    assert {"bash", "read_file", "write_file", "edit_file"} <= {
        tool["name"] for tool in agent["tools"]}
    needs_approval = {rule["tool_name"] for rule in agent["tool_rules"]
                      if rule["type"] == "requires_approval"}
    assert needs_approval == {"bash", "write_file", "edit_file"}


def test_hello_streams_reasoning_answer_and_end_turn(
        http: httpx.Client, fresh_agent_id: str) -> None:
    events = stream_events(http, fresh_agent_id, "hello")

    assert joined(events, "reasoning_message", "reasoning") == HELLO_REASONING
    assert joined(events, "assistant_message", "content") == HELLO_ANSWER
    assert len(of_type(events, "assistant_message")) > 1  # token deltas, not one message
    assert [event["stop_reason"] for event in of_type(events, "stop_reason")] == ["end_turn"]
    assert of_type(events, "usage_statistics")[0]["step_count"] == 1
    assert events[-1] == "[DONE]"


def test_read_file_tool_reads_the_harness_scratch_directory(
        http: httpx.Client, fresh_agent_id: str) -> None:
    events = stream_events(http, fresh_agent_id, "read notes.txt")

    calls = of_type(events, "tool_call_message")
    assert calls[0]["tool_call"]["name"] == "read_file"
    [tool_return] = of_type(events, "tool_return_message")
    assert tool_return["status"] == "success"
    assert "hello from the harness" in tool_return["tool_return"]
    assert "finished (status: OK)" in joined(events, "assistant_message", "content")
    assert [event["stop_reason"] for event in of_type(events, "stop_reason")] == ["end_turn"]
