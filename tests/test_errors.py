"""Typed errors from every recorded error answer of a real server, and from the documented
body shapes that were not recorded."""

from __future__ import annotations

import json

import pytest

from openletta.api.errors import (
    AuthError,
    ConflictError,
    ConnectError,
    ConversationBusyError,
    LettaError,
    NotFoundError,
    PendingApprovalError,
    RequestTimeout,
    ServerError,
    StreamDroppedError,
    ValidationError,
    error_from_response,
    error_from_stream,
)
from openletta.api.messages import ErrorMessage
from openletta.api.sse import parse_sse_text

AGENT = "agent-00000000-0000-4000-8000-000000000000"

# capture → (status, class, the human message, the server's message)
CAPTURED = {
    "error_agent_not_found_404.json": (
        404, NotFoundError,
        f"Not found: Agent with ID {AGENT} not found. Check the id, or choose again.",
        f"Agent with ID {AGENT} not found"),
    "error_stream_unknown_agent.json": (
        404, NotFoundError,
        f"Not found: Agent with ID {AGENT} not found. Check the id, or choose again.",
        f"Agent with ID {AGENT} not found"),
    "error_agent_bad_id_format.json": (
        422, ValidationError,
        "The server rejected the request: agent_id: String should match pattern "
        "'agent-{uuid4}'. Check the input or the server version.",
        "agent_id: String should match pattern 'agent-{uuid4}'"),
    "error_stream_empty_body_422.json": (
        422, ValidationError,
        "The server rejected the request: Must specify either 'input' or 'messages'. "
        "Check the input or the server version.",
        "Must specify either 'input' or 'messages'."),
    "hello_messages_endpoint_streaming_legacy_ua.json": (
        422, ValidationError,
        "The server rejected the request: streaming=true is only supported for SDK v1.0+ "
        "clients. Check the input or the server version.",
        "streaming=true is only supported for SDK v1.0+ clients."),
    "resume_foreground_run_error.json": (
        400, ValidationError,
        "The server rejected the request: Run was not created in background mode, so it "
        "cannot be retrieved. Check the input or the server version.",
        "INVALID_ARGUMENT: Run was not created in background mode, so it cannot be retrieved."),
    "llm_error_nonstream.json": (
        500, ServerError,
        "The model provider failed: An error occurred with the LLM request. "
        "If it fails again, see the server's log, or try another model (/model).",
        "An error occurred with the LLM request."),
    "conv_busy_second_request.json": (
        409, ConversationBusyError,
        "The conversation is busy with another request "
        "(run-adf1416f-af2c-4f87-a300-040cc3bde7d4). Wait for it to finish or cancel it.",
        "CONFLICT: Cannot send a new message: Another request "
        "(run_id=run-adf1416f-af2c-4f87-a300-040cc3bde7d4) is currently being processed for "
        "this conversation. Please wait for it to complete."),
    "bg_resume_get_method.json": (
        405, LettaError,
        "Unexpected answer from the Letta server (HTTP 405): Method Not Allowed. "
        "Check that openletta supports this server version.",
        "Method Not Allowed"),
}


@pytest.mark.parametrize("name", sorted(CAPTURED))
def test_captured_error_bodies(name: str, load_fixture) -> None:
    status, kind, message, server_message = CAPTURED[name]
    body = load_fixture(name)
    error = error_from_response(status, body)
    assert type(error) is kind
    assert error.message == message
    assert error.server_message == server_message
    assert error.status_code == status
    assert error.body == body.decode()
    assert "\n" not in error.message


def test_the_long_pydantic_repr_is_summarised(load_fixture) -> None:
    error = error_from_response(422, load_fixture("error_stream_bad_message_422.json"))
    assert isinstance(error, ValidationError)
    assert error.server_message.startswith(
        "messages.0.role: Input should be <MessageRole.user: 'user'>")
    assert "; messages.0.content.str: Input should be a valid string (+4 more)" in error.message
    assert "function-after" not in error.message and "'ctx'" not in error.message
    assert len(error.message) <= 400


def test_the_busy_conflict_keeps_the_run_id(load_fixture) -> None:
    error = error_from_response(409, load_fixture("conv_busy_second_request.json"))
    assert isinstance(error, ConversationBusyError) and isinstance(error, ConflictError)
    assert error.run_id == "run-adf1416f-af2c-4f87-a300-040cc3bde7d4"


def test_pending_approval_409_with_a_detail_object() -> None:
    body = {"detail": {"code": "PENDING_APPROVAL", "pending_request_id": "message-1",
                       "message": "CONFLICT: Cannot send a new message: The agent is waiting "
                                  "for approval on a tool call. Please approve or deny the "
                                  "pending request before continuing."}}
    error = error_from_response(409, json.dumps(body))
    assert isinstance(error, PendingApprovalError)
    assert error.message == ("The agent is waiting for approval of a tool call. "
                             "Approve or deny it before sending a new message.")
    assert error.server_message == body["detail"]["message"]


