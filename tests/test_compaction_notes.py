"""Every note Letta 0.16.8 stores for a compaction shows as a "Compaction summary", live and in
history, holding just the summary (the wordings are ``package_summarize_message*`` in
``letta/system.py``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openletta.api.messages import parse_message
from openletta.transcript import EventItem, SystemItem, Transcript
from openletta.transcript.items import COMPACTION_SUMMARY
from openletta.transcript.packed import compaction_summary

SUMMARY = "The user said hello: twice.\nThe agent answered: once."
#: Letta 0.16.8's wordings, each around ``{summary}``.
WORDINGS = {
    "all or self, and the fallback when sliding-window fails":
        "Note: prior messages have been hidden from view due to conversation memory "
        "constraints.\nThe following is a summary of the previous messages:\n {summary}",
    "sliding-window":
        "Note: prior messages from the beginning of the conversation have been hidden from "
        "view due to conversation memory constraints.\nThe following is a summary of the "
        "previous messages:\n {summary}",
    "sliding-window with its figures":
        "Note: 12 messages from the beginning of the conversation have been hidden from view "
        "due to memory constraints.\nThe following is a summary of the previous messages:\n "
        "{summary}",
    "counted":
        "Note: prior messages (12 of 20 total messages) have been hidden from view due to "
        "conversation memory constraints.\nThe following is a summary of the previous 8 "
        "messages:\n {summary}",
}


def stored(note: str, packet_type: str = "system_alert") -> dict:
    """The user message the server keeps for ``note``."""
    return {"message_type": "user_message", "id": "message-note", "otid": "otid-note",
            "date": "2026-11-27T10:00:00+00:00",
            "content": json.dumps({"type": packet_type, "message": note,
                                   "time": "2026-11-27 10:00:00 AM UTC+0000"})}


def shown(row: dict, *, live: bool) -> object:
    """The item the transcript shows for ``row``, streamed (``live``) or read from history."""
    transcript = Transcript()
    if live:
        transcript.feed(parse_message(row))
    else:
        transcript.load_history([parse_message(row)])
    return transcript.items[-1]


@pytest.mark.parametrize("live", [True, False], ids=["live", "history"])
@pytest.mark.parametrize("wording", WORDINGS.values(), ids=WORDINGS.keys())
def test_each_wording_shows_as_a_compaction_summary(wording: str, live: bool) -> None:
    item = shown(stored(wording.format(summary=SUMMARY)), live=live)
    assert isinstance(item, EventItem) and item.event_type == COMPACTION_SUMMARY
    assert item.text == SUMMARY


@given(summary=st.text(min_size=1).filter(str.strip),
       wording=st.sampled_from(sorted(WORDINGS.values())))
def test_the_summary_is_kept_whole_whatever_it_holds(summary: str, wording: str) -> None:
    assert compaction_summary("system_alert", wording.format(summary=summary)) == summary.strip()


@pytest.mark.parametrize("note", [
    "Note: 12 prior messages with the user have been hidden from view due to conversation "
    "memory constraints. Older messages are stored in Recall Memory and can be viewed using "
    "functions.",  # a compaction without a summary
    "The following is a summary of the previous",  # no sentence, no summary
])
def test_other_notes_stay_system_notes(note: str) -> None:
    assert isinstance(shown(stored(note), live=False), SystemItem)


def test_only_a_system_alert_holds_a_summary() -> None:
    note = WORDINGS["counted"].format(summary=SUMMARY)
    assert isinstance(shown(stored(note, "heartbeat"), live=False), SystemItem)
    assert compaction_summary("user_message", note) is None
