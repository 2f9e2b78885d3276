"""Every captured stream of a real Letta 0.16.8 server, asserted item by item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openletta.api.messages import parse_message
from openletta.api.sse import parse_sse_text
from openletta.transcript import Transcript, Usage

FIXTURES = Path(__file__).parent / "fixtures"

HELLO_REASONING = "The user said hello. I should greet them back."
HELLO_TEXT = "Hello! I am a scripted fake model. How can I help?"
SLOW = ("reasoning", "Streaming slowly on purpose.")
HELLO = [("reasoning", HELLO_REASONING), ("assistant", HELLO_TEXT)]
LS = {"command": "ls -la"}
WRITE_ARGS = {"path": "/home/user/project/hello.txt", "content": "hello from the fake model\n"}
EDIT_ARGS = {"path": "/home/user/project/hello.txt", "old": "hello", "new": "goodbye"}
MISSING = {"path": "/nonexistent/definitely_missing.txt"}
READ_ERROR = "Error executing function read_file: FileNotFoundError"


def tool(name: str, status: str, arguments: dict | None = None, result: str | None = None):
    return ("tool_call", name, status, arguments, result)


def after_tool(name: str, status: str = "OK"):
    """The fake model's follow-up step after a tool ran: reasoning then a reply."""
    return [
        ("reasoning", f"The {name} tool finished with status {status}; "),
        ("assistant", f"Tool `{name}` finished (status: {status})."),
    ]


