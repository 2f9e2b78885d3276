"""The shortcuts of the stream's hot path read exactly what the general readers read.

A stream's chunks are read by three fast paths: the SSE events of a recorded body are split
by hand (:func:`~openletta.api.sse.parse_sse_text`), JSON text is decoded by pydantic's
decoder (:func:`~openletta.api.json_text.loads`) and a known chunk is validated straight from
its text (:func:`~openletta.api.messages.parse_known_json`); a batch of chunks is fed into
one change (:meth:`~openletta.transcript.Transcript.feed_all`). Each is checked here against
the way it replaces, on the captures and on hostile input.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import EventSource
from hypothesis import example, given, settings
from hypothesis import strategies as st

from openletta.api import json_text, sse
from openletta.api.json_text import JSONTextError
from openletta.api.messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    LettaMessage,
    Message,
    parse_known_json,
    parse_message,
)
from openletta.api.sse import SSE_CONTENT_TYPE, parse_sse_text
from openletta.transcript import Item, Transcript

FIXTURES = Path(__file__).parent / "fixtures"
CAPTURES = sorted(path.name for path in FIXTURES.glob("*.sse"))
MANY = settings(max_examples=400, deadline=None)


# --- JSON ------------------------------------------------------------------------------------

JSON_PIECES = st.sampled_from([
    "{", "}", "[", "]", ",", ":", '"a"', '"', "\\", "1", "-0", "1.5e3", "1e400", "NaN",
    "Infinity", "true", "null", "nul", " ", "\n", "\x00", "\\u00e9", "\\ud83d", "\\ude00",
    "\\udfff", "\ud800", "\u2028", "é", "\ufeff", "9" * 4301,
])


def same_value(one: Any, other: Any) -> bool:
    """Equal, with NaN equal to NaN and the types compared too (``1 == 1.0 == True``)."""
    if type(one) is not type(other):
        return False
    if isinstance(one, float) and math.isnan(one):
        return math.isnan(other)
    if isinstance(one, list):
        return len(one) == len(other) and all(map(same_value, one, other))
    if isinstance(one, dict):
        return list(one) == list(other) and all(same_value(one[key], other[key]) for key in one)
    return bool(one == other)


def decoded(decode: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", decode(text)
    except JSONTextError as error:
        return "error", str(error)


@MANY
@given(st.lists(JSON_PIECES, max_size=14).map("".join))
def test_loads_gives_what_pythons_decoder_gives_and_the_same_errors(text: str) -> None:
    fast, python = decoded(json_text.loads, text), decoded(json_text._python_loads, text)
    if json_text.too_deep(text):
        assert fast[0] == "error"
    elif fast[0] == "value" and python[0] == "value":
        assert same_value(fast[1], python[1])
    else:
        assert fast == python


# --- known messages straight from their text ---------------------------------------------------

TEXT = st.text(max_size=8) | st.sampled_from(["\ud800", "x\udfffy", "2026-11-22T09:54:53Z"])
ODD = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**70) | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6)
FIELDS = ["id", "date", "name", "otid", "step_id", "run_id", "seq_id", "is_err", "content",
          "reasoning", "source", "signature", "state", "hidden_reasoning", "tool_calls",
          "tool_call", "tool_returns", "tool_return", "tool_call_id", "status", "stdout",
          "approvals", "approval_request_id", "approve", "summary", "event_type",
          "event_data", "stop_reason", "prompt_tokens", "total_tokens", "message", "extra"]
PART = st.fixed_dictionaries({"type": st.sampled_from(["text", "image"]), "text": ODD})
CALL = st.fixed_dictionaries({}, optional={
    "tool_call_id": ODD, "id": ODD, "name": ODD, "tool_name": ODD, "arguments": ODD})
OFFSETS = st.none() | st.just(UTC) | st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23)))
ISO_DATE = st.datetimes(timezones=OFFSETS).map(datetime.isoformat)
DATE_TEXT = ISO_DATE | ISO_DATE.map(lambda text: text.replace("+00:00", "Z")) | st.sampled_from([
    "2026-11-22", "2026-11-22T09:54:53.1234567+00:00", "2026-11-22T24:00:00Z",
    " 2026-11-22T09:54:53Z", "2026-11-22t09:54:53z", "2026-11-22T09:54:53+0000",
    "2026-11-22T09:54:53-00:00", "20261122T095453Z", "2026-11-22T09:54Z",
    "2026-11-22T09:54:60Z", "2026-11-22 09:54:53+00:00", "0001-01-01T00:00:00+00:00",
    "9999-12-31T23:59:59.999999+00:00", "2026-11-22T09:54:53+00:00:30"])
PLAUSIBLE = {"content": st.lists(PART | TEXT, max_size=3), "tool_calls": st.lists(CALL) | CALL,
             "tool_call": CALL, "seq_id": st.integers(0, 10),
             "date": st.just(1.7e9) | DATE_TEXT}


@st.composite
def chunks(draw: st.DrawFn) -> str:
    """The JSON text of a chunk: a known type (or not) and any fields, of any type."""
    data: dict[str, Any] = {"message_type": draw(
        st.sampled_from([*MESSAGE_TYPES, "error_message", "mystery"]) | TEXT)}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=6)):
        data[name] = draw(PLAUSIBLE.get(name, ODD) | ODD)
    return json.dumps(data) if draw(st.booleans()) else json.dumps(data, ensure_ascii=False)


@MANY
@given(chunks())
def test_a_known_chunk_read_from_its_text_is_what_parse_message_gives(text: str) -> None:
    try:
        general: Message | None = parse_message(json_text.loads(text))
    except JSONTextError:
        general = None
    fast = parse_known_json(text)
    if fast is not None:
        assert general is not None and general.message_type != "error_message"
        assert type(fast) is type(general) and fast == general
        assert fast.model_fields_set == general.model_fields_set
        assert offsets_of_dates(fast) == offsets_of_dates(general)  # UTC, not only equal


def offsets_of_dates(message: Message) -> dict[str, object]:
    """The UTC offset of each date of ``message`` (equal dates may differ in offset), its
    ``date`` (read when asked for) included."""
    dates = {name: value for name, value in message.__dict__.items()
             if isinstance(value, datetime)}
    if isinstance(message, LettaMessage):
        dates["date"] = message.date
    return {name: value and value.utcoffset() for name, value in dates.items()}


CHUNK = {"message_type": "assistant_message", "id": "m", "otid": "o", "seq_id": 3,
         "date": "2026-11-22T09:54:53+00:00", "content": "Hi", "sender_id": None}


def test_an_ordinary_chunk_takes_the_fast_path() -> None:
    fast = parse_known_json(json.dumps(CHUNK))
    assert isinstance(fast, AssistantMessage) and fast == parse_message(CHUNK)


@pytest.mark.parametrize(("sent", "fast"), [
    ({"reasoning": "Thinking", "content": "ignored"}, True),
    ({"content": "Thinking"}, False),  # the prototype's shape: its validator reads it
    ({"reasoning": None, "content": [{"type": "text", "text": "Thinking"}]}, False),
])
def test_a_thought_skips_its_validator_only_when_it_sends_its_text(sent: dict, fast: bool
                                                                   ) -> None:
    chunk = {**CHUNK, "message_type": "reasoning_message", **sent}
    assert (parse_known_json(json.dumps(chunk)) is not None) is fast
    assert parse_message(chunk).reasoning == "Thinking"  # type: ignore[union-attr]
    if fast:
        assert parse_known_json(json.dumps(chunk)) == parse_message(chunk)


@MANY
@given(DATE_TEXT)
@example("2026-11-22T11:54:53+02:00")
@example("2026-11-22t09:54:53z")  # RFC 3339 allows lower case
def test_a_chunks_date_read_from_its_text_is_the_same_moment_in_utc(date: str) -> None:
    chunk = {**CHUNK, "date": date}
    fast, general = parse_known_json(json.dumps(chunk)), parse_message(chunk)
    assert isinstance(general, AssistantMessage)
    if fast is not None:
        assert fast == general and offsets_of_dates(fast) == offsets_of_dates(general)


@pytest.mark.parametrize("change", [
    {"seq_id": "3"}, {"name": ["x"]}, {"message_type": "error_message"},
    {"message_type": "mystery"}, {"content": "\ud800"},
    {"x": json.loads("[" * (json_text.MAX_DEPTH + 1) + "]" * (json_text.MAX_DEPTH + 1))},
])
def test_a_chunk_only_the_general_path_reads_right_is_left_to_it(change: dict) -> None:
    assert parse_known_json(json.dumps({**CHUNK, **change})) is None


# --- recorded SSE bodies -----------------------------------------------------------------------

SSE_PIECES = st.sampled_from([
    "data", "event", "id", "retry", ":", " ", "\n", "\r", "\r\n", "\n\n", "x", "5", " 7 ",
    "\x00", "error", "cancelled", "\u2028", "\x85", "é", "\ud800", "\ufeff", "data: {}",
    "data:[DONE]",
])


def events_of_a_response(body: str | bytes) -> list[tuple[str, str]]:
    """The events :class:`EventSource` reads from a response with ``body``, as the offline
    parser read them before it split bodies itself."""
    raw = body if isinstance(body, bytes) else body.encode("utf-8", "replace")
    if not raw.endswith(b"\n\n"):
        raw += b"\n\n"
    response = httpx.Response(200, headers={"content-type": SSE_CONTENT_TYPE}, content=raw)
    return [(event.event, event.data) for event in EventSource(response).iter_sse()]


@MANY
@given(st.lists(SSE_PIECES, max_size=16).map("".join), st.booleans())
@example("id: 1\n\n\n\ndata: x\n\n", False)  # the last id is kept: empty events
@example("id: a\x00\n\nretry: 5\n\nretry: x\n\n", False)
@example("data:x\r\ndata: y\rdata\n: note\nevent: error\n\nevent\n\n", True)
def test_a_body_splits_into_the_events_a_response_gives(body: str, as_bytes: bool) -> None:
    given_body = body.encode("utf-8", "surrogatepass") + b"\xff" if as_bytes else body
    assert list(sse.recorded_events(given_body)) == events_of_a_response(given_body)


@pytest.mark.parametrize("capture", CAPTURES)
def test_every_capture_reads_the_same_without_the_fast_paths(
        capture: str, monkeypatch: pytest.MonkeyPatch) -> None:
    body = (FIXTURES / capture).read_bytes()
    fast = parse_sse_text(body)
    monkeypatch.setattr(sse, "parse_known_json", lambda text: None)
    monkeypatch.setattr(sse, "recorded_events", events_of_a_response)
    general = parse_sse_text(body)
    assert [type(message) for message in fast.messages] == [
        type(message) for message in general.messages]
    assert fast.messages == general.messages
    assert (fast.ended, fast.stop_reason, fast.run_id, fast.last_seq_id, repr(fast.error)) == (
        general.ended, general.stop_reason, general.run_id, general.last_seq_id,
        repr(general.error))


# --- a batch of chunks -------------------------------------------------------------------------


@pytest.mark.parametrize("capture", CAPTURES)
def test_feeding_a_batch_reports_what_feeding_one_at_a_time_reports(capture: str) -> None:
    messages = parse_sse_text((FIXTURES / capture).read_bytes()).messages
    batch = Transcript().feed_all(messages)
    added: list[Item] = []
    changed: list[Item] = []
    one_at_a_time = Transcript()
    for message in messages:
        change = one_at_a_time.feed(message)
        added += change.added
        changed += [item for item in change.changed if item not in added + changed]
    assert [item.key for item in batch.added] == [item.key for item in added]
    assert [item.key for item in batch.changed] == [item.key for item in changed]
    assert batch.removed == batch.prepended == []


BUILT_ON_IMPORT = """
import openletta.ui.app
from openletta.api.wire import WireModel

def kinds(base):
    for kind in base.__subclasses__():
        yield kind
        yield from kinds(kind)

print(sorted(kind.__name__ for kind in kinds(WireModel) if kind.__pydantic_complete__))
"""


def test_launching_builds_no_server_model_validator_before_it_is_used() -> None:
    """Building pydantic's validators of some forty models costs a tenth of a second of
    launch: each is built when first used, and the stream's fast path with them."""
    done = subprocess.run([sys.executable, "-c", BUILT_ON_IMPORT], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert AssistantMessage.model_validate({"content": "hi"}).content == "hi"
    assert parse_known_json('{"message_type": "assistant_message", "content": "hi"}') == (
        AssistantMessage(content="hi"))
