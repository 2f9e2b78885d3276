"""SSE reading: the offline parser on captures and edge cases, and :class:`MessageStream`
over real HTTP from the loopback replay server (chunked, cut, stalled, cancelled)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

import httpx
import pytest

from openletta.api.errors import PendingApprovalError, ServerError, StreamDroppedError
from openletta.api.messages import (
    AssistantMessage,
    ErrorMessage,
    Ping,
    ReasoningMessage,
    StopReason,
    UnknownMessage,
    UsageStatistics,
)
from openletta.api.sse import MessageStream, parse_sse_file, parse_sse_text
from openletta.transcript import Transcript

RUN = "run-830b8006-d83e-451a-bc6f-8e1451ea42cc"
HELLO_RUN = "run-6a61b273-2373-436a-ba4f-78c62f635479"
STOP = 'data: {"message_type":"stop_reason","stop_reason":"end_turn"}\n\n'
PING = 'data: {"message_type":"ping","id":"ping-1","run_id":"run-1","seq_id":null}\n\n'
TEXT = ('data: {"message_type":"assistant_message","id":"message-1","otid":"o1",'
        '"run_id":"run-1","content":"%s"}\n\n')
ERROR_EVENT = 'event: error\ndata: {"message_type":"error_message","run_id":"run-1",' \
              '"error_type":"internal_error","message":"Boom."}\n\n'


def kinds(messages) -> list[str]:
    return [message.message_type for message in messages]


# --- offline parser ---------------------------------------------------------------------


def test_a_plain_reply(fixture_path) -> None:
    result = parse_sse_file(fixture_path("hello_tokens.sse"))
    assert result.ended == "done" and result.stop_reason == "end_turn"
    assert result.run_id == HELLO_RUN
    assert kinds(result.messages) == (["ping"] + ["reasoning_message"] * 9
                                      + ["assistant_message"] * 11
                                      + ["stop_reason", "usage_statistics"])
    assert result.last_seq_id is None  # foreground chunks carry no seq_id
    assert result.error is None


def test_error_shape_1_stop_reason_error_then_done(load_fixture) -> None:
    result = parse_sse_text(load_fixture("llm_error_tokens.sse"))
    assert kinds(result.messages) == ["ping", "stop_reason", "error_message"]
    error = result.messages[-1]
    assert isinstance(error, ErrorMessage)
    assert (error.error_type, error.message) == ("llm_error",
                                                 "An error occurred with the LLM request.")
    assert error.detail.startswith("INTERNAL_SERVER_ERROR: OpenAI API error")
    assert result.ended == "done" and result.stop_reason == "llm_api_error"
    assert isinstance(result.error, ServerError) and result.error.error_type == "llm_error"


def test_an_error_is_terminal_without_done() -> None:
    result = parse_sse_text(PING + ERROR_EVENT + TEXT % "late" + STOP)
    assert kinds(result.messages) == ["ping", "error_message"]
    assert result.ended == "error" and result.stop_reason is None
    assert result.messages[-1].message == "Boom."


def test_error_shape_2_server_level_exception() -> None:
    text = TEXT % "Hel" + 'event: error\ndata: {"error": "boom: db gone", ' \
                          '"code": "INTERNAL_SERVER_ERROR"}\n\n'
    result = parse_sse_text(text)
    assert kinds(result.messages) == ["assistant_message", "error_message"]
    error = result.messages[-1]
    assert (error.error_type, error.message) == ("internal_server_error", "boom: db gone")
    assert result.ended == "error"


@pytest.mark.parametrize(("data", "message", "detail"), [
    ('{"unexpected": 1}', "The server reported an error.", '{"unexpected": 1}'),
    ("not json at all", "not json at all", None),
    ("", "The server reported an error.", None),
    ('{"message": 5}', "The server reported an error.", '{"message": 5}'),
])
def test_error_shape_3_anything_else(data: str, message: str, detail: str | None) -> None:
    result = parse_sse_text(f"event: error\ndata: {data}\n\ndata: [DONE]\n\n")
    assert [type(m) for m in result.messages] == [ErrorMessage]
    assert (result.messages[0].message, result.messages[0].detail) == (message, detail)
    assert result.ended == "done"


def test_the_pending_approval_conflict_in_stream(load_fixture) -> None:
    result = parse_sse_text(load_fixture("approval_pending_then_user_message.sse"))
    assert isinstance(result.error, PendingApprovalError)
    assert result.run_id == "run-06d7f298-2e57-40a3-90b4-a83ddc5557ee"


def test_cancelled_stop_reason_ends_without_done(load_fixture) -> None:
    result = parse_sse_text(load_fixture("cancel_fg_stream_tokens.sse"))
    assert result.ended == "stop_reason" and result.stop_reason == "cancelled"
    assert kinds(result.messages)[-1] == "stop_reason"


def test_cancelled_event_ends_and_reports_a_stop_reason() -> None:
    text = TEXT % "Hel" + 'event: cancelled\ndata: {"message": "Run was cancelled"}\n\n' \
        + TEXT % "lo"
    result = parse_sse_text(text)
    assert kinds(result.messages) == ["assistant_message", "stop_reason"]
    assert result.messages[-1].stop_reason == "cancelled"
    assert result.ended == "cancelled" and result.stop_reason == "cancelled"


def test_the_tail_after_a_stop_reason_is_read(load_fixture) -> None:
    result = parse_sse_text(load_fixture("read_tool_steps.sse"))
    assert kinds(result.messages)[-2:] == ["stop_reason", "usage_statistics"]
    assert isinstance(result.messages[-1], UsageStatistics)
    assert result.messages[-1].step_count == 2


def test_a_dropped_stream_keeps_what_arrived_and_the_resume_cursor(load_fixture) -> None:
    result = parse_sse_text(load_fixture("bg_start_tokens_disconnect.sse"))
    assert result.ended is None and result.stop_reason is None
    assert len(result.messages) == 12
    assert (result.run_id, result.last_seq_id) == (RUN, 12)
    assert [m.seq_id for m in result.messages] == list(range(1, 13))


def test_a_replay_from_the_start_adds_only_what_was_not_seen(load_fixture) -> None:
    """Seq ids are de-duplicated in one place, the transcript: a resume that replays from an
    earlier chunk gives the same transcript as one that starts after the last seen."""
    first = parse_sse_text(load_fixture("bg_start_tokens_disconnect.sse"))
    replayed = parse_sse_text(load_fixture("bg_replay_from_0.sse"), starting_after=12)
    resumed = parse_sse_text(load_fixture("bg_resume_after_seq.sse"))
    assert replayed.messages[0].seq_id == 1 and resumed.messages[0].seq_id == 13
    assert replayed.last_seq_id == resumed.last_seq_id == 45
    transcripts = []
    for rest in (replayed, resumed):
        transcript = Transcript()
        transcript.feed_all(first.messages)
        transcript.feed_all(rest.messages)
        transcripts.append([item.to_json() for item in transcript.items])
    assert transcripts[0] == transcripts[1]
    assert replayed.ended == "done"


def test_resume_with_nothing_new_keeps_the_cursor() -> None:
    result = parse_sse_text('data: {"message_type":"ping","seq_id":2}\n\n', starting_after=3)
    assert result.last_seq_id == 3


def test_a_malformed_line_is_reported_and_skipped(load_fixture, caplog) -> None:
    text = load_fixture("hello_steps.sse").decode()
    broken = text.replace("\n\n", '\n\ndata: {"message_type": "assistant_mes\n\n', 1)
    with caplog.at_level(logging.WARNING, logger="openletta.api.sse"):
        result = parse_sse_text(broken)
    malformed = result.messages[1]
    assert isinstance(malformed, UnknownMessage) and malformed.message_type == "malformed"
    assert malformed.raw["data"] == '{"message_type": "assistant_mes'
    assert "Unterminated string" in malformed.raw["error"]
    assert "malformed SSE data line" in caplog.text
    assert kinds(result.messages) == ["ping", "malformed", "reasoning_message",
                                      "assistant_message", "stop_reason", "usage_statistics"]
    assert result.ended == "done"


def test_a_last_event_without_its_blank_line_still_counts() -> None:
    result = parse_sse_text(STOP + "data: [DONE]")
    assert result.ended == "done"


def test_unknown_types_and_extra_fields_pass_through() -> None:
    result = parse_sse_text('data: {"message_type":"response_state","x":1}\n\n' + STOP)
    assert isinstance(result.messages[0], UnknownMessage)
    assert result.messages[0].raw == {"message_type": "response_state", "x": 1}


# --- live streams over HTTP -------------------------------------------------------------


@pytest.fixture
async def http(replay_server) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=replay_server.base_url,
                                 timeout=httpx.Timeout(5.0, read=1.0)) as client:
        yield client


def open_stream(http: httpx.AsyncClient, **options) -> MessageStream:
    async def open_response() -> httpx.Response:
        return await http.send(http.build_request("POST", "/stream"), stream=True)

    return MessageStream(open_response, **options)


async def collect(stream: MessageStream) -> list:
    return [message async for message in stream]


@pytest.mark.parametrize("chunk_size", [None, 1, 7, 4096])
async def test_live_stream_matches_the_offline_parse(replay_server, http, load_fixture,
                                                     chunk_size) -> None:
    replay_server.reply_capture("read_tool_tokens.sse", chunk_size=chunk_size)
    async with open_stream(http) as stream:
        messages = await collect(stream)
    expected = parse_sse_text(load_fixture("read_tool_tokens.sse"))
    assert messages == expected.messages
    assert (stream.ended, stream.stop_reason, stream.run_id) == ("done", "end_turn",
                                                                  expected.run_id)
    assert stream.closed


async def test_live_stream_cut_cleanly_raises_dropped_after_yielding(
        replay_server, http, load_fixture) -> None:
    body = load_fixture("bg_replay_from_0.sse")
    cut = body.index(b'"seq_id":8,')  # in the middle of event 8
    replay_server.reply_capture("bg_replay_from_0.sse", cut_after=cut)
    received = []
    stream = open_stream(http)
    with pytest.raises(StreamDroppedError) as raised:
        async with stream:
            async for message in stream:
                received.append(message)
    assert [m.seq_id for m in received] == list(range(1, 8))
    assert (raised.value.run_id, raised.value.last_seq_id) == (RUN, 7)
    assert (stream.run_id, stream.last_seq_id, stream.ended) == (RUN, 7, None)
    assert "the connection closed" in raised.value.message
    assert stream.closed


async def test_live_stream_aborted_mid_body_raises_dropped(replay_server, http) -> None:
    replay_server.reply_sse(PING + TEXT % "Hel" + TEXT % "lo", ending="abort")
    received = []
    with pytest.raises(StreamDroppedError, match="the connection broke"):
        async with open_stream(http) as stream:
            async for message in stream:
                received.append(message)
    assert kinds(received) == ["ping", "assistant_message", "assistant_message"]


async def test_live_stream_silent_before_the_end_times_out_as_dropped(replay_server,
                                                                      http) -> None:
    replay_server.reply_sse(PING + TEXT % "Hel", ending="stall")
    with pytest.raises(StreamDroppedError, match="no data arrived in time") as raised:
        async with open_stream(http) as stream:
            await collect(stream)
    assert raised.value.run_id == "run-1"
    await asyncio.wait_for(replay_server.client_left.wait(), 2)


@pytest.mark.parametrize(("tail", "ended"), [(STOP, "stop_reason"), (ERROR_EVENT, "error"),
                                             (STOP + ERROR_EVENT, "error")])
async def test_after_a_stop_reason_or_error_a_silent_server_is_not_awaited(
        replay_server, http, tail: str, ended: str) -> None:
    replay_server.reply_sse(PING + tail, ending="stall")
    async with open_stream(http, drain_timeout=0.1) as stream:
        messages = await asyncio.wait_for(collect(stream), 2)
    assert stream.ended == ended
    assert isinstance(messages[-1], StopReason | ErrorMessage)
    await asyncio.wait_for(replay_server.client_left.wait(), 2)


async def test_cancelling_the_reader_closes_the_response(replay_server, http) -> None:
    replay_server.reply_sse(PING + TEXT % "Hel", ending="stall")
    stream = open_stream(http)
    first = asyncio.Event()

    async def read() -> None:
        async with stream:
            async for _ in stream:
                first.set()

    task = asyncio.create_task(read())
    await asyncio.wait_for(first.wait(), 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stream.closed
    await asyncio.wait_for(replay_server.client_left.wait(), 2)


async def test_aclose_mid_stream_stops_iteration(replay_server, http) -> None:
    replay_server.reply_sse(PING + TEXT % "Hel" + TEXT % "lo", ending="stall")
    stream = open_stream(http)
    async with stream:
        first = await anext(stream)
        await stream.aclose()
        rest = await collect(stream)
    assert isinstance(first, Ping) and rest == []
    await asyncio.wait_for(replay_server.client_left.wait(), 2)


async def test_iterating_without_async_with_opens_and_closes(replay_server, http) -> None:
    replay_server.reply_capture("hello_steps.sse")
    stream = open_stream(http)
    messages = await collect(stream)
    assert [type(m) for m in messages] == [Ping, ReasoningMessage, AssistantMessage,
                                           StopReason, UsageStatistics]
    assert stream.closed


async def test_a_live_replay_moves_the_cursor_to_its_newest_chunk(replay_server, http) -> None:
    replay_server.reply_capture("bg_replay_from_0.sse", chunk_size=50)
    async with open_stream(http, starting_after=40) as stream:
        messages = await collect(stream)
    assert [m.seq_id for m in messages if getattr(m, "seq_id", None)] == list(range(1, 46))
    assert stream.last_seq_id == 45


def test_the_capture_payloads_are_compact_json_except_the_cancel(load_fixture) -> None:
    # Guard the fixture assumption the cancel test relies on (spaces after ':').
    last = load_fixture("cancel_fg_stream_tokens.sse").decode().strip().splitlines()[-1]
    assert json.loads(last.removeprefix("data: ")) == {"message_type": "stop_reason",
                                                       "stop_reason": "cancelled"}
