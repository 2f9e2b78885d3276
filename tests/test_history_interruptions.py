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

from openletta.api.messages import Message, parse_message
from openletta.transcript import EventItem, ToolCallItem, Transcript, TurnFooterItem
from openletta.transcript.interruption import HELD, TOLD, TOLD_AT_QUIT

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
        ("user", ""), ("reasoning", ""), ("tool_call", "cancelled"), ("event", TOLD_AT_QUIT),
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
    transcript.finish_local(call.tool_call_id, "stopped", ok=False, stopped=True)
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
