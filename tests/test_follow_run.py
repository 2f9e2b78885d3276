"""Following a run that was going before the chat showed it: its stream is replayed from
the start over a history that already holds its finished parts, and nothing shows twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from openletta.api import messages as m
from openletta.api.sse import parse_sse_text
from openletta.transcript import EventItem, Transcript, UserItem
from openletta.transcript.interruption import INTERRUPTED_EVENT
from openletta.transcript.items import COMPACTION_SUMMARY
from openletta.transcript.shown import part_key

FIXTURES = Path(__file__).parent / "fixtures"
RECORDINGS = ["hello_tokens.sse", "read_tool_tokens.sse", "multi_text_and_approval_tokens.sse",
              "approval_write_file_request_tokens.sse", "tool_error_tokens.sse",
              "bg_replay_from_0.sse"]


def recorded(name: str) -> list[m.Message]:
    return parse_sse_text((FIXTURES / name).read_bytes()).messages


def stored_form(chunks: list[m.Message]) -> list[m.Message]:
    """The chunks as history stores them: one message per part, its deltas joined."""
    merged: dict[str, m.Message] = {}
    for chunk in chunks:
        key = part_key(chunk)
        if key is None:
            continue
        before = merged.get(key)
        if before is None:
            merged[key] = chunk.model_copy(update={"is_delta": False}) if isinstance(
                chunk, m.ToolCallMessage | m.ApprovalRequestMessage) else chunk
        elif isinstance(chunk, m.ReasoningMessage) and isinstance(before, m.ReasoningMessage):
            merged[key] = before.model_copy(update={"reasoning": before.reasoning
                                                    + chunk.reasoning})
        elif isinstance(chunk, m.AssistantMessage) and isinstance(before, m.AssistantMessage):
            merged[key] = before.model_copy(update={"content": before.content + chunk.content})
        elif isinstance(before, m.ToolCallMessage | m.ApprovalRequestMessage):
            assert isinstance(chunk, m.ToolCallMessage | m.ApprovalRequestMessage)
            call = before.tool_calls[0]
            joined = call.model_copy(update={
                "arguments": (call.arguments or "") + (chunk.tool_calls[0].arguments or ""),
                "name": call.name or chunk.tool_calls[0].name})
            merged[key] = before.model_copy(update={"tool_calls": [joined]})
    return list(merged.values())


def part_boundaries(chunks: list[m.Message]) -> list[int]:
    """Positions where one part ends and the next begins (0 and the end included)."""
    keys = [part_key(chunk) for chunk in chunks]
    return [0, *(index for index in range(1, len(chunks)) if keys[index] != keys[index - 1]),
            len(chunks)]


def without_follow_event(transcript: Transcript) -> list[dict]:
    return [item.to_json() for item in transcript.items
            if not isinstance(item, EventItem) and item.kind != "footer"]


@pytest.mark.parametrize("name", RECORDINGS)
def test_a_followed_run_shows_each_part_once_wherever_history_stopped(name: str) -> None:
    chunks = recorded(name)
    live = Transcript()
    live.feed_all(chunks)
    for boundary in part_boundaries(chunks):
        transcript = Transcript()
        transcript.load_history(stored_form(chunks[:boundary]))
        transcript.follow_run("run-1", "Reply in progress when this chat opened")
        transcript.feed_all(chunks)
        assert without_follow_event(transcript) == without_follow_event(live), boundary


def test_following_starts_a_live_turn_under_a_divider() -> None:
    transcript = Transcript(footers=True)
    change = transcript.follow_run("run-7", "Reply in progress when this chat opened")
    assert [item.kind for item in change.added] == ["event"]
    assert transcript.run_id == "run-7"
    change = transcript.feed_all(recorded("hello_tokens.sse"))
    assert transcript.stop_reason == "end_turn"
    assert transcript.items[-1].kind == "footer"


def test_a_new_message_ends_following() -> None:
    """After the followed run, the same parts are not skipped any more (a later run could
    not repeat them, but a reloaded copy of them must not vanish from a new turn)."""
    chunks = recorded("hello_tokens.sse")
    transcript = Transcript()
    transcript.load_history(stored_form(chunks))
    transcript.follow_run("run-1", "following")
    transcript.add_user("again")
    change = transcript.feed(chunks[1])
    assert change.changed or change.added


def test_a_followed_run_counts_from_its_start_and_names_its_prompt_once_stored() -> None:
    now = [100.0]
    transcript = Transcript(footers=True, clock=lambda: now[0])
    transcript.follow_run("run-7", "Reply in progress when this chat opened", started_ago=9.0)
    chunks = recorded("hello_tokens.sse")
    now[0] = 104.0
    transcript.feed_all(chunks)
    footer = transcript.items[-1]
    assert footer.kind == "footer" and footer.duration == 13.0  # 9 s before it was followed
    run_id = next(chunk.run_id for chunk in chunks if getattr(chunk, "run_id", None))
    question = m.UserMessage(message_type="user_message", id="message-q", run_id=run_id,
                             content="hello\n  there")
    stored = [question, *stored_form(chunks)]

    change = transcript.name_followed_prompt(stored)

    divider = transcript.items[0]
    assert isinstance(divider, EventItem) and divider in change.changed
    assert divider.text == "Reply in progress when this chat opened · answering “hello there”"
    kinds = [item.kind for item in transcript.items]
    transcript.load_history(stored)  # a newest page read later: the prompt is not added below
    assert [item.kind for item in transcript.items] == kinds


def run_of(chunks: list[m.Message]) -> str:
    return next(chunk.run_id for chunk in chunks if getattr(chunk, "run_id", None))


def test_a_followed_run_this_client_sent_shows_its_message_as_a_bubble_once() -> None:
    chunks = recorded("hello_tokens.sse")
    run_id = run_of(chunks)
    transcript = Transcript(footers=True)
    change = transcript.follow_run(run_id, "Reply in progress when this chat opened",
                                   prompt="hello there")
    assert [(item.kind, getattr(item, "text", "")) for item in change.added] == [
        ("event", "Reply in progress when this chat opened"), ("user", "hello there")]
    transcript.feed_all(chunks)
    question = m.UserMessage(message_type="user_message", id="message-q", run_id=run_id,
                             otid="otid-q", content="hello there")
    stored = [question, *stored_form(chunks)]
    transcript.name_followed_prompt(stored)
    transcript.load_history(stored)  # the newest page read later: no second bubble
    assert [item.text for item in transcript.items if isinstance(item, UserItem)] == [
        "hello there"]
    assert transcript.items[0].text == "Reply in progress when this chat opened"


def test_a_followed_run_whose_steps_are_shown_names_its_message_on_the_divider() -> None:
    chunks = recorded("multi_text_and_approval_tokens.sse")
    run_id = run_of(chunks)
    transcript = Transcript(footers=True)
    transcript.load_history(stored_form(chunks[:part_boundaries(chunks)[2]]))
    transcript.follow_run(run_id, "Reply in progress when this chat opened", prompt="hi")
    assert not any(isinstance(item, UserItem) for item in transcript.items)
    divider = next(item for item in transcript.items if isinstance(item, EventItem))
    assert divider.text == "Reply in progress when this chat opened · answering “hi”"


def test_every_event_is_titled_in_words_not_by_its_type() -> None:
    titles = {kind: EventItem(key=kind, event_type=kind).title for kind in (
        "following", INTERRUPTED_EVENT, COMPACTION_SUMMARY, "summary", "compaction",
        "event", "heartbeat_sent", "")}
    assert titles == {"following": "Reply already started", INTERRUPTED_EVENT: "Interrupted",
                      COMPACTION_SUMMARY: "Compaction summary", "summary": "Summary",
                      "compaction": "Compaction", "event": "Event",
                      "heartbeat_sent": "Heartbeat sent", "": "Event"}


@pytest.mark.parametrize("otid", ["otid-q", None])
def test_a_followed_run_completed_from_its_stored_messages_keeps_one_bubble(
        otid: str | None) -> None:
    # Before, the stream of a run followed here breaking before the run ended, the turn was
    # completed from the run's stored messages, the user's message among them: it came as a
    # second bubble (under the reply's start) and split the turn in two.
    chunks = recorded("hello_tokens.sse")
    run_id = run_of(chunks)
    transcript = Transcript(footers=True)
    transcript.follow_run(run_id, "Reply in progress when this chat opened",
                          prompt="hello there")
    transcript.feed_all(chunks[:part_boundaries(chunks)[2]])  # the stream breaks here
    question = m.UserMessage(message_type="user_message", id="message-q", run_id=run_id,
                             otid=otid, content="hello there")
    stored = [question, *stored_form(chunks)]

    transcript.complete_run(stored, "end_turn")
    transcript.name_followed_prompt(stored)
    transcript.load_history(stored)  # the newest page read later: no bubble either

    assert [item.text for item in transcript.items if isinstance(item, UserItem)] == [
        "hello there"]
    kinds = [item.kind for item in transcript.items]
    assert kinds[:2] == ["event", "user"] and kinds.count("footer") == 1
    assert kinds[-1] == "footer"
