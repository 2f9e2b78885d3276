"""The boundary rules for what comes from a server: bounded JSON, aware UTC dates, a default
for a field of the wrong type, typed errors from the client that never hold the key."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openletta.api import json_text
from openletta.api.client import LettaClient
from openletta.api.errors import ConfigurationError, LettaError, ServerError
from openletta.api.history import history_page
from openletta.api.json_text import MAX_DEPTH, JSONTextError
from openletta.api.messages import EventMessage, ToolReturnMessage, UsageStatistics, parse_message
from openletta.api.resources import Agent, Compaction, Model
from openletta.api.sse import parse_sse_text
from openletta.api.wire import utc_datetime
from openletta.display import DisplayText
from openletta.replay import ReplayError, load_recording
from openletta.transcript import EventItem, ToolCallItem, Transcript, UserItem
from openletta.transcript.packed import unpack_user_content

FIXTURES = Path(__file__).parent / "fixtures"

DEEP = "[" * 1000 + "]" * 1000
#: An escape that is not an SGR colour (Rich's own colours are fine).
NOT_A_COLOUR = re.compile(r"\x1b(?!\[[0-9;]*m)")


# --- JSON ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [DEEP, '{"a":' * 5000 + "1" + "}" * 5000,
                                  "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)])
def test_too_deep_json_is_a_typed_error(text: str) -> None:
    with pytest.raises(JSONTextError, match="nested more than"):
        json_text.loads(text)


def test_json_at_the_depth_limit_and_brackets_in_strings_are_fine() -> None:
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert json_text.loads(at_limit) is not None
    assert json_text.loads(json.dumps({"text": "[" * 10_000})) == {"text": "[" * 10_000}


@pytest.mark.parametrize("text", ["{", "nope", "1" * 5000, '{"a": 1,}', ""])
def test_invalid_json_is_a_typed_error(text: str) -> None:
    with pytest.raises(JSONTextError):
        json_text.loads(text)
    assert json_text.loads_or_none(text) is None


def test_lone_surrogates_become_replacement_characters() -> None:
    value = json_text.loads('{"\\udfff": ["a\\ud800b", "\\ud83d\\ude00"]}')
    assert value == {"\ufffd": ["a\ufffdb", "\U0001f600"]}
    json.dumps(value, ensure_ascii=False).encode("utf-8")


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_whatever_is_not_too_deep_reads_back_the_same(value: object) -> None:
    text = json.dumps(value)
    if not json_text.too_deep(text) and "\\ud" not in text:  # surrogates: tested above
        assert json_text.loads(text) == value


@pytest.mark.parametrize(("text", "expected"), [
    ('{"path": "/a/b', {"path": "/a/b"}),
    ('{"path": "/a/b.py", "content": "# No\\', {"path": "/a/b.py", "content": "# No"}),
    ('{"content": "x\\n\\u00', {"content": "x\n"}),
    ('{"a": [1, {"b": "c', {"a": [1, {"b": "c"}]}),
    ('{"pa', {}), ('{"a": tr', {}), ('{"a": 12', {"a": 12}),
    ("", None), ("nope", None), ('{"a": "x\\udfff"}', None), ("[" * (MAX_DEPTH + 1), None),
])
def test_the_start_of_a_json_text_reads_as_far_as_it_goes(text: str, expected: object) -> None:
    assert json_text.loads_partial(text) == expected


@given(st.dictionaries(st.text(), st.text() | st.integers() | st.lists(st.text())),
       st.integers(min_value=0))
def test_every_start_of_an_object_reads_as_the_start_of_its_value(
        value: dict[str, object], cut: int) -> None:
    text = json.dumps(value)
    if "\\ud" in text:  # lone surrogates: tested above
        return
    begun = json_text.loads_partial(text[:cut % (len(text) + 1)])
    assert begun is None or isinstance(begun, dict)
    for key, entry in (begun or {}).items():
        whole = value[key]
        if isinstance(whole, str):
            assert isinstance(entry, str) and whole.startswith(entry)
    assert json_text.loads_partial(text) == value


# --- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [
    ("2024-01-01T00:00:00", datetime(2024, 1, 1, tzinfo=UTC)),
    ("2024-01-01T02:00:00+02:00", datetime(2024, 1, 1, tzinfo=UTC)),
    ("2024-01-01T00:00:00Z", datetime(2024, 1, 1, tzinfo=UTC)),
    (1704067200, datetime(2024, 1, 1, tzinfo=UTC)),
    ("0001-01-01T00:00:00+14:00", None),
    ("9999-12-31T23:59:59-12:00", None),
    ("not a date", None), ([2024], None), (True, None), (1e300, None), (None, None),
])
def test_every_date_is_aware_utc_or_none(value: object, expected: datetime | None) -> None:
    assert utc_datetime(value) == expected
    message = parse_message({"message_type": "assistant_message", "id": "a", "date": value})
    assert message.date == expected  # type: ignore[union-attr]


def test_a_page_mixing_naive_and_aware_dates_orders_and_pairs() -> None:
    page = history_page([
        {"message_type": "user_message", "id": "u", "date": "2024-01-01T00:00:00",
         "content": "question"},
        {"message_type": "assistant_message", "id": "a", "date": "2024-01-01T00:00:05+00:00",
         "content": "answer"},
        {"message_type": "assistant_message", "id": "b", "date": "garbage", "content": "x"},
    ], limit=50, newest_first=False)
    transcript = Transcript(footers=True)
    transcript.load_history(page.messages)
    transcript.feed(parse_message({"message_type": "assistant_message", "id": "c",
                                   "otid": "c", "date": "2024-01-01T00:00:09",
                                   "content": "live"}))
    assert [item.kind for item in transcript.items][:2] == ["user", "assistant"]


# --- a field of the wrong type gets its default ----------------------------------------------


def test_a_wrong_field_type_falls_back_to_the_default_not_the_whole_message() -> None:
    message = parse_message({"message_type": "tool_return_message", "id": "r", "name": 5,
                             "tool_call_id": "t", "status": "success", "tool_return": "ok",
                             "stdout": [1, {"a": 2}], "seq_id": "x", "date": {"d": 1}})
    assert isinstance(message, ToolReturnMessage)
    assert (message.name, message.seq_id, message.date) == (None, None, None)
    assert message.tool_returns[0].tool_return == "ok"
    assert message.tool_returns[0].stdout is None


@pytest.mark.parametrize("tokens", ["12k", [1], {"n": 1}, 1.5, None, True])
def test_usage_and_compaction_figures_of_any_type_never_raise(tokens: object) -> None:
    usage = parse_message({"message_type": "usage_statistics", "prompt_tokens": tokens,
                           "total_tokens": tokens, "context_tokens": tokens})
    assert isinstance(usage, UsageStatistics)
    event = parse_message({"message_type": "event_message", "id": "e",
                           "event_type": "compaction",
                           "event_data": {"context_token_estimate": tokens,
                                          "context_window": tokens}})
    assert isinstance(event, EventMessage)
    transcript = Transcript()
    transcript.feed(event)
    transcript.feed(usage)
    (item,) = transcript.items
    assert isinstance(item, EventItem) and item.text.startswith("Compacting context")


@pytest.mark.parametrize("value", ["12k", [1], {"n": 1}, 1.5, None, True])
def test_models_and_compactions_of_any_shape_never_raise(value: object) -> None:
    model = Model.model_validate({"handle": value, "context_window": value, "x": value})
    assert isinstance(model.handle, str)
    assert model.context_window is None or isinstance(model.context_window, int)
    done = Compaction.model_validate({"summary": value, "num_messages_before": value,
                                      "num_messages_after": value})
    assert isinstance(done.summary, str)
    assert done.num_messages_after is None or isinstance(done.num_messages_after, int)


def test_a_required_field_of_the_wrong_type_still_fails_typed() -> None:
    with pytest.raises(ValueError):
        Agent.model_validate({"id": ["not", "an", "id"], "name": "x"})


@pytest.mark.parametrize("typed", ['{"type": ["login"]}', '{"type": {"a": 1}, "message": 5}',
                                   '{"type": 7}', '{"type": "system_alert", "message": [1]}',
                                   "[" * 1000])
def test_a_user_can_type_any_json(typed: str) -> None:
    subtype, text = unpack_user_content(typed)
    transcript = Transcript()
    transcript.load_history([parse_message({"message_type": "user_message", "id": "u",
                                            "content": typed})])
    if subtype == "user_message":
        assert text == typed
        assert isinstance(transcript.items[0], UserItem)


# --- deep JSON everywhere a stream carries it -------------------------------------------------


def test_deep_json_in_a_stream_is_skipped_and_everything_else_kept() -> None:
    body = (f"data: {DEEP}\n\n"
            'data: {"message_type": "assistant_message", "id": "a", "otid": "a", '
            '"content": "still here"}\n\n'
            f"event: error\ndata: {DEEP}\n\n")
    result = parse_sse_text(body)
    assert [message.message_type for message in result.messages] == [
        "malformed", "assistant_message", "error_message"]
    assert result.ended == "error" and isinstance(result.error, LettaError)


def test_deep_arguments_are_shown_as_text_not_parsed() -> None:
    item = ToolCallItem(key="c", name="bash", arguments_text=json.dumps({"command": "x"})[:-1]
                        + f', "deep": {DEEP}}}')
    assert item.arguments is None


# --- the client --------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [200, 500])
async def test_a_deep_body_is_a_typed_error(replay_server, status: int) -> None:
    replay_server.reply_bytes(DEEP.encode(), status)
    async with LettaClient(replay_server.base_url) as client:
        with pytest.raises(ServerError):
            await client.list_agents()


@pytest.mark.parametrize("key", ["sk-ключ-123456", "sk-with space-123", "sk-tab\tkey-123"])
def test_a_key_a_header_cannot_carry_is_a_typed_error_without_the_key(key: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        LettaClient("http://localhost:8283", api_key=key)
    error = raised.value
    for text in (str(error), repr(error.__cause__), repr(error.__context__)):
        assert key not in text
    assert error.__cause__ is None and error.__context__ is None


async def test_a_key_with_a_trailing_newline_is_used_without_it(replay_server) -> None:
    replay_server.reply_json({"version": "0.16.8"})
    async with LettaClient(replay_server.base_url, api_key="sk-abcdef-123\n") as client:
        await client.health()
    assert replay_server.requests[0].headers["authorization"] == "Bearer sk-abcdef-123"


@pytest.mark.parametrize(("url", "why"), [
    ("ftp://example.com", "does not start with http"), ("http://[::1", ""),
    ("letta.example", "does not start with http"), ("http://", "names no host"),
    ("http://127.0.0.1:99999", "port 99999 is not between 1 and 65535"),
    ("https://localhost:0", "port 0"), ("http://exa mple.com", "not a name or an address")])
def test_an_unusable_base_url_is_a_typed_error_that_says_why(url: str, why: str) -> None:
    with pytest.raises(ConfigurationError, match="base URL") as raised:
        LettaClient(url)
    assert why in raised.value.message


async def test_a_password_in_the_base_url_never_appears_in_errors() -> None:
    client = LettaClient("http://user:hunter2@127.0.0.1:9")
    with pytest.raises(LettaError) as raised:
        await client.health()
    await client.aclose()
    assert "hunter2" not in raised.value.message
    assert "http://user:***@127.0.0.1:9" in raised.value.message


async def test_an_error_echoing_the_request_never_shows_the_key(replay_server) -> None:
    key = "sk-let-echoed-0123456789"
    replay_server.reply_json({"detail": f"bad request; headers: {{'authorization': "
                                        f"'Bearer {key}', 'x-api-key': '{key}'}}"}, 400)
    async with LettaClient(replay_server.base_url, api_key=key) as client:
        with pytest.raises(LettaError) as raised:
            await client.health()
    assert key in raised.value.message  # the error keeps what the server said …
    assert key not in DisplayText(raised.value.message)  # … but it is never shown


# --- openletta replay ------------------------------------------------------------------------


def test_replay_of_hostile_input_prints_no_escape_and_survives_surrogates(
        tmp_path: Path) -> None:
    capture = tmp_path / "hostile.sse"
    events = [
        {"message_type": "tool_call_message", "id": "t", "otid": "t", "tool_call": {
            "tool_call_id": "c", "name": "write_file",
            "arguments": json.dumps({"path": "a\x1b]0;t\x07", "content": "\udfff"})}},
        {"message_type": "hidden_reasoning_message", "id": "h", "state": "\x1b[2J"},
        {"message_type": "stop_reason", "stop_reason": "\x1b]52;c;aGk=\x07"},
    ]
    capture.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events)
                       + 'event: error\ndata: {"error": {"type": "\\u001b[?1049h", '
                         '"message": "m"}}\n\n')
    for extra in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-m", "openletta", "replay", str(capture),
                               *extra], capture_output=True, timeout=60,
                              env={**os.environ, "PYTHONIOENCODING": "utf-8",
                                   "COLUMNS": "100", "FORCE_COLOR": "1"})
        assert done.returncode == 0, done.stderr
        for output in (done.stdout, done.stderr):
            text = output.decode("utf-8")
            assert NOT_A_COLOUR.search(text) is None, text
            assert "\x07" not in text and "\x9b" not in text
        assert "\\u001b]0;t" in done.stdout.decode()  # shown, not obeyed


@pytest.mark.parametrize("fixture", ["agents_list.json", "models_list.json", "run_steps.json",
                                     "agent_get.json"])
def test_replay_refuses_json_that_holds_no_messages(fixture: str) -> None:
    with pytest.raises(ReplayError, match="holds no list of messages"):
        load_recording(FIXTURES / fixture)


def test_replay_reads_a_history_page_and_an_empty_one(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    assert load_recording(empty).messages == []
    assert load_recording(FIXTURES / "agent_messages_default.json").messages
