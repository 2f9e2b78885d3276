"""A reply whose connection breaks, over real HTTP: the session resumes the background run
after its last chunk and the transcript ends as if nothing had happened."""

from __future__ import annotations

import pytest

from openletta.api.resources import Agent
from openletta.api.sse import parse_sse_text
from openletta.chat import replies
from openletta.chat.replies import RECONNECTED, RECONNECTING
from openletta.chat.session import ChatSession
from openletta.transcript import Transcript

RUN = "run-30b9ecfb-3e1f-4ae3-9ac5-d4e3c1a6a0c7"


@pytest.fixture(autouse=True)
def quick_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replies, "RESUME_PAUSES", (0.01,) * 3)


async def test_a_broken_connection_is_resumed_after_the_last_chunk(
        replay_server, replay_client, load_fixture) -> None:
    start = load_fixture("bg_start_tokens_disconnect.sse")
    replay_server.reply_capture("bg_start_tokens_disconnect.sse", ending="abort")
    replay_server.reply_capture("bg_resume_after_seq.sse")
    session = ChatSession(replay_client, Agent(id="agent-1"))
    connection: list[str] = []
    outcome = await session.stream_turn("hello", lambda _change: None, connection.append)
    send, resume = replay_server.requests
    assert send.body["background"] is True
    run_id = parse_sse_text(start).run_id
    assert (resume.path, resume.body["starting_after"]) == (f"/v1/runs/{run_id}/stream", 12)
    assert connection == [RECONNECTING, RECONNECTED]
    assert outcome.stop_reason == "end_turn" and outcome.error is None
    whole = Transcript()
    whole.add_user("hello")
    whole.feed_all(parse_sse_text(load_fixture("bg_replay_from_0.sse")).messages)
    shown = [item.to_json() for item in session.transcript.items if item.kind != "footer"]
    assert shown == [item.to_json() for item in whole.items]


async def test_a_stalled_stream_counts_as_dropped_and_is_resumed(
        replay_server, replay_client, load_fixture, monkeypatch) -> None:
    monkeypatch.setattr("openletta.api.sse.STALL_TIMEOUT", 0.3)
    replay_server.reply_capture("bg_start_tokens_disconnect.sse", ending="stall")
    replay_server.reply_capture("bg_resume_after_seq.sse")
    session = ChatSession(replay_client, Agent(id="agent-1"))
    outcome = await session.stream_turn("hello", lambda _change: None)
    assert outcome.stop_reason == "end_turn"
    assert len(replay_server.requests) == 2