@pytest.mark.parametrize(("status", "body", "kind", "expected"), [
    (401, {"detail": "Unauthorized"}, AuthError,
     "The Letta server refused access (HTTP 401: Unauthorized). Set LETTA_API_KEY to a valid "
     "key."),
    (403, {"error": "forbidden"}, AuthError,
     "The Letta server refused access (HTTP 403: forbidden). Set LETTA_API_KEY to a valid key."),
    (409, {"detail": "CONFLICT: No active runs to cancel for agent agent-1"}, ConflictError,
     "Conflict: No active runs to cancel for agent agent-1. Wait a moment and try again."),
    (410, {"detail": "EXPIRED: Run was created more than 3 hours ago, and is now expired."},
     NotFoundError, "Not found: Run was created more than 3 hours ago, and is now expired. "
     "Check the id, or choose again."),
    (429, {"error": {"type": "llm_rate_limit", "message": "Rate limit exceeded."}}, ServerError,
     "The model provider failed: Rate limit exceeded. Try again in a moment."),
    (401, {"error": {"type": "llm_authentication", "message": "Bad provider key."}},
     ServerError, "The model provider failed: Bad provider key. Check the provider's key on "
     "the Letta server."),
    (503, {"errorCode": "cloud_api_shutting_down", "retryable": True}, ServerError,
     "The Letta server failed (HTTP 503): Service Unavailable. Try again; if it persists, "
     "check the server logs."),
    (502, "<html>Bad gateway</html>", ServerError,
     "The Letta server failed (HTTP 502): Bad Gateway. Try again; if it persists, check the "
     "server logs."),
])
def test_documented_body_shapes(status: int, body, kind: type, expected: str) -> None:
    raw = body if isinstance(body, str) else json.dumps(body)
    error = error_from_response(status, raw.encode())
    assert type(error) is kind
    assert error.message == expected
    assert error.body == raw


def test_llm_errors_keep_their_type() -> None:
    body = {"error": {"type": "llm_timeout", "message": "Timed out.", "detail": "x"}}
    error = error_from_response(504, json.dumps(body))
    assert isinstance(error, ServerError) and error.error_type == "llm_timeout"


def test_a_very_long_message_is_capped_to_one_line() -> None:
    error = error_from_response(500, json.dumps({"detail": "boom\n" * 200}))
    assert "\n" not in error.message and len(error.message) < 420
    assert error.server_message == "boom\n" * 200


# In-stream errors (``event: error``) from the captures.
@pytest.mark.parametrize(("name", "kind", "message"), [
    ("approval_pending_then_user_message.sse", PendingApprovalError,
     "The agent is waiting for approval of a tool call. Approve or deny it before sending a "
     "new message."),
    ("error_approval_unknown_tool_call.sse", ServerError,
     "The agent stopped with an error: Cannot process approval response: No tool call is "
     "currently awaiting approval. Please send a regular message to interact with the agent. "
     "Try again; if it persists, check the server logs."),
    ("llm_error_tokens.sse", ServerError,
     "The model provider failed: An error occurred with the LLM request. If it fails "
     "again, see the server's log, or try another model (/model)."),
])
def test_in_stream_errors(name: str, kind: type, message: str, load_fixture) -> None:
    error = parse_sse_text(load_fixture(name)).error
    assert type(error) is kind
    assert error.message == message


def test_in_stream_busy_error() -> None:
    text = ("CONFLICT: Cannot send a new message: Another request (run_id=run-"
            "adf1416f-af2c-4f87-a300-040cc3bde7d4) is currently being processed.")
    error = error_from_stream(ErrorMessage(error_type="internal_error", message=text))
    assert isinstance(error, ConversationBusyError)
    assert error.run_id == "run-adf1416f-af2c-4f87-a300-040cc3bde7d4"


def test_network_error_messages() -> None:
    assert ConnectError("http://localhost:8283").message == (
        "Could not reach the Letta server at http://localhost:8283: nothing answered there. "
        "Is it running?")
    assert RequestTimeout("http://x").message == (
        "The Letta server at http://x did not answer in time. "
        "Check that it is healthy, then try again.")
    dropped = StreamDroppedError("run-1", 7, "the connection closed")
    assert (dropped.run_id, dropped.last_seq_id) == ("run-1", 7)
    assert dropped.message == ("The reply stream stopped before the end (run run-1): the "
                               "connection closed. What arrived is kept; resend or check the "
                               "run later.")