# capture → (how the stream ended, stop reason, step count, expected items). Texts are
# prefixes (the fake model's replies are long); tool results are prefixes too.
EXPECTED: dict[str, tuple[str | None, str | None, int, list]] = {
    "hello_tokens.sse": ("done", "end_turn", 1, HELLO),
    "hello_steps.sse": ("done", "end_turn", 1, HELLO),
    "hello_tokens_nopings.sse": ("done", "end_turn", 1, HELLO),
    "hello_tokens_client_otid.sse": ("done", "end_turn", 1, HELLO),
    "hello_input_sugar_tokens.sse": ("done", "end_turn", 1, HELLO),
    "hello_messages_endpoint_streaming.sse": ("done", "end_turn", 1, HELLO),
    "hello_tokens_filter_types.sse": ("done", "end_turn", 1, [("assistant", HELLO_TEXT)]),
    "conv_send_hello_tokens.sse": ("done", "end_turn", 1, HELLO),
    "conv_default_agent_direct_tokens.sse": ("done", "end_turn", 1, HELLO),
    "_fg_for_resume.sse": ("done", "end_turn", 1, HELLO),
    "bg_steps_full.sse": ("done", "end_turn", 1, HELLO),
    "memgpt_v2_hello_steps.sse": ("done", "end_turn", 1, HELLO),
    # The legacy agent streams only its inner thoughts in token mode (a server quirk).
    "memgpt_v2_hello_tokens.sse": ("done", "end_turn", 1, [("reasoning", " " + HELLO_REASONING)]),
    "stall_pings_tokens.sse": ("done", "end_turn", 1, [
        ("reasoning", "Stalling before answering."), ("assistant", "Sorry for the wait")]),
    "long_markdown_tokens.sse": ("done", "end_turn", 1, [
        ("reasoning", "The user wants a long markdown"), ("assistant", "# Scripted long answer")]),
    "long_markdown_steps.sse": ("done", "end_turn", 1, [
        ("reasoning", "The user wants a long markdown"), ("assistant", "# Scripted long answer")]),
    "read_tool_tokens.sse": ("done", "end_turn", 2, [
        ("reasoning", "Reading /etc/hostname."),
        tool("read_file", "success", {"path": "/etc/hostname"}, "vm\n"),
        *after_tool("read_file")]),
    "read_tool_steps.sse": ("done", "end_turn", 2, [
        ("reasoning", "Reading /etc/hostname."),
        tool("read_file", "success", {"path": "/etc/hostname"}, "vm\n"),
        *after_tool("read_file")]),
    "tool_error_tokens.sse": ("done", "end_turn", 2, [
        ("reasoning", "Reading a file that does not exist"),
        tool("read_file", "error", MISSING, READ_ERROR),
        *after_tool("read_file", "Failed")]),
    "tool_error_steps.sse": ("done", "end_turn", 2, [
        ("reasoning", "Reading a file that does not exist"),
        tool("read_file", "error", MISSING, READ_ERROR),
        *after_tool("read_file", "Failed")]),
    # Two calls streamed in one response; the agent runs only the first (parallel calls off).
    "parallel_tools_tokens.sse": ("done", "end_turn", 2, [
        ("reasoning", "Reading two files at once."),
        tool("read_file", "success", {"path": "/etc/hostname"}, "vm\n"),
        tool("read_file", "not_run", {"path": "/etc/os-release"}),
        *after_tool("read_file")]),
    "approval_request_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "The user wants me to run ls"), tool("bash", "awaiting_approval", LS)]),
    "approval_request2_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "The user wants me to run ls"), tool("bash", "awaiting_approval", LS)]),
    "approval_request_steps.sse": ("done", "requires_approval", 1, [
        ("reasoning", "The user wants me to run ls"), tool("bash", "awaiting_approval", LS)]),
    "approval_write_file_request_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "Writing a file."), tool("write_file", "awaiting_approval", WRITE_ARGS)]),
    "approval_edit_file_request_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "Editing a file."), tool("edit_file", "awaiting_approval", EDIT_ARGS)]),
    "multi_text_and_approval_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "I will say something and then run a command."),
        ("assistant", "Let me list the directory for you."),
        tool("bash", "awaiting_approval", LS)]),
    "client_tool_request_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "Calling the client-side tool"),
        tool("client_bash", "awaiting_approval", {"command": "pwd"})]),
    "client_tool_request2_tokens.sse": ("done", "requires_approval", 1, [
        ("reasoning", "Calling the client-side tool"),
        tool("client_bash", "awaiting_approval", {"command": "pwd"})]),
    # Approval answers: the stream starts with the return of a call made in an earlier
    # request, so on its own the call is known only from its return (no arguments).
    "approval_approve_tokens.sse": ("done", "end_turn", 1, [
        tool("bash", "success", None, "total 12\n"), *after_tool("bash")]),
    "approval_legacy_form_msgid_steps.sse": ("done", "end_turn", 1, [
        tool("bash", "success", None, "total 12\n"), *after_tool("bash")]),
    "approval_write_file_approve_tokens.sse": ("done", "end_turn", 1, [
        tool("write_file", "success", None, "wrote 26 bytes to /home/user/project/hello.txt"),
        *after_tool("write_file")]),
    "approval_edit_file_approve_tokens.sse": ("done", "end_turn", 1, [
        tool("edit_file", "success", None, "edited /home/user/project/hello.txt"),
        *after_tool("edit_file")]),
    # A denial is not echoed in the stream: the model simply answers.
    "approval_deny_tokens.sse": ("done", "end_turn", 1, after_tool("bash", "Failed")),
    "multi_deny_tokens.sse": ("done", "end_turn", 1, after_tool("bash", "Failed")),
    "client_tool_return_tokens.sse": ("done", "end_turn", 1, after_tool("client_bash")),
    "client_tool_return_via_tool_return_type_tokens.sse": (
        "done", "end_turn", 1, after_tool("client_bash", "Failed")),
    "approval_pending_then_user_message.sse": ("done", "error", 0, [
        ("error", "internal_error", "CONFLICT: Cannot send a new message")]),
    "error_approval_unknown_tool_call.sse": ("done", "error", 0, [
        ("error", "internal_error", "An unknown error occurred")]),
    "llm_error_tokens.sse": ("done", "llm_api_error", 0, [
        ("error", "llm_error", "An error occurred with the LLM request.")]),
    "llm_error_steps.sse": ("done", "llm_api_error", 0, [
        ("error", "llm_error", "An error occurred with the LLM request.")]),
    # Cancelled foreground streams end at `stop_reason: cancelled` with no [DONE].
    "cancel_fg_stream_tokens.sse": ("stop_reason", "cancelled", 0, [
        SLOW, ("assistant", "word1 word2 word3 word4 word5 word6 word7 word8 ")]),
    "cancel_fg_steps_stream.sse": ("stop_reason", "cancelled", 0, []),
    "conv_slow_first_tokens.sse": ("stop_reason", "cancelled", 0, [
        SLOW, ("assistant", "word1 word2 word3 word4 ")]),
    "cancel_bg_resume_after_cancel.sse": ("done", "cancelled", 0, [
        SLOW, ("assistant", "word1 word2 word3 word4 word5 ")]),
    # Background streams the client walked away from: no end marker at all.
    "bg_start_tokens_disconnect.sse": (None, None, 0, [SLOW, ("assistant", "word1 word2 word3 ")]),
    "cancel_bg_start_disconnect.sse": (None, None, 0, [SLOW, ("assistant", "word1 word2 word3 ")]),
    "conv_bg_start_disconnect.sse": (None, None, 0, [SLOW, ("assistant", "word1 word2 word3 ")]),
    "bg_replay_from_0.sse": ("done", "end_turn", 1, [SLOW, ("assistant", "word1 word2 word3 ")]),
    "conv_stream_resume.sse": ("done", "end_turn", 1, [SLOW, ("assistant", "word1 word2 word3 ")]),
    "bg_resume_after_seq.sse": ("done", "end_turn", 1, [("assistant", "word8 word9 word10 ")]),
}


