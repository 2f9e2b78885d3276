"""A turn the user interrupted while its local call ran reads back from history as it showed
live: with its Interrupted mark, and without a duration the server did not record.

Captured from Letta 0.16.8 (``history_interrupts_told_next_and_at_quit.json``): ``local
sleep``, approved, Esc while it ran, then ``hello after`` (the call's result went with it);
``local mixed`` (a local Bash and a server bash in one step); ``local sleep`` again, Esc,
then Ctrl+Q (the result went alone and the agent answered it).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from openletta.api.answers import INTERRUPTED, reports_interruption
from openletta.api.messages import Message, parse_message
from openletta.transcript import EventItem, ToolCallItem, ToolStatus, Transcript, TurnFooterItem
from openletta.transcript.edits import with_edit_note
from openletta.transcript.interruption import HELD, TOLD, TOLD_AT_ONCE

FIXTURES = Path(__file__).parent / "fixtures"


def captured() -> list[Message]:
    return [parse_message(entry) for entry in json.loads(
        (FIXTURES / "history_interrupts_told_next_and_at_quit.json").read_text())]


def shown(transcript: Transcript) -> list[tuple[str, str]]:
    """Each item's kind, with the text of events and the status of calls."""
    return [(item.kind, item.text if isinstance(item, EventItem) else
             str(item.status) if isinstance(item, ToolCallItem) else "")
            for item in transcript.items]


def read(messages: list[Message]) -> Transcript:
    transcript = Transcript(footers=True)
    transcript.load_history(messages)
    return transcript


def test_a_turn_interrupted_then_told_with_the_next_message_keeps_its_mark() -> None:
    transcript = read(captured()[:8])  # `local sleep` and `hello after`
    assert shown(transcript) == [
        ("user", ""), ("reasoning", ""), ("tool_call", "cancelled"), ("event", TOLD),
        ("footer", ""),
        ("user", ""), ("reasoning", ""), ("assistant", ""), ("footer", ""),
    ]


def test_an_interrupted_turn_read_from_history_has_no_duration_it_cannot_know() -> None:
    # The server dates the call's result when the next message went, under that message's
    # run; the turn's own messages all fall in the second it began. Neither is its length.
    interrupted, after = (item for item in read(captured()[:8]).items
                          if isinstance(item, TurnFooterItem))
    assert interrupted.duration is None and interrupted.steps == 1
    assert interrupted.date is not None and interrupted.date.second == 57
    assert after.duration is not None


def test_a_turn_interrupted_as_the_user_quit_says_so_and_ends_with_the_agents_answer() -> None:
    transcript = read(captured()[15:])  # the second `local sleep`, then Ctrl+Q
    assert shown(transcript) == [
        ("user", ""), ("reasoning", ""), ("tool_call", "cancelled"), ("event", TOLD_AT_ONCE),
        ("reasoning", ""), ("assistant", ""), ("footer", ""),
    ]
    footer = transcript.items[-1]
    assert isinstance(footer, TurnFooterItem)
    assert footer.duration == 10.0  # from the message to the agent's answer, both stored


def test_a_turn_interrupted_live_gets_no_second_mark_when_history_is_read_again() -> None:
    messages = captured()
    transcript = read(messages[:3])  # the chat opened at the approval request
    (call,) = transcript.pending_approvals
    transcript.record_decisions({call.tool_call_id: (True, None)})
    transcript.start_local(call.tool_call_id)
    transcript.finish_local(call.tool_call_id, INTERRUPTED, ok=False)
    transcript.end_stream("interrupted", HELD)
    transcript.add_user("hello after")
    transcript.load_history(messages[:8])
    marks = [item for item in transcript.items
             if isinstance(item, EventItem) and item.event_type == "interrupted"]
    assert [mark.text for mark in marks] == [HELD]


def test_the_mark_follows_its_call_when_the_call_is_on_an_older_page() -> None:
    messages = captured()[:8]
    transcript = read(messages[3:])  # the page boundary falls after the request
    transcript.prepend_history(messages[:3])
    assert shown(transcript)[:5] == [
        ("user", ""), ("reasoning", ""), ("tool_call", "cancelled"), ("event", TOLD),
        ("footer", ""),
    ]


# --- the rule that tells a stopped call's result, live and in history ----------------------

#: What may come before the note: nothing, the note that the user edited the command, or any
#: lines; and after it: anything (what the call printed before it was stopped, say).
PREFIXES = st.one_of(
    st.just(""),
    st.text(st.characters(blacklist_characters="\n\r"), max_size=40).map(
        lambda command: with_edit_note("command", command, "")),
    st.text(max_size=60).map(lambda text: text + "\n"))
SUFFIXES = st.one_of(st.just(""), st.text(max_size=60),
                     st.lists(st.text("n0123456789", min_size=1), max_size=5).map(
                         lambda lines: "\n\n" + "\n".join(lines)))


def with_result(messages: list[Message], result: str) -> list[Message]:
    """``messages`` with every result of the stopped call replaced by ``result``."""
    raw = json.loads((FIXTURES / "history_interrupts_told_next_and_at_quit.json").read_text())
    for entry in raw:
        if entry["message_type"] == "tool_return_message":
            entry["tool_return"] = result
            for each in entry["tool_returns"]:
                each["tool_return"] = result
        for each in entry.get("approvals") or []:
            if each.get("type") == "tool":
                each["tool_return"] = result
    return [parse_message(entry) for entry in raw[:len(messages)]]


def live_status(result: str) -> ToolStatus:
    """How a local call shows live once it ends with ``result`` (not ok)."""
    transcript = read(captured()[:3])  # the chat opened at the approval request
    (call,) = transcript.pending_approvals
    transcript.record_decisions({call.tool_call_id: (True, None)})
    transcript.start_local(call.tool_call_id)
    transcript.finish_local(call.tool_call_id, result, ok=False)
    return call.status


@given(PREFIXES, SUFFIXES)
def test_a_stopped_call_shows_cancelled_live_and_in_history_whatever_its_result_adds(
        prefix: str, suffix: str) -> None:
    result = prefix + INTERRUPTED + suffix
    assert reports_interruption(result)
    assert live_status(result) is ToolStatus.CANCELLED
    transcript = read(with_result(captured()[:8], result))
    assert shown(transcript)[:4] == [
        ("user", ""), ("reasoning", ""), ("tool_call", "cancelled"), ("event", TOLD)]
    footer = transcript.items[4]
    assert isinstance(footer, TurnFooterItem) and footer.duration is None


def test_a_call_edited_then_stopped_reads_back_as_it_showed_live() -> None:
    result = with_edit_note("command", "for i in $(seq 1 30); do echo n$i; sleep 0.3; done",
                            INTERRUPTED + "\n\nn1\nn2\nn3")
    transcript = read(with_result(captured()[:8], result))
    call = next(item for item in transcript.items if isinstance(item, ToolCallItem))
    assert call.status is ToolStatus.CANCELLED and call.edited
    assert shown(transcript)[3] == ("event", TOLD)


@given(st.text(max_size=80))
def test_a_failed_call_that_does_not_say_it_was_stopped_stays_an_error(text: str) -> None:
    result = text.replace(INTERRUPTED[:11], "")  # (no line can begin with the note)
    assert not reports_interruption(result)
    assert live_status(result) is ToolStatus.ERROR
    assert shown(read(with_result(captured()[:8], result)))[2] == ("tool_call", "error")


def test_the_note_inside_a_line_of_output_is_not_taken_for_it() -> None:
    assert not reports_interruption(f"echo '{INTERRUPTED}'\nexit 1")
