"""Accumulator behaviour: flows across requests, history paging, change reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openletta.api.answers import INTERRUPTED
from openletta.api.messages import parse_message
from openletta.api.sse import parse_sse_text
from openletta.transcript import (
    AssistantItem,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    Transcript,
    UserItem,
)
from openletta.transcript.edits import read_edit_note, with_edit_note

FIXTURES = Path(__file__).parent / "fixtures"


def stream(name: str):
    return parse_sse_text((FIXTURES / name).read_text()).messages


def history(name: str):
    return [parse_message(entry) for entry in json.loads((FIXTURES / name).read_text())]


def shapes(items) -> list[dict]:
    """Items as JSON without the ids that differ between two recordings of one turn."""
    out = []
    for item in items:
        data = item.to_json()
        data.pop("tool_call_id", None)
        out.append(data)
    return out


def test_token_and_step_mode_give_the_same_items() -> None:
    for tokens, steps in [
        ("hello_tokens.sse", "hello_steps.sse"),
        ("read_tool_tokens.sse", "read_tool_steps.sse"),
        ("tool_error_tokens.sse", "tool_error_steps.sse"),
        ("long_markdown_tokens.sse", "long_markdown_steps.sse"),
        ("approval_request_tokens.sse", "approval_request_steps.sse"),
    ]:
        live_tokens, live_steps = Transcript(), Transcript()
        live_tokens.feed_all(stream(tokens))
        live_steps.feed_all(stream(steps))
        token_items, step_items = shapes(live_tokens.items), shapes(live_steps.items)
        # Tracebacks carry temp file names that differ between the two runs.
        for item in token_items + step_items:
            item.pop("stderr", None)
        assert token_items == step_items, (tokens, steps)


def test_approve_flow_attaches_the_return_to_the_same_card() -> None:
    transcript = Transcript()
    transcript.add_user("run ls")
    transcript.feed_all(stream("approval_request_tokens.sse"))
    (pending,) = transcript.pending_approvals
    assert transcript.stop_reason == "requires_approval"

    change = transcript.record_decisions({pending.tool_call_id: (True, None)})
    assert change.changed == [pending] and pending.status is ToolStatus.RUNNING
    assert not transcript.awaiting_approval
    assert transcript.stop_reason is None

    transcript.feed_all(stream("approval_approve_tokens.sse"))
    calls = [item for item in transcript.items if isinstance(item, ToolCallItem)]
    assert calls == [pending]
    assert pending.status is ToolStatus.SUCCESS
    assert pending.approved is True
    assert pending.arguments == {"command": "ls -la"}
    assert pending.result.startswith("total 12")
    assert [item.kind for item in transcript.items] == [
        "user", "reasoning", "tool_call", "reasoning", "assistant"]
    assert transcript.stop_reason == "end_turn"


def test_deny_flow_keeps_the_reason_on_the_card() -> None:
    transcript = Transcript()
    transcript.feed_all(stream("approval_request2_tokens.sse"))
    (pending,) = transcript.pending_approvals
    transcript.record_decisions({pending.tool_call_id: (False, "not now, thanks")})
    transcript.feed_all(stream("approval_deny_tokens.sse"))
    assert pending.status is ToolStatus.DENIED
    assert pending.reason == "not now, thanks"
    assert transcript.items[-1].kind == "assistant"


def test_auto_approved_decisions_are_marked() -> None:
    transcript = Transcript()
    transcript.feed_all(stream("approval_request_tokens.sse"))
    (pending,) = transcript.pending_approvals
    transcript.record_decisions({pending.tool_call_id: (True, None)},
                                auto={pending.tool_call_id})
    assert pending.auto_approved and pending.approved


def test_history_shows_past_decisions() -> None:
    transcript = Transcript()
    transcript.load_history(history("agent_messages_default.json"))
    calls = {item.tool_call_id: item for item in transcript.items
             if isinstance(item, ToolCallItem)}
    approved = calls["call_5981249e5ce4424db7443339"]
    assert (approved.status, approved.approved, approved.needs_approval) == (
        ToolStatus.SUCCESS, True, True)
    denied = calls["call_674b4705afee4da0977f2ccc"]
    assert (denied.status, denied.approved, denied.reason) == (
        ToolStatus.DENIED, False, "not now, thanks")
    assert denied.result == "Error: request to call tool denied. User reason: not now, thanks"
    # The legacy answer named the approval request's message id, not the call id.
    legacy = calls["call_0d981498e7ad4c7890497529"]
    assert (legacy.status, legacy.approved) == (ToolStatus.SUCCESS, True)
    # A client-side tool's result arrives inside the approval response.
    client = calls["call_047c069137bd492da56e3666"]
    assert (client.status, client.result) == (ToolStatus.ERROR, "permission denied")
    assert not transcript.awaiting_approval


def test_history_hides_the_system_prompt_but_keeps_it() -> None:
    transcript = Transcript()
    transcript.load_history(history("agent_messages_default.json"))
    assert isinstance(transcript.items[0], SystemItem) and transcript.items[0].internal
    visible = transcript.visible_items()
    assert isinstance(visible[0], UserItem) and visible[0].text == "hello"
    assert len(transcript.visible_items(include_internal=True)) == len(visible) + 1


def test_live_turn_equals_the_same_turn_rebuilt_from_history() -> None:
    live = Transcript()
    live.add_user("read the hostname file")
    live.feed_all(stream("read_tool_steps.sse"))

    stored = Transcript()
    stored.load_history(history("agent_messages_default.json"))
    call_id = "call_6e1a464a38e74c1990ac154d"  # the call of read_tool_steps.sse
    start = stored.items.index(stored.call(call_id)) - 2  # its user message and reasoning
    turn = stored.items[start:start + len(live.items)]
    assert [item.to_json() for item in turn] == [item.to_json() for item in live.items]


def test_history_items_are_complete() -> None:
    transcript = Transcript()
    transcript.load_history(history("agent_messages_default.json"))
    for item in transcript.items:
        if isinstance(item, ReasoningItem | AssistantItem):
            assert item.done
        if isinstance(item, ReasoningItem):
            assert item.duration is None
        if isinstance(item, ToolCallItem):
            assert item.status.is_final


def test_overlapping_history_pages_do_not_duplicate() -> None:
    transcript = Transcript()
    transcript.load_history(history("agent_messages_desc_limit4.json"))
    count = len(transcript.items)
    change = transcript.prepend_history(history("agent_messages_desc_limit4_before_newest.json"))
    keys = [item.key for item in transcript.items]
    assert len(keys) == len(set(keys))
    assert len(transcript.items) == count + len(change.prepended)


def test_the_newest_page_read_after_a_live_turn_adds_only_what_is_new() -> None:
    """A turn streamed live, then the newest page (that turn as stored, and a newer one):
    the stored copy of the live turn adds nothing, its text is not doubled."""
    transcript = Transcript(footers=True)
    transcript.add_user("hello", otid="02395285-1f4f-487f-8b33-92903500099a")
    transcript.feed_all(stream("conv_send_hello_tokens.sse"))
    live = [(item.kind, getattr(item, "text", None)) for item in transcript.items]
    page = history("conv_messages_asc.json")[1:]  # oldest first, without the system prompt
    change = transcript.load_history(page)
    assert [(item.kind, getattr(item, "text", None)) for item in transcript.items][:4] == live
    assert [item.kind for item in change.added] == ["user", "reasoning", "assistant", "footer"]
    texts = [item.text for item in transcript.items if item.kind == "assistant"]
    assert texts == ["Hello! I am a scripted fake model. How can I help?"] * 2


def test_older_page_is_prepended_in_order() -> None:
    messages = history("agent_messages_default.json")
    whole = Transcript()
    whole.load_history(messages)

    paged = Transcript()
    newest = paged.load_history(messages[60:])
    assert [item.key for item in newest.added] == [item.key for item in paged.items]
    older = paged.prepend_history(messages[:60])
    assert older.added == [] and older.prepended == paged.items[:len(older.prepended)]
    assert [item.to_json() for item in paged.items] == [item.to_json() for item in whole.items]


def test_a_call_whose_return_is_on_a_newer_page_is_paired_and_moved() -> None:
    messages = history("agent_messages_default.json")
    split = next(i for i, message in enumerate(messages)
                 if message.message_type == "tool_return_message")
    paged = Transcript()
    paged.load_history(messages[split:])
    orphan = paged.items[0]
    assert isinstance(orphan, ToolCallItem) and orphan.arguments is None
    assert orphan.result == "vm\n" and orphan.name == "read_file"

    change = paged.prepend_history(messages[:split])
    assert change.removed == [orphan] and orphan in change.prepended
    whole = Transcript()
    whole.load_history(messages)
    assert [item.to_json() for item in paged.items] == [item.to_json() for item in whole.items]
    assert paged.items.index(orphan) == split - 1  # right after its reasoning, before the reply


def test_resumed_stream_skips_chunks_already_seen() -> None:
    replay = Transcript()
    replay.feed_all(stream("bg_replay_from_0.sse"))

    resumed = Transcript()
    resumed.feed_all(stream("bg_start_tokens_disconnect.sse"))
    resumed.feed_all(stream("bg_resume_after_seq.sse"))
    assert shapes(resumed.items) == shapes(replay.items)

    replayed_twice = Transcript()
    replayed_twice.feed_all(stream("bg_start_tokens_disconnect.sse"))
    replayed_twice.feed_all(stream("bg_replay_from_0.sse"))
    assert shapes(replayed_twice.items) == shapes(replay.items)


def test_each_chunk_reports_exactly_what_changed() -> None:
    transcript = Transcript()
    messages = stream("read_tool_tokens.sse")
    reports = [transcript.feed(message) for message in messages]
    ping, first_reasoning, second_reasoning = reports[:3]
    assert not ping
    assert [item.kind for item in first_reasoning.added] == ["reasoning"]
    assert second_reasoning.added == [] and second_reasoning.changed == first_reasoning.added
    tool_start = reports[3]
    assert [item.kind for item in tool_start.added] == ["tool_call"]
    assert tool_start.changed == first_reasoning.added  # the reasoning was closed
    assert first_reasoning.added[0].done
    # Each later argument fragment touches only the card.
    for report in reports[4:9]:
        assert report.added == [] and [item.kind for item in report.changed] == ["tool_call"]


def test_items_never_disappear_or_get_replaced_while_streaming() -> None:
    transcript = Transcript()
    seen: list = []
    for message in stream("multi_text_and_approval_tokens.sse"):
        transcript.feed(message)
        assert transcript.items[:len(seen)] == seen
        seen = list(transcript.items)
    assert [item.kind for item in seen] == ["reasoning", "assistant", "tool_call"]


def test_interrupt_keeps_the_partial_reply_and_says_so() -> None:
    transcript = Transcript()
    messages = stream("cancel_fg_stream_tokens.sse")[:-1]  # drop the stop reason
    transcript.feed_all(messages)
    assert not transcript.items[-1].done
    change = transcript.end_stream("interrupted", "Interrupted by you")
    assert transcript.items[-2].done and transcript.items[-2].text.startswith("word1")
    assert change.added[-1].kind == "event" and change.added[-1].text == "Interrupted by you"
    assert transcript.stop_reason == "cancelled"


def test_dropped_stream_keeps_what_arrived_and_adds_an_error() -> None:
    transcript = Transcript()
    transcript.feed_all(stream("bg_start_tokens_disconnect.sse"))
    transcript.end_stream("dropped", "Connection lost; the reply may be incomplete.")
    assert [item.kind for item in transcript.items] == ["reasoning", "assistant", "error"]
    assert transcript.items[-1].error_type == "stream_dropped"


def test_a_dropped_turn_reopened_goes_on_as_if_it_never_dropped() -> None:
    first = stream("bg_start_tokens_disconnect.sse")
    rest = stream("bg_resume_after_seq.sse")
    transcript = Transcript(footers=True)
    transcript.add_user("hello")
    transcript.feed_all(first)
    transcript.end_stream("dropped", "Could not reach the server")
    error, footer = transcript.items[-2:]
    assert (error.kind, footer.kind) == ("error", "footer")
    reply = transcript.items[-3]
    assert isinstance(reply, AssistantItem) and reply.done

    change = transcript.reopen_dropped()
    assert change.removed == [error, footer] and reply in change.changed
    assert transcript.items[-1] is reply and not reply.done
    assert transcript.get(error.key) is None and transcript.get(footer.key) is None
    transcript.feed_all(rest)

    whole = Transcript(footers=True)
    whole.add_user("hello")
    whole.feed_all([*first, *rest])
    assert [item.to_json() for item in transcript.items if item.kind != "footer"] == [
        item.to_json() for item in whole.items if item.kind != "footer"]
    assert [item.kind for item in transcript.items][-1] == "footer"
    assert sum(item.kind == "footer" for item in transcript.items) == 1


def test_a_dropped_call_reopened_streams_again() -> None:
    transcript = Transcript()
    transcript.feed_all(stream("read_tool_tokens.sse")[:6])
    call = next(item for item in transcript.items if isinstance(item, ToolCallItem))
    transcript.end_stream("dropped", "Could not reach the server")
    assert call.status is ToolStatus.CANCELLED
    assert call in transcript.reopen_dropped().changed
    assert call.status is ToolStatus.STREAMING


def test_only_the_last_turn_dropped_can_be_reopened() -> None:
    transcript = Transcript()
    transcript.feed_all(stream("bg_start_tokens_disconnect.sse"))
    transcript.end_stream("interrupted", "Interrupted by you")
    assert not transcript.reopen_dropped()
    transcript.end_stream("dropped", "Could not reach the server")
    transcript.add_user("something else")
    assert not transcript.reopen_dropped()
    assert transcript.items[-2].kind == "error"


def test_tool_call_cancelled_mid_arguments_is_marked_cancelled() -> None:
    transcript = Transcript()
    messages = stream("read_tool_tokens.sse")
    transcript.feed_all(messages[:6])
    call = next(item for item in transcript.items if isinstance(item, ToolCallItem))
    assert call.status is ToolStatus.STREAMING and call.arguments is None
    assert call.arguments_text == '{"path'
    transcript.end_stream("interrupted", "Interrupted")
    assert call.status is ToolStatus.CANCELLED


def test_a_call_seen_so_far_has_the_arguments_as_far_as_they_arrived() -> None:
    call = ToolCallItem(key="k", name="write_file", status=ToolStatus.STREAMING)
    seen = []
    for part in ['{"pa', 'th": "a.md", ', '"content": "x', "y", 'z"} ', "\n"]:
        call.append_arguments(part)
        seen.append((call.so_far().arguments, call.so_far().arguments == call.arguments))
    assert seen == [
        (None, True),  # not even a key is whole
        ({"path": "a.md"}, False),
        ({"path": "a.md", "content": "x"}, False),
        ({"path": "a.md", "content": "xy"}, False),
        ({"path": "a.md", "content": "xyz"}, True),  # whole: the call itself
        ({"path": "a.md", "content": "xyz"}, True),
    ]


def test_unknown_types_and_fields_are_ignored() -> None:
    transcript = Transcript()
    transcript.feed(parse_message({"message_type": "response_state", "state": "x"}))
    transcript.feed(parse_message({"message_type": "assistant_message", "id": "message-1",
                                   "otid": "o1", "content": "hi", "brand_new_field": [1]}))
    transcript.feed(parse_message(["not", "a", "dict"]))
    assert transcript.ignored == 2
    assert [item.to_json() for item in transcript.items] == [{"kind": "assistant", "text": "hi"}]


def test_prototype_shapes_are_understood() -> None:
    transcript = Transcript()
    transcript.feed_all([
        parse_message({"message_type": "reasoning_message", "content": "I should run ls."}),
        parse_message({"message_type": "approval_request_message", "tool_call": {
            "tool_call_id": "call_abc123", "tool_name": "bash",
            "arguments": {"command": "ls -la /home/user"}}}),
        parse_message({"message_type": "tool_return_message", "tool_call_id": "call_abc123",
                       "tool_name": "bash", "status": "success", "result": "total 48"}),
    ])
    reasoning, call = transcript.items
    assert reasoning.text == "I should run ls."
    assert (call.name, call.arguments, call.status, call.result) == (
        "bash", {"command": "ls -la /home/user"}, ToolStatus.SUCCESS, "total 48")


def test_packed_system_notes_are_internal() -> None:
    transcript = Transcript()
    transcript.load_history([
        parse_message({"message_type": "user_message", "id": "message-1",
                       "content": '{"type": "system_alert", "message": "Memory compacted."}'}),
        parse_message({"message_type": "user_message", "id": "message-2",
                       "content": '{"type": "user_message", "message": "packed hi"}'}),
        parse_message({"message_type": "user_message", "id": "message-3",
                       "content": '{"type": "note", "text": "user typed JSON"}'}),
        parse_message({"message_type": "user_message", "id": "message-4",
                       "content": "<system-alert>Automated keep-alive ping. Ignore this message "
                                  "and continue from where you stopped.</system-alert>"}),
    ])
    alert, packed, typed, ping = transcript.items
    assert isinstance(alert, SystemItem) and alert.subtype == "system_alert" and alert.internal
    assert isinstance(ping, SystemItem) and ping.internal  # Letta's, after answers it had
    assert ping.text.startswith("Automated keep-alive ping.")
    assert isinstance(packed, UserItem) and packed.text == "packed hi"
    assert isinstance(typed, UserItem) and typed.text.startswith('{"type": "note"')


def test_compaction_event_and_summary_are_dividers() -> None:
    transcript = Transcript()
    transcript.feed_all([
        parse_message({"message_type": "event_message", "id": "1b2c", "event_type": "compaction",
                       "event_data": {"context_token_estimate": 29000, "context_window": 30000}}),
        parse_message({"message_type": "summary_message", "id": "message-9",
                       "summary": "We talked about files."}),
    ])
    event, summary = transcript.items
    assert event.text == "Compacting context (29,000 of 30,000 tokens)"
    assert (summary.event_type, summary.text) == ("summary", "We talked about files.")


def test_reasoning_duration_uses_the_injected_clock() -> None:
    ticks = iter([10.0, 10.5, 11.25])
    transcript = Transcript(clock=lambda: next(ticks))
    for text in ("a", "b"):
        transcript.feed(parse_message({"message_type": "reasoning_message", "id": "message-1",
                                       "otid": "r", "reasoning": text}))
    assert transcript.items[0].text == "ab" and transcript.items[0].duration == 1.25


def test_a_silence_while_a_thought_streams_is_not_counted_as_thinking() -> None:
    """A thought stalled by the server (a minute without a chunk, the status bar saying it
    waits for the agent) is not said to have taken that minute: only its streaming counts."""
    ticks = iter([0.0, 0.5, 60.5, 61.0])  # made; first chunk; 60 s later; 0.5 s later
    transcript = Transcript(clock=lambda: next(ticks))
    for text in ("I ", "waited ", "here"):
        transcript.feed(parse_message({"message_type": "reasoning_message", "id": "message-1",
                                       "otid": "r", "reasoning": text}))
    assert transcript.items[0].duration == 1.0


def test_streamed_calls_the_server_does_not_hold_are_settled_as_not_run() -> None:
    transcript = Transcript()
    request = parse_message({
        "message_type": "approval_request_message", "id": "message-1",
        "tool_calls": [
            {"name": "bash", "arguments": '{"command": "ls"}', "tool_call_id": "call-1"},
            {"name": "bash", "arguments": '{"command": "pwd"}', "tool_call_id": "call-2"}]})
    transcript.feed(request)
    assert [c.tool_call_id for c in transcript.pending_approvals] == ["call-1", "call-2"]

    change = transcript.settle_unheld(["call-1"])

    assert [c.tool_call_id for c in transcript.pending_approvals] == ["call-1"]
    assert transcript.call("call-2").status is ToolStatus.NOT_RUN
    assert change.changed == [transcript.call("call-2")]
    assert transcript.settle_unheld([]).changed == [transcript.call("call-1")]


@pytest.mark.parametrize("run_here", [set(), {"call-1"}])
def test_a_call_a_client_answered_is_marked_as_run_on_a_client(run_here: set[str]) -> None:
    transcript = Transcript()
    transcript.calls_run_here = run_here
    transcript.load_history([
        parse_message({"message_type": "approval_request_message", "id": "message-1",
                       "tool_calls": [{"tool_call_id": "call-1", "name": "Bash",
                                       "arguments": '{"command": "pwd"}'}]}),
        parse_message({"message_type": "approval_response_message", "id": "message-2",
                       "approvals": [{"type": "tool", "tool_call_id": "call-1",
                                      "tool_return": "/home/me", "status": "success"}]}),
    ])
    call = transcript.call("call-1")
    assert call is not None and call.client_result and not call.runs_here
    assert call.ran_here is bool(run_here)  # this machine was that client
    assert call.status is ToolStatus.SUCCESS and call.result == "/home/me"


@pytest.mark.parametrize(("status", "result", "shown"), [
    ("error", INTERRUPTED, ToolStatus.CANCELLED), ("error", "boom", ToolStatus.ERROR),
    ("success", INTERRUPTED, ToolStatus.SUCCESS),
    ("error", f"{INTERRUPTED} What it printed until then:\nn1\nn2\n", ToolStatus.CANCELLED),
    ("error", f"boom\n{INTERRUPTED}", ToolStatus.CANCELLED),
    ("error", f"boom {INTERRUPTED}", ToolStatus.ERROR)])
def test_a_call_the_user_stopped_reads_back_as_cancelled_as_it_showed_live(
        status: str, result: str, shown: ToolStatus) -> None:
    request = {"message_type": "approval_request_message", "id": "message-1",
               "tool_calls": [{"tool_call_id": "call-1", "name": "Bash",
                               "arguments": '{"command": "sleep 60"}'}]}
    response = {"message_type": "approval_response_message", "id": "message-2",
                "approvals": [{"type": "tool", "tool_call_id": "call-1",
                               "tool_return": result, "status": status}]}
    stored = {"message_type": "tool_return_message", "id": "message-3",
              "tool_call_id": "call-1", "status": status, "tool_return": result}
    for messages in ([request, response], [request, response, stored]):
        transcript = Transcript()
        transcript.load_history([parse_message(message) for message in messages])
        call = transcript.call("call-1")
        assert call is not None and call.status is shown and call.result == result


def test_a_call_the_user_edited_then_stopped_reads_back_as_cancelled() -> None:
    told = f"{INTERRUPTED} What it printed until then:\nn1\n"
    result = with_edit_note("command", "for i in 1 2; do echo n$i; sleep 9; done", told)
    request = {"message_type": "approval_request_message", "id": "message-1",
               "tool_calls": [{"tool_call_id": "call-1", "name": "Bash",
                               "arguments": '{"command": "sleep 60"}'}]}
    response = {"message_type": "approval_response_message", "id": "message-2",
                "approvals": [{"type": "tool", "tool_call_id": "call-1", "tool_return": result,
                               "status": "error", "stdout": ["n1\n"]}]}
    stored = {"message_type": "tool_return_message", "id": "message-3", "status": "error",
              "tool_call_id": "call-1", "tool_return": result, "stdout": ["n1\n"]}
    for messages in ([request, response], [request, response, stored]):
        transcript = Transcript()
        transcript.load_history([parse_message(message) for message in messages])
        call = transcript.call("call-1")
        assert call is not None and call.status is ToolStatus.CANCELLED


def call_read_back(message_type: str, arguments: str, result: str) -> ToolCallItem:
    """A call (``message_type``) and its ``result``, read from history."""
    transcript = Transcript()
    transcript.load_history([
        parse_message({"message_type": message_type, "id": "message-1",
                       "tool_call": {"tool_call_id": "call-1", "name": "Bash",
                                     "arguments": arguments}}),
        parse_message({"message_type": "tool_return_message", "id": "message-2",
                       "tool_call_id": "call-1", "status": "success", "tool_return": result}),
    ])
    call = transcript.call("call-1")
    assert call is not None
    return call


def test_a_call_read_back_with_an_edit_note_shows_as_it_ran() -> None:
    result = with_edit_note("command", "ls -la; echo hi", "total 0\nhi\nExit code: 0")
    edit = read_edit_note(result)
    assert edit is not None and (edit.argument, edit.value) == ("command", "ls -la; echo hi")
    assert edit.result == "total 0\nhi\nExit code: 0"
    assert read_edit_note("The user edited the command before approving it") is None
    call = call_read_back("approval_request_message", '{"command": "ls", "timeout": 5}', result)
    assert call.edited and call.arguments == {"command": "ls -la; echo hi", "timeout": 5}
    assert call.result == "total 0\nhi\nExit code: 0"


def test_a_result_that_only_looks_like_an_edit_note_changes_nothing() -> None:
    call = call_read_back("tool_call_message", '{"text": "x"}',
                          with_edit_note("command", "rm -rf /", "done"))
    assert not call.edited and call.arguments == {"text": "x"}


def test_a_call_of_the_servers_waits_while_its_step_waits_for_an_approval() -> None:
    """Letta stops the run for the call that needs approval; the other call of the step has
    not run meanwhile (it is not "running"), and never runs if the turn ends without it."""
    def call(kind: str, call_id: str, name: str) -> dict:
        return {"message_type": kind, "id": f"message-{call_id}", "otid": call_id,
                "tool_call": {"tool_call_id": call_id, "name": name, "arguments": "{}"}}

    transcript = Transcript()
    transcript.add_user("mixed")
    transcript.feed_all([parse_message(chunk) for chunk in (
        call("tool_call_message", "server-1", "bash"),
        call("approval_request_message", "local-1", "Bash"),
        {"message_type": "stop_reason", "stop_reason": "requires_approval"})])
    server, local = [item for item in transcript.items if isinstance(item, ToolCallItem)]
    assert (server.status, local.status) == (ToolStatus.WAITING, ToolStatus.AWAITING_APPROVAL)
    transcript.record_decisions({local.tool_call_id: (False, "no")})
    transcript.feed_all([parse_message({"message_type": "stop_reason",
                                        "stop_reason": "end_turn"})])
    assert server.status is ToolStatus.NOT_RUN
