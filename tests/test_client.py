"""LettaClient over real HTTP against the loopback replay server: what it sends (paths,
query, bodies, headers), how it reads the captures, its fallbacks and its typed errors."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid

import httpx
import pytest

from openletta import __version__
from openletta.api.answers import ApprovalAnswer, ToolReturnAnswer
from openletta.api.client import LettaClient, parse_version
from openletta.api.errors import (
    APIConnectionError,
    AuthError,
    ConnectError,
    ConversationBusyError,
    LettaError,
    NotFoundError,
    NotLettaServerError,
    RequestTimeout,
    ServerError,
    TLSHandshakeError,
    ValidationError,
)
from openletta.api.messages import ApprovalRequestMessage, AssistantMessage, parse_message
from openletta.config import CLOUD_URL, LOCAL_URL, resolve_connection

AGENT = "agent-fd1e74fa-5214-458e-9812-de35c03ddc23"
CONV = "conv-0639668d-974a-4285-8fac-0059a3adbf78"
MISSING_AGENT = "agent-00000000-0000-4000-8000-000000000000"
ROUTE_MISSING = {"detail": "Not Found"}
BUSY_RUN = "run-adf1416f-af2c-4f87-a300-040cc3bde7d4"


def only_request(server):
    assert len(server.requests) == 1, server.requests
    return server.requests[0]


def item_keys(messages) -> list[tuple[str | None, str]]:
    return [(message.id, message.message_type) for message in messages]


# --- connection settings ----------------------------------------------------------------


@pytest.mark.parametrize(("arguments", "env", "expected"), [
    ({}, {}, (LOCAL_URL, None, "default")),
    ({}, {"LETTA_API_KEY": "k"}, (CLOUD_URL, "k", "default")),
    ({}, {"LETTA_BASE_URL": "http://h:1/", "LETTA_API_KEY": "k"}, ("http://h:1", "k",
                                                                   "LETTA_BASE_URL")),
    ({"base_url": "http://flag:2/v1/", "api_key": "x"}, {"LETTA_BASE_URL": "http://h:1"},
     ("http://flag:2", "x", "argument")),
    ({}, {"LETTA_API_KEY": ""}, (LOCAL_URL, None, "default")),
])
def test_resolve_connection(arguments, env, expected) -> None:
    connection = resolve_connection(**arguments, env=env)
    assert (connection.base_url, connection.api_key, connection.source) == expected


async def test_from_settings_sends_the_key_from_the_environment(replay_server) -> None:
    replay_server.reply_json({"version": "0.16.8", "status": "ok"})
    env = {"LETTA_BASE_URL": replay_server.base_url, "LETTA_API_KEY": "env-key"}
    async with LettaClient.from_settings(env=env) as client:
        await client.health()
    assert only_request(replay_server).headers["authorization"] == "Bearer env-key"


# --- health, agents, tools --------------------------------------------------------------


async def test_health_headers_and_version(replay_server, replay_client) -> None:
    replay_server.reply_json({"version": "0.16.8", "status": "ok"})
    health = await replay_client.health()
    request = only_request(replay_server)
    assert (request.method, request.path) == ("GET", "/v1/health/")
    assert request.headers["user-agent"] == f"openletta/{__version__}"
    assert request.headers["authorization"] == "Bearer test-key"
    assert health.version == "0.16.8"
    assert replay_client.server_version == (0, 16, 8)


@pytest.mark.parametrize(("status", "body", "answer"), [
    (404, b'{"detail":"Not Found"}', "HTTP 404"),  # another web app
    (404, b"<html>Not Found</html>", "HTTP 404"),
    (405, b'{"detail":"Method Not Allowed"}', "HTTP 405"),
    (200, b"<html>welcome</html>", "an answer that is not Letta's"),  # a page for any path
    (200, b'{"hello": "world"}', "an answer that is not Letta's"),
    (200, b"[]", "an answer that is not Letta's"),
])
async def test_something_else_at_the_url_is_not_taken_for_a_letta_server(
        status: int, body: bytes, answer: str) -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body)

    async with LettaClient("http://elsewhere.test", transport=httpx.MockTransport(reply)) as client:
        with pytest.raises(NotLettaServerError) as raised:
            await client.health()
    assert raised.value.message.startswith(
        f"Something answers at this address, but not as a Letta server does ({answer} for "
        "/v1/health/). Check the URL")


@pytest.mark.parametrize(("status", "error"), [(500, ServerError), (401, AuthError)])
async def test_a_letta_server_failing_its_health_check_says_so(status: int, error) -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"detail": "boom"})

    async with LettaClient("http://letta.test", transport=httpx.MockTransport(reply)) as client:
        with pytest.raises(error):
            await client.health()


async def test_no_auth_header_without_a_key(replay_server) -> None:
    replay_server.reply_json({"version": "0.16.8", "status": "ok"})
    async with LettaClient(replay_server.base_url) as client:
        await client.health()
    assert "authorization" not in only_request(replay_server).headers


@pytest.mark.parametrize(("text", "expected"), [
    ("0.16.8", (0, 16, 8)), ("v1.2", (1, 2)), ("0.16.8.dev3+abc", (0, 16, 8)), ("", None),
    ("unknown", None)])
def test_parse_version(text: str, expected) -> None:
    assert parse_version(text) == expected


async def test_list_agents(replay_server, replay_client) -> None:
    replay_server.reply_capture("agents_list.json")
    agents = await replay_client.list_agents(query="rec", after="agent-x")
    request = only_request(replay_server)
    assert request.path == "/v1/agents/"
    assert request.query == {"limit": ["50"], "order": ["desc"],
                             "order_by": ["last_run_completion"], "query_text": ["rec"],
                             "after": ["agent-x"]}
    assert [agent.name for agent in agents] == ["rec-agent", "lab-agent"]
    assert agents[0].context_window == 30000
    assert agents[0].model_name == "openai-proxy/fake-model"


async def test_get_agent_asks_for_the_pending_approval(replay_server, replay_client) -> None:
    replay_server.reply_capture("approval_pending_agent_get.json")
    agent = await replay_client.get_agent(AGENT)
    request = only_request(replay_server)
    assert request.path == f"/v1/agents/{AGENT}"
    assert request.query == {"include": ["agent.pending_approval"]}
    assert isinstance(agent.pending_approval, ApprovalRequestMessage)
    assert agent.pending_approval.tool_calls[0].name == "bash"
    assert agent.tools_requiring_approval == {"bash", "edit_file", "write_file"}


async def test_get_agent_with_tools_and_blocks(replay_server, replay_client) -> None:
    replay_server.reply_capture("agent_get.json")
    agent = await replay_client.get_agent(AGENT, tools=True, blocks=True)
    assert only_request(replay_server).query == {
        "include": ["agent.tools", "agent.blocks", "agent.pending_approval"]}
    assert agent.pending_approval is None


async def test_list_agent_tools_and_set_approval(replay_server, replay_client,
                                                 load_fixture) -> None:
    tools = json.loads(load_fixture("agents_list_include_tools.json"))[0]["tools"]
    replay_server.reply_json(tools)
    replay_server.reply_json(None)
    listed = await replay_client.list_agent_tools(AGENT)
    await replay_client.set_tool_approval(AGENT, "read file", True)
    listing, patch = replay_server.requests
    assert (listing.path, listing.query) == (f"/v1/agents/{AGENT}/tools", {"limit": ["1000"]})
    assert {tool.name for tool in listed} >= {"bash", "read_file"}
    assert (patch.method, patch.path) == ("PATCH",
                                          f"/v1/agents/{AGENT}/tools/approval/read%20file")
    assert patch.body == {"requires_approval": True}


async def test_list_models_keeps_those_with_a_handle(replay_server, replay_client,
                                                    load_fixture) -> None:
    models = json.loads(load_fixture("models_list.json"))
    replay_server.reply_json([*models, {"name": "no-handle", "model_type": "llm"}])
    listed = await replay_client.list_models()
    assert only_request(replay_server).path == "/v1/models/"
    assert [model.handle for model in listed] == [
        "letta/letta-free", "openai-proxy/fake-model", "openai-proxy/fake-model-2"]
    assert listed[1].context_window == 30000


async def test_create_agent_names_model_and_memory(replay_server, replay_client) -> None:
    replay_server.reply_capture("agent_create.json")
    agent = await replay_client.create_agent("rec-agent", "openai-proxy/fake-model",
                                             {"human": "Ann", "persona": "A helper"})
    request = only_request(replay_server)
    assert (request.method, request.path) == ("POST", "/v1/agents/")
    assert request.body == {"name": "rec-agent", "model": "openai-proxy/fake-model",
                            "memory_blocks": [{"label": "human", "value": "Ann"},
                                              {"label": "persona", "value": "A helper"}]}
    assert agent.name == "rec-agent"
    assert agent.model_name == "openai-proxy/fake-model"


async def test_set_agent_model_patches_the_agent(replay_server, replay_client) -> None:
    replay_server.reply_capture("agent_create.json")
    agent = await replay_client.set_agent_model(AGENT, "openai-proxy/fake-model")
    request = only_request(replay_server)
    assert (request.method, request.path) == ("PATCH", f"/v1/agents/{AGENT}")
    assert request.body == {"model": "openai-proxy/fake-model"}
    assert agent.model_name == "openai-proxy/fake-model"


async def test_compact_the_default_thread_and_a_conversation(replay_server,
                                                             replay_client) -> None:
    replay_server.reply_capture("compact_response.json")
    replay_server.reply_capture("compact_response.json")
    done = await replay_client.compact(AGENT)
    await replay_client.compact(AGENT, "conv-1")
    default, named = replay_server.requests
    assert (default.method, default.path, default.body) == (
        "POST", "/v1/conversations/default/compact", {"agent_id": AGENT})
    assert (named.path, named.body) == ("/v1/conversations/conv-1/compact", {})
    assert (done.num_messages_before, done.num_messages_after) == (9, 7)
    assert done.summary.startswith("Slow sentence 1")


async def test_compacting_too_little_is_refused_with_the_servers_reason(
        replay_server, replay_client) -> None:
    replay_server.reply_capture("compact_nothing_to_compact_400.json")
    with pytest.raises(LettaError) as refused:
        await replay_client.compact(AGENT)
    assert refused.value.message.startswith("The server found nothing to compact yet")
    assert "failed to reduce the number of messages" in (refused.value.server_message or "")


async def test_compact_falls_back_to_summarize_on_a_server_without_the_route(
        replay_server, replay_client) -> None:
    replay_server.reply_json({"detail": "Not Found"}, status=404)
    replay_server.reply_capture("compact_response.json")
    done = await replay_client.compact(AGENT)
    assert [request.path for request in replay_server.requests] == [
        "/v1/conversations/default/compact", f"/v1/agents/{AGENT}/summarize"]
    assert done.num_messages_after == 7


# --- conversations ----------------------------------------------------------------------


async def test_delete_conversation(replay_server, replay_client) -> None:
    replay_server.reply_json(None)
    await replay_client.delete_conversation("conv-1")
    request = only_request(replay_server)
    assert (request.method, request.path) == ("DELETE", "/v1/conversations/conv-1")


async def test_conversations(replay_server, replay_client) -> None:
    replay_server.reply_capture("conv_list.json")
    replay_server.reply_capture("conv_create.json")
    replay_server.reply_capture("conv_get.json")
    listed = await replay_client.list_conversations(AGENT, limit=10)
    created = await replay_client.create_conversation(AGENT, summary="Ideas")
    fetched = await replay_client.get_conversation(CONV)
    listing, creation, retrieval = replay_server.requests
    assert (listing.path, listing.query) == ("/v1/conversations/", {
        "agent_id": [AGENT], "limit": ["10"], "order": ["desc"],
        "order_by": ["last_message_at"]})
    assert (creation.method, creation.path, creation.query, creation.body) == (
        "POST", "/v1/conversations/", {"agent_id": [AGENT]}, {"summary": "Ideas"})
    assert retrieval.path == f"/v1/conversations/{CONV}"
    assert [c.id for c in listed] == [CONV] and created.id == fetched.id == CONV
    assert fetched.in_context_message_ids == ["message-6821342b-68dd-4fa6-8166-c9a0cdb026b3"]


# --- history ----------------------------------------------------------------------------


async def test_default_thread_history_and_backward_paging(replay_server, replay_client,
                                                          load_fixture) -> None:
    replay_server.reply_capture("agent_messages_desc_limit4.json")
    replay_server.reply_capture("agent_messages_desc_limit4_before_oldest.json")
    newest = await replay_client.list_messages(AGENT, limit=4)
    older = await replay_client.list_messages(AGENT, before=newest.before_cursor, limit=4)
    first, second = replay_server.requests
    assert first.path == f"/v1/agents/{AGENT}/messages"
    assert first.query == {"limit": ["4"], "order": ["desc"], "conversation_id": ["default"]}
    assert second.query["before"] == ["message-78f312a3-ce90-431f-ad73-06feba5a0592"]
    # The agent endpoint already answers oldest first: kept as is.
    raw = json.loads(load_fixture("agent_messages_desc_limit4.json"))
    assert item_keys(newest.messages) == [(m["id"], m["message_type"]) for m in raw]
    assert newest.has_more and newest.before_cursor == raw[0]["id"]
    older_raw = json.loads(load_fixture("agent_messages_desc_limit4_before_oldest.json"))
    assert older.before_cursor == older_raw[0]["id"]
    joined = older.messages + newest.messages
    dates = [m.date for m in joined]
    assert dates == sorted(dates)
    assert [m.content for m in joined if m.message_type == "user_message"] == [
        "slow please", "hello", "hello", "slow please"]


async def test_named_conversation_history_is_turned_oldest_first(replay_server, replay_client,
                                                                 load_fixture) -> None:
    replay_server.reply_capture("conv_messages.json")
    page = await replay_client.list_messages(AGENT, conversation_id=CONV, limit=50)
    request = only_request(replay_server)
    assert (request.path, request.query) == (f"/v1/conversations/{CONV}/messages",
                                             {"limit": ["50"], "order": ["desc"]})
    # Two turns share one timestamp: the result must equal the server's own asc order.
    ascending = json.loads(load_fixture("conv_messages_asc.json"))
    assert item_keys(page.messages) == [(m["id"], m["message_type"]) for m in ascending]
    assert (page.has_more, page.before_cursor) == (False, None)


async def test_a_full_page_of_a_conversation_has_more(replay_server, replay_client) -> None:
    replay_server.reply_capture("conv_messages.json")  # 5 database rows
    page = await replay_client.list_messages(AGENT, conversation_id=CONV, limit=5)
    assert page.has_more
    assert page.before_cursor == "message-6821342b-68dd-4fa6-8166-c9a0cdb026b3"


async def test_history_items_are_deduplicated(replay_server, replay_client,
                                              load_fixture) -> None:
    raw = json.loads(load_fixture("agent_messages_desc_limit4.json"))
    replay_server.reply_json(raw + raw[-2:])
    page = await replay_client.list_messages(AGENT, limit=4)
    assert len(page.messages) == len(raw)


async def test_history_falls_back_when_the_thread_filter_is_rejected(
        replay_server, replay_client) -> None:
    replay_server.reply_json({"detail": "[{'type': 'string_pattern_mismatch', 'loc': "
                                        "('query', 'conversation_id'), 'msg': 'bad'}]"}, 422)
    replay_server.reply_capture("agent_messages_desc_limit4.json")
    replay_server.reply_capture("agent_messages_desc_limit4.json")
    await replay_client.list_messages(AGENT, limit=4)
    await replay_client.list_messages(AGENT, limit=4)
    filtered, unfiltered, remembered = replay_server.requests
    assert "conversation_id" in filtered.query
    assert "conversation_id" not in unfiltered.query
    assert "conversation_id" not in remembered.query


# --- sending ----------------------------------------------------------------------------


async def test_send_to_the_default_thread(replay_server, replay_client, load_fixture) -> None:
    replay_server.reply_capture("conv_default_agent_direct_tokens.sse")
    async with replay_client.send_message(AGENT, "hello", otid="otid-1") as stream:
        messages = [message async for message in stream]
    request = only_request(replay_server)
    assert (request.method, request.path) == ("POST", "/v1/conversations/default/messages")
    assert request.headers["accept"] == "text/event-stream"
    assert request.body == {
        "messages": [{"type": "message", "role": "user", "content": "hello", "otid": "otid-1"}],
        "streaming": True, "stream_tokens": True, "include_pings": True, "background": False,
        "agent_id": AGENT}
    text = "".join(m.content for m in messages if isinstance(m, AssistantMessage))
    assert text == "Hello! I am a scripted fake model. How can I help?"
    assert stream.ended == "done"


async def test_send_to_a_named_conversation(replay_server, replay_client) -> None:
    replay_server.reply_capture("conv_send_hello_tokens.sse")
    async with replay_client.send_message(AGENT, "hi", conversation_id=CONV,
                                          background=True, stream_tokens=False) as stream:
        async for _ in stream:
            pass
    request = only_request(replay_server)
    assert request.path == f"/v1/conversations/{CONV}/messages"
    assert "agent_id" not in request.body
    assert (request.body["background"], request.body["stream_tokens"]) == (True, False)
    otid = request.body["messages"][0]["otid"]
    assert uuid.UUID(otid).version == 4


@pytest.mark.parametrize("missing", [404, 405])
async def test_send_falls_back_to_the_agent_stream_when_the_route_is_missing(
        replay_server, replay_client, missing: int) -> None:
    if missing == 405:
        replay_server.reply_capture("bg_resume_get_method.json")
    else:
        replay_server.reply_json(ROUTE_MISSING, 404)
    replay_server.reply_capture("hello_tokens.sse")
    replay_server.reply_capture("hello_tokens.sse")
    for _ in range(2):
        async with replay_client.send_message(AGENT, "hello", otid="o") as stream:
            assert len([m async for m in stream]) == 23
    tried, fallback, remembered = replay_server.requests
    assert tried.path == "/v1/conversations/default/messages"
    assert fallback.path == remembered.path == f"/v1/agents/{AGENT}/messages/stream"
    assert fallback.body == {
        "messages": [{"type": "message", "role": "user", "content": "hello", "otid": "o"}],
        "stream_tokens": True, "include_pings": True, "background": False}


async def test_old_servers_get_the_agent_stream_directly(replay_server, replay_client) -> None:
    replay_server.reply_json({"version": "0.16.1", "status": "ok"})
    replay_server.reply_capture("hello_tokens.sse")
    await replay_client.health()
    async with replay_client.send_message(AGENT, "hello") as stream:
        async for _ in stream:
            pass
    assert replay_server.requests[1].path == f"/v1/agents/{AGENT}/messages/stream"


async def test_an_unknown_agent_is_not_mistaken_for_a_missing_route(replay_server,
                                                                    replay_client) -> None:
    replay_server.reply_capture("error_stream_unknown_agent.json")
    with pytest.raises(NotFoundError) as raised:
        async with replay_client.send_message(MISSING_AGENT, "hello"):
            pass
    assert len(replay_server.requests) == 1
    assert raised.value.server_message == f"Agent with ID {MISSING_AGENT} not found"


async def test_a_named_conversation_never_falls_back(replay_server, replay_client) -> None:
    replay_server.reply_json(ROUTE_MISSING, 404)
    with pytest.raises(NotFoundError):
        async with replay_client.send_message(AGENT, "hello", conversation_id=CONV):
            pass
    assert len(replay_server.requests) == 1


async def test_a_busy_conversation_raises_before_streaming(replay_server, replay_client) -> None:
    replay_server.reply_capture("conv_busy_second_request.json")
    with pytest.raises(ConversationBusyError) as raised:
        async with replay_client.send_message(AGENT, "hello", conversation_id=CONV):
            pass
    assert raised.value.run_id == BUSY_RUN


@pytest.mark.parametrize(("status", "goes_through"), [
    ("cancelled", True), ("completed", True), ("running", False)])
async def test_a_stale_default_thread_lock_is_sent_around(
        replay_server, replay_client, status: str, goes_through: bool) -> None:
    replay_server.reply_capture("conv_busy_second_request.json")
    replay_server.reply_json({"id": BUSY_RUN, "status": status})
    replay_server.reply_capture("hello_tokens.sse")
    if goes_through:
        async with replay_client.send_message(AGENT, "hello") as stream:
            assert len([m async for m in stream]) == 23
    else:
        with pytest.raises(ConversationBusyError):
            async with replay_client.send_message(AGENT, "hello"):
                pass
    paths = [request.path for request in replay_server.requests]
    expected = ["/v1/conversations/default/messages", f"/v1/runs/{BUSY_RUN}"]
    assert paths == expected + ([f"/v1/agents/{AGENT}/messages/stream"] if goes_through else [])


async def test_send_approvals(replay_server, replay_client) -> None:
    replay_server.reply_capture("approval_approve_tokens.sse")
    decisions = [ApprovalAnswer(tool_call_id="call_1", approve=True),
                 ApprovalAnswer(tool_call_id="call_2", approve=False, reason="not now")]
    async with replay_client.send_approvals(AGENT, decisions) as stream:
        kinds = [m.message_type async for m in stream]
    assert kinds[1] == "tool_return_message"
    assert only_request(replay_server).body["messages"] == [{"type": "approval", "approvals": [
        {"type": "approval", "tool_call_id": "call_1", "approve": True},
        {"type": "approval", "tool_call_id": "call_2", "approve": False, "reason": "not now"}]}]


async def test_client_tool_results_and_declarations_go_in_the_request(
        replay_server, replay_client) -> None:
    replay_server.reply_capture("client_tool_return_tokens.sse")
    tools = [{"name": "Bash", "description": "Run a command.",
              "parameters": {"type": "object", "properties": {}}}]
    answers = [ToolReturnAnswer(tool_call_id="call_1", tool_return="/home/me", status="success",
                                stdout=["/home/me\n"]),
               ApprovalAnswer(tool_call_id="call_2", approve=True)]
    async with replay_client.send_approvals(AGENT, answers, client_tools=tools) as stream:
        [message async for message in stream]
    body = only_request(replay_server).body
    assert body["client_tools"] == tools
    assert body["messages"][0]["approvals"] == [
        {"type": "tool", "tool_call_id": "call_1", "tool_return": "/home/me",
         "status": "success", "stdout": ["/home/me\n"]},
        {"type": "approval", "tool_call_id": "call_2", "approve": True}]


@pytest.mark.parametrize(("version", "declared"), [(None, True), ((0, 16, 2), True),
                                                   ((0, 16, 1), False)])
async def test_client_tools_are_not_sent_to_a_server_too_old_for_them(
        replay_server, replay_client, version, declared) -> None:
    replay_server.reply_capture("hello_tokens.sse")
    replay_client.server_version = version
    tools = [{"name": "LS", "description": "List.", "parameters": {"type": "object"}}]
    async with replay_client.send_message(AGENT, "hello", client_tools=tools) as stream:
        [message async for message in stream]
    assert ("client_tools" in only_request(replay_server).body) is declared


async def test_a_message_can_follow_the_answers_in_one_request(
        replay_server, replay_client) -> None:
    replay_server.reply_capture("hello_tokens.sse")
    answers = [ToolReturnAnswer(tool_call_id="call_1", tool_return="stopped", status="error")]
    async with replay_client.send_approvals(AGENT, answers, then_text="go on",
                                            otid="otid-1") as stream:
        [message async for message in stream]
    assert only_request(replay_server).body["messages"] == [
        {"type": "approval", "approvals": [{"type": "tool", "tool_call_id": "call_1",
                                            "tool_return": "stopped", "status": "error"}]},
        {"type": "message", "role": "user", "content": "go on", "otid": "otid-1"}]


def test_send_approvals_needs_a_decision(replay_client) -> None:
    with pytest.raises(ValueError, match="at least one decision"):
        replay_client.send_approvals(AGENT, [])


async def test_an_in_stream_error_is_yielded_and_typed(replay_server, replay_client) -> None:
    replay_server.reply_capture("approval_pending_then_user_message.sse")
    async with replay_client.send_message(AGENT, "hello again") as stream:
        kinds = [m.message_type async for m in stream]
    assert kinds == ["ping", "stop_reason", "error_message"]
    assert stream.error is not None and "Approve or deny" in stream.error.message


# --- resume, cancel, runs, pending approvals --------------------------------------------


async def test_resume_stream(replay_server, replay_client) -> None:
    replay_server.reply_capture("bg_replay_from_0.sse")
    async with replay_client.resume_stream("run-1", starting_after=12) as stream:
        seq_ids = [m.seq_id async for m in stream if getattr(m, "seq_id", None)]
    request = only_request(replay_server)
    assert (request.method, request.path) == ("POST", "/v1/runs/run-1/stream")
    assert request.body == {"starting_after": 12, "include_pings": True, "batch_size": 1000}
    assert seq_ids == list(range(1, 46))  # a replay from the start: the transcript skips 1–12
    assert stream.last_seq_id == 45


async def test_resuming_a_foreground_run_fails_typed(replay_server, replay_client) -> None:
    replay_server.reply_capture("resume_foreground_run_error.json")
    with pytest.raises(ValidationError, match="not created in background mode"):
        async with replay_client.resume_stream("run-1", 0):
            pass


async def test_cancel_known_runs(replay_server, replay_client) -> None:
    replay_server.reply_capture("cancel_bg_response.json")
    result = await replay_client.cancel(AGENT, run_ids=["run-5177ac32-cfa7-45c5-952b-11e55ec2f3fa"])
    request = only_request(replay_server)
    assert (request.method, request.path) == ("POST", f"/v1/agents/{AGENT}/messages/cancel")
    assert request.body == {"run_ids": ["run-5177ac32-cfa7-45c5-952b-11e55ec2f3fa"]}
    assert result == {"run-5177ac32-cfa7-45c5-952b-11e55ec2f3fa": "cancelled"}


async def test_cancel_a_conversation(replay_server, replay_client) -> None:
    replay_server.reply_capture("conv_cancel.json")
    replay_server.reply_capture("conv_cancel.json")
    await replay_client.cancel(AGENT, conversation_id=CONV)
    await replay_client.cancel(AGENT)
    named, default = replay_server.requests
    assert (named.path, named.query) == (f"/v1/conversations/{CONV}/cancel", {})
    assert (default.path, default.query) == ("/v1/conversations/default/cancel",
                                             {"agent_id": [AGENT]})


async def test_cancel_falls_back_when_the_conversation_route_is_missing(
        replay_server, replay_client) -> None:
    replay_server.reply_json(ROUTE_MISSING, 404)
    replay_server.reply_capture("cancel_fg_response.json")
    assert await replay_client.cancel(AGENT) == {
        "run-1aa386c4-8193-4f3c-b06a-518d81577128": "cancelled"}
    assert replay_server.requests[1].path == f"/v1/agents/{AGENT}/messages/cancel"


async def test_cancel_with_nothing_running_is_not_an_error(replay_server, replay_client) -> None:
    replay_server.reply_json({"detail": f"CONFLICT: No active runs to cancel for agent {AGENT}"},
                             409)
    assert await replay_client.cancel(AGENT, run_ids=["run-1"]) == {}


async def test_get_run(replay_server, replay_client) -> None:
    replay_server.reply_capture("run_get.json")
    run = await replay_client.get_run("run-daae38fb-d81d-4dbd-aa24-cbe5281e2b16")
    assert only_request(replay_server).path == "/v1/runs/run-daae38fb-d81d-4dbd-aa24-cbe5281e2b16"
    assert (run.status, run.agent_id) == ("completed", AGENT)


async def test_pending_approval_of_the_default_thread(replay_server, replay_client) -> None:
    replay_server.reply_capture("approval_pending_agent_get.json")
    pending = await replay_client.get_pending_approval(AGENT)
    assert only_request(replay_server).query == {"include": ["agent.pending_approval"]}
    assert pending is not None
    assert pending.tool_calls[0].tool_call_id == "call_5981249e5ce4424db7443339"


async def test_pending_approval_of_a_named_conversation(replay_server, replay_client,
                                                        load_fixture) -> None:
    approval = json.loads(load_fixture("approval_pending_agent_get.json"))["pending_approval"]
    conversation = json.loads(load_fixture("conv_get.json"))
    conversation["in_context_message_ids"].append(approval["id"])
    replay_server.reply_json(conversation)
    replay_server.reply_json([approval])
    pending = await replay_client.get_pending_approval(AGENT, conversation_id=CONV)
    assert replay_server.requests[1].path == f"/v1/messages/{approval['id']}"
    assert pending == parse_message(approval)


async def test_no_pending_approval_in_a_named_conversation(replay_server, replay_client,
                                                           load_fixture) -> None:
    replay_server.reply_capture("conv_get.json")
    replay_server.reply_json([json.loads(load_fixture("conv_messages_asc.json"))[0]])
    assert await replay_client.get_pending_approval(AGENT, conversation_id=CONV) is None


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(("capture", "status", "kind"), [
    ("error_agent_not_found_404.json", 404, NotFoundError),
    ("error_agent_bad_id_format.json", 422, ValidationError),
    ("llm_error_nonstream.json", 500, ServerError),
])
async def test_http_errors_are_typed(replay_server, replay_client, load_fixture, capture,
                                     status: int, kind: type) -> None:
    replay_server.reply_capture(capture)
    with pytest.raises(kind) as raised:
        await replay_client.get_agent(AGENT)
    assert raised.value.status_code == status
    assert raised.value.body == load_fixture(capture).decode()


async def test_redirects_are_not_followed(replay_server, replay_client) -> None:
    replay_server.reply_json({}, 307)
    with pytest.raises(LettaError, match="HTTP 307"):
        await replay_client.get_run("run-1")
    assert len(replay_server.requests) == 1


async def test_on_wait_is_called_once_for_each_request_that_went_out(replay_server) -> None:
    waits: list[int] = []
    replay_server.reply_capture("agents_list.json")
    replay_server.reply_capture("conv_default_agent_direct_tokens.sse")
    replay_server.reply_json({"detail": "no such run"}, 404)
    async with LettaClient(replay_server.base_url,
                           on_wait=lambda: waits.append(len(waits))) as client:
        await client.list_agents()
        async with client.send_message(AGENT, "hello") as stream:
            assert len(waits) == 2  # the stream's answer is awaited once, before it starts
            assert [message async for message in stream]
        with pytest.raises(LettaError):
            await client.get_run("run-1")
    assert waits == [0, 1, 2]
    assert len(replay_server.requests) == 3


async def test_on_wait_is_not_called_when_nothing_went_out() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits: list[None] = []
    base_url = f"http://127.0.0.1:{port}"
    async with LettaClient(base_url, on_wait=lambda: waits.append(None)) as client:
        with pytest.raises(ConnectError):
            await client.health()
    assert waits == []


async def test_connection_refused() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"
    async with LettaClient(base_url) as client:
        with pytest.raises(ConnectError) as raised:
            await client.health()
        with pytest.raises(ConnectError):
            async with client.send_message(AGENT, "hello"):
                pass
    assert raised.value.message == (f"Could not reach the Letta server at {base_url}: "
                                    "nothing answered there. Is it running?")


async def test_read_timeout(replay_server) -> None:
    replay_server.reply_sse("", ending="stall")
    timeout = httpx.Timeout(5.0, read=0.2)
    async with LettaClient(replay_server.base_url, timeout=timeout) as client:
        with pytest.raises(RequestTimeout, match="did not answer in time"):
            await client.list_agents()


async def test_requests_tell_whether_they_reach_the_server() -> None:
    down = True

    def answer(request: httpx.Request) -> httpx.Response:
        if down:
            raise httpx.ConnectError("refused", request=request)
        if request.url.path.startswith("/v1/agents/"):
            return httpx.Response(500, json={"detail": "boom"})
        return httpx.Response(200, json={"version": "0.16.8", "status": "ok"})

    heard: list[bool] = []
    async with LettaClient("http://letta.test", transport=httpx.MockTransport(answer)) as client:
        stop = client.watch_reachability(heard.append)
        for _ in range(2):
            with pytest.raises(ConnectError):
                await client.health()
        with pytest.raises(ConnectError):
            async with client.send_message(AGENT, "hello"):
                pass
        down = False
        with pytest.raises(LettaError):  # an error answer still reached the server
            await client.get_agent(AGENT)
        await client.health()
        stop()
        stop()
        down = True
        with pytest.raises(ConnectError):
            await client.health()
    assert heard == [False, True]


async def test_a_get_whose_pooled_connection_was_closed_is_sent_once_more() -> None:
    """The server closed an idle connection just as it was reused: a GET goes again, once;
    anything else is not sent twice."""
    broken: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if len(broken) < failures:
            broken.append(request.method)
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.",
                                            request=request)
        return httpx.Response(200, json={"version": "0.16.8", "status": "ok"})

    async with LettaClient("http://letta.test", transport=httpx.MockTransport(answer)) as client:
        failures = 1
        assert (await client.health()).version == "0.16.8"
        assert broken == ["GET"]
        broken.clear()
        failures = 2
        with pytest.raises(APIConnectionError, match="RemoteProtocolError"):
            await client.health()
        assert broken == ["GET", "GET"]
        broken.clear()
        failures = 1
        with pytest.raises(APIConnectionError):
            await client.compact(AGENT)
        assert broken == ["POST"]


async def test_https_to_a_server_that_speaks_plain_http_says_so() -> None:
    async def plain_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)  # the TLS hello: answered as an HTTP server answers garbage
        writer.write(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(plain_http, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with LettaClient(f"https://127.0.0.1:{port}") as client:
            with pytest.raises(TLSHandshakeError) as raised:
                await client.health()
    finally:
        server.close()
    assert "not over TLS" in raised.value.message and "use an http:// base URL" in (
        raised.value.message)
    assert not raised.value.may_have_arrived
