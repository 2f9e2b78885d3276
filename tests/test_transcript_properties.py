"""Properties of the accumulator: chunking, noise and garbage do not change the outcome."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openletta.api.sse import parse_sse_text
from openletta.transcript import Transcript

FIXTURES = Path(__file__).parent / "fixtures"
CAPTURES = [
    "read_tool_tokens.sse", "multi_text_and_approval_tokens.sse",
    "approval_write_file_request_tokens.sse", "tool_error_tokens.sse", "hello_tokens.sse",
]
_FIELDS = {"reasoning_message": "reasoning", "assistant_message": "content"}


def raw_events(name: str) -> list[dict]:
    """The JSON objects of a capture, in order."""
    events = []
    for line in (FIXTURES / name).read_text().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            events.append(json.loads(line[6:]))
    return events


def final_json(events: list[dict]) -> list[dict]:
    text = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    transcript = Transcript()
    transcript.feed_all(parse_sse_text(text).messages)
    return [item.to_json() for item in transcript.items]


def _fragment_of(event: dict) -> tuple[str, str] | None:
    """(field, text) of a delta that carries a text or argument fragment."""
    kind = event.get("message_type")
    if kind in _FIELDS and isinstance(event.get(_FIELDS[kind]), str):
        return _FIELDS[kind], event[_FIELDS[kind]]
    call = event.get("tool_calls")
    if isinstance(call, dict) and isinstance(call.get("arguments"), str):
        return "arguments", call["arguments"]
    return None


def _with_fragment(event: dict, field: str, text: str) -> dict:
    copy = json.loads(json.dumps(event))
    if field == "arguments":
        copy["tool_calls"]["arguments"] = text
        copy["tool_call"] = copy["tool_calls"]
    else:
        copy[field] = text
    return copy


def rechunk(events: list[dict], cuts: list[int], merge: list[bool]) -> list[dict]:
    """Split each fragment at a chosen point and merge it into the next delta of its part."""
    out: list[dict] = []
    for index, event in enumerate(events):
        fragment = _fragment_of(event)
        if fragment is None:
            out.append(event)
            continue
        field, text = fragment
        previous = out[-1] if out else None
        same_part = (previous is not None and _fragment_of(previous) is not None
                     and previous.get("otid") == event.get("otid")
                     and previous.get("message_type") == event.get("message_type")
                     and _fragment_of(previous)[0] == field)
        if merge[index % len(merge)] and same_part:
            out[-1] = _with_fragment(previous, field, _fragment_of(previous)[1] + text)
            continue
        cut = cuts[index % len(cuts)] % (len(text) + 1)
        out.append(_with_fragment(event, field, text[:cut]))
        if text[cut:]:
            out.append(_with_fragment(event, field, text[cut:]))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(CAPTURES),
    cuts=st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=12),
    merge=st.lists(st.booleans(), min_size=1, max_size=12),
)
def test_rechunking_gives_the_same_transcript(name: str, cuts: list[int],
                                              merge: list[bool]) -> None:
    events = raw_events(name)
    assert final_json(rechunk(events, cuts, merge)) == final_json(events)


NOISE = st.sampled_from([
    {"message_type": "ping", "id": "ping-x", "run_id": "run-x"},
    {"message_type": "response_state", "state": "thinking"},
    {"message_type": "future_message_type", "payload": {"a": [1, 2]}},
    {"message_type": "event_message_v2"},
    {"no_type": True},
])


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(CAPTURES), positions=st.lists(st.integers(0, 200), max_size=8),
       noise=st.lists(NOISE, min_size=8, max_size=8))
def test_unknown_types_and_pings_change_nothing(name: str, positions: list[int],
                                                noise: list[dict]) -> None:
    events = raw_events(name)
    noisy = list(events)
    for position, extra in zip(sorted(positions, reverse=True), noise, strict=False):
        noisy.insert(position % (len(noisy) + 1), extra)
    assert final_json(noisy) == final_json(events)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_garbage_never_raises(garbage: str) -> None:
    result = parse_sse_text(garbage)
    Transcript().feed_all(result.messages)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(
    st.sampled_from(["message_type", "id", "otid", "tool_calls", "tool_call", "content",
                     "reasoning", "tool_returns", "approvals", "seq_id", "date", "stop_reason"]),
    st.one_of(st.none(), st.text(max_size=8), st.integers(), st.lists(st.integers(), max_size=2),
              st.sampled_from(["assistant_message", "tool_call_message", "tool_return_message",
                               "approval_response_message", "reasoning_message",
                               "usage_statistics", "stop_reason"])),
), max_size=10))
def test_malformed_messages_never_raise(events: list[dict]) -> None:
    text = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    Transcript().feed_all(parse_sse_text(text).messages)