def load(name: str):
    return parse_sse_text((FIXTURES / name).read_text())


def test_every_capture_has_expectations() -> None:
    captures = {path.name for path in FIXTURES.glob("*.sse")}
    assert captures == set(EXPECTED)


def _describe(item) -> tuple:
    data = item.to_json()
    if data["kind"] == "tool_call":
        return ("tool_call", data["name"], data["status"], data["arguments"], data["result"])
    if data["kind"] == "error":
        return ("error", data["error_type"], data["message"])
    return (data["kind"], data["text"])


def _matches(actual: tuple, expected: tuple) -> bool:
    """Exact on kinds, names, statuses and arguments; prefix match on long texts."""
    if len(actual) != len(expected) or actual[0] != expected[0]:
        return False
    for got, want in zip(actual[1:], expected[1:], strict=True):
        if isinstance(want, str) and isinstance(got, str):
            if not got.startswith(want):
                return False
        elif got != want:
            return False
    return True


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_capture_transcript(name: str) -> None:
    ended, stop_reason, steps, expected_items = EXPECTED[name]
    parsed = load(name)
    transcript = Transcript()
    transcript.feed_all(parsed.messages)

    assert parsed.ended == ended
    assert transcript.stop_reason == stop_reason
    assert transcript.usage.step_count == steps
    actual = [_describe(item) for item in transcript.items]
    assert len(actual) == len(expected_items), actual
    for got, want in zip(actual, expected_items, strict=True):
        assert _matches(got, want), (got, want)
    assert transcript.ignored == 0
    # Nothing is left half-open when a stream ended with a marker.
    if ended is not None:
        assert all(getattr(item, "done", True) for item in transcript.items)
        assert not any(str(getattr(item, "status", "")) in ("streaming", "running")
                       for item in transcript.items)


def test_usage_is_read_from_usage_statistics() -> None:
    transcript = Transcript()
    transcript.feed_all(load("read_tool_tokens.sse").messages)
    usage = transcript.usage.to_json()
    assert usage["prompt_tokens"] + usage["completion_tokens"] == usage["total_tokens"] == 7187
    assert usage["step_count"] == 2
    assert 0 < usage["context_tokens"] < usage["total_tokens"]


def test_the_context_size_is_kept_from_turn_to_turn() -> None:
    transcript = Transcript()
    assert transcript.context_tokens is None
    transcript.add_user("read it")
    transcript.feed_all(load("read_tool_tokens.sse").messages)
    context = transcript.usage.context_tokens
    assert context and transcript.context_tokens == context
    transcript.add_user("again")  # a new turn: its usage is not known yet, the context is
    assert transcript.usage.total_tokens == 0 and transcript.context_tokens == context
    transcript.feed(parse_message({"message_type": "usage_statistics", "total_tokens": 5,
                                   "step_count": 1}))  # a server that does not say
    assert transcript.usage.total_tokens == 5 and transcript.context_tokens == context
    transcript.feed(parse_message({"message_type": "usage_statistics", "total_tokens": 9,
                                   "step_count": 1, "context_tokens": context + 9}))
    assert transcript.context_tokens == context + 9


def test_usage_adds_up_counts_a_server_may_leave_out() -> None:
    unknown = Usage(total_tokens=3, step_count=1)
    assert unknown.plus(unknown).reasoning_tokens is None
    both = unknown.plus(Usage(reasoning_tokens=4, cached_input_tokens=0, context_tokens=7))
    assert (both.reasoning_tokens, both.cached_input_tokens, both.context_tokens) == (4, 0, 7)
    assert both.plus(unknown).context_tokens == 7  # the newest snapshot a request gave
    assert (both.total_tokens, both.step_count) == (3, 1)


def test_run_id_is_taken_from_the_leading_ping() -> None:
    transcript = Transcript()
    transcript.feed(load("hello_tokens.sse").messages[0])
    assert transcript.run_id == "run-6a61b273-2373-436a-ba4f-78c62f635479"


def test_a_compactions_summary_is_shown_after_the_turn_it_followed() -> None:
    """0.16.8 stores a compaction's summary as a ``system_alert`` user message, dated when
    it ran: it becomes a summary divider, and the turn before it keeps its footer."""
    rows = json.loads((FIXTURES / "compacted_history.json").read_text())
    transcript = Transcript(footers=True)
    transcript.load_history([parse_message(row) for row in rows])
    kinds = [item.kind for item in transcript.items]
    assert kinds[-3:] == ["assistant", "footer", "event"]
    summary = transcript.items[-1]
    assert summary.event_type == "compaction_summary"  # type: ignore[attr-defined]
    assert summary.text.startswith("Slow sentence 1: word1")  # type: ignore[attr-defined]
    assert not summary.internal
    assert kinds.count("footer") == kinds.count("user")
