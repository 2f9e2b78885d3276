"""A mutation fuzzer over the recorded captures, and the pipelines it feeds.

:func:`mutate_stream` and :func:`mutate_page` take a real capture from ``tests/fixtures`` and
break it the ways a server, a proxy or a bad connection could: flipped bytes, truncation,
events reordered, duplicated or dropped, fields deleted or of the wrong type, unknown message
types, deep nesting, invalid UTF-8, CR and CRLF line endings, odd ``event: error`` payloads,
``[DONE]`` in the middle, escape sequences and lone surrogates in text, dates with and
without a time zone. They draw every choice from a :class:`random.Random`, so hypothesis
(``st.randoms()``) can shrink a failure and ``bench/fuzz.py`` can run millions of cases.

:func:`run_stream` and :func:`run_page` push the result through everything openletta does
with such bytes: SSE parser → accumulator → Markdown export, ``openletta replay`` output and
every tool renderer; a history page through the client's decoding, paging, load and prepend.
Only the project's typed errors may come out.
"""

from __future__ import annotations

import functools
import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from openletta.api.errors import LettaError
from openletta.api.history import history_page
from openletta.api.json_text import JSONTextError, loads
from openletta.api.sse import parse_sse_text
from openletta.replay import print_transcript, transcript_json
from openletta.transcript import ToolCallItem, Transcript
from openletta.transcript.export import to_markdown
from openletta.ui.renderers import renderer_for

FIXTURES = Path(__file__).parent / "fixtures"
STREAMS = sorted(path.name for path in FIXTURES.glob("*.sse"))
PAGES = sorted(path.name for path in FIXTURES.glob("*messages*.json"))
#: What may come out of the pipelines: the project's typed errors.
TYPED_ERRORS = (LettaError, JSONTextError)

_ODD_VALUES: list[Any] = [
    None, True, 0, -1, 2**70, 1.5, float("inf"), "", "x", "12", [], {}, [1, "a", None],
    {"nested": {"deeper": [1]}}, "2024-01-01T00:00:00", "2024-01-01T00:00:00+00:00",
    "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "not a date", 1e300,
    "\x1b]52;c;aGk=\x07\x1b[2J", "\udfff", "a\rb", "\u202eevil", "[" * 100,
    '{"type": ["login"], "message": 5}', '{"type": "system_alert", "message": {"a": 1}}',
]
_MESSAGE_TYPES = [
    "user_message", "assistant_message", "reasoning_message", "hidden_reasoning_message",
    "tool_call_message", "approval_request_message", "tool_return_message",
    "approval_response_message", "event_message", "summary_message", "stop_reason",
    "usage_statistics", "error_message", "ping", "system_message", "response_state",
    "future_type", "",
]


def deep(depth: int, rng: random.Random) -> str:
    """JSON nested ``depth`` levels deep (arrays or objects)."""
    if rng.random() < 0.5:
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def odd_value(rng: random.Random) -> Any:
    """A value of some type the field does not expect."""
    roll = rng.random()
    if roll < 0.08:
        return json.loads(deep(rng.choice([10, 70, 200]), rng))
    if roll < 0.15:
        return deep(rng.choice([100, 1000, 5000]), rng)  # deep JSON inside a string
    return rng.choice(_ODD_VALUES)


def odd_message(rng: random.Random) -> dict[str, Any]:
    """A message of a random type whose fields are odd values, tool calls included."""
    arguments = {key: odd_value(rng) for key in rng.sample(_ARGUMENT_NAMES, 3)}
    return {
        "message_type": rng.choice(_MESSAGE_TYPES), "id": "m", "otid": "o",
        "content": odd_value(rng), "reasoning": odd_value(rng), "state": odd_value(rng),
        "tool_call": {"tool_call_id": "t", "name": rng.choice([*_TOOL_NAMES, odd_value(rng)]),
                      "arguments": rng.choice([json.dumps(arguments), odd_value(rng)])},
        "tool_call_id": "t", "status": rng.choice(["success", "error", odd_value(rng)]),
        "tool_return": odd_value(rng), "stdout": odd_value(rng), "date": odd_value(rng),
        "event_type": rng.choice(["compaction", odd_value(rng)]), "summary": odd_value(rng),
        "event_data": {"context_token_estimate": odd_value(rng),
                       "context_window": odd_value(rng)},
        "stop_reason": odd_value(rng), "total_tokens": odd_value(rng),
    }


_TOOL_NAMES = ["bash", "read_file", "edit_file", "write_file", "apply_patch",
               "memory_insert", "send_message", "unknown_tool"]
_ARGUMENT_NAMES = ["command", "path", "file_path", "content", "old_string", "new_string",
                   "patch", "offset", "view_range", "query"]


# --- JSON payloads -------------------------------------------------------------------------


def mutate_payload(payload: Any, rng: random.Random) -> Any:
    """``payload`` with one field deleted, retyped or renamed, somewhere inside it."""
    if not isinstance(payload, dict) or not payload:
        return odd_value(rng) if rng.random() < 0.3 else payload
    payload = dict(payload)
    key = rng.choice(list(payload))
    action = rng.randrange(6)
    if action == 0:
        del payload[key]
    elif action == 1:
        payload[key] = odd_value(rng)
    elif action == 2:
        payload["message_type"] = rng.choice(_MESSAGE_TYPES)
    elif action == 3 and isinstance(payload[key], dict | list):
        payload[key] = _mutate_container(payload[key], rng)
    elif action == 4:
        payload[rng.choice(["date", "seq_id", "otid", "id", "tool_call_id", "name"])] = \
            odd_value(rng)
    else:
        payload[f"unknown_{rng.randrange(100)}"] = odd_value(rng)
    return payload


def _mutate_container(value: dict[str, Any] | list[Any], rng: random.Random) -> Any:
    if isinstance(value, dict):
        return mutate_payload(value, rng)
    if not value:
        return [odd_value(rng)]
    index = rng.randrange(len(value))
    return [*value[:index], mutate_payload(value[index], rng), *value[index + 1:]]


def _json(value: Any) -> str:
    """JSON text of ``value``, ASCII only (a lone surrogate travels as ``\\udfff``)."""
    return json.dumps(value)


# --- streams -------------------------------------------------------------------------------


def split_events(raw: bytes) -> list[bytes]:
    """The events of an SSE body, each with its lines, without the blank line."""
    return [event for event in raw.replace(b"\r\n", b"\n").split(b"\n\n") if event.strip()]


def _mutate_event(event: bytes, rng: random.Random) -> bytes:
    lines = event.split(b"\n")
    for index, line in enumerate(lines):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            try:
                payload = json.loads(line[6:])
            except (ValueError, RecursionError):  # broken or deep already: leave it
                return event
            lines[index] = b"data: " + _json(mutate_payload(payload, rng)).encode()
    return b"\n".join(lines)


_ERROR_EVENTS = [
    b'event: error\ndata: {"message": 5}',
    b"event: error\ndata: " + b"[" * 2000,
    b'event: error\ndata: {"error": {"type": ["x"], "message": {"a": 1}, "detail": [1]}}',
    b"event: error\ndata: \x1b]0;pwned\x07 plain text",
    b'event: error\ndata: {"message_type": "error_message", "error_type": null, "seq_id": "x"}',
    b"event: error",
    b"event: cancelled\ndata: {}",
]


def _event_mutation(events: list[bytes], rng: random.Random) -> list[bytes]:
    events = list(events)
    if not events:
        return [rng.choice(_ERROR_EVENTS)]
    index = rng.randrange(len(events))
    action = rng.randrange(9)
    if action == 0:
        del events[index]
    elif action == 1:
        events.insert(index, events[rng.randrange(len(events))])
    elif action == 2:
        window = events[index:index + rng.randint(2, 6)]
        rng.shuffle(window)
        events[index:index + len(window)] = window
    elif action == 3:
        events[index] = _mutate_event(events[index], rng)
    elif action == 4:
        events.insert(index, rng.choice(_ERROR_EVENTS))
    elif action == 5:
        events.insert(index, b"data: [DONE]")
    elif action == 6:
        events.insert(index, b"data: " + deep(rng.choice([100, 1000, 3000]), rng).encode())
    elif action == 7:
        events.insert(index, b"data: " + _json(odd_message(rng)).encode())
    else:
        events[index] = events[index] + b"\nid: " + str(odd_value(rng)).encode(
            "utf-8", "surrogatepass")
    return events


def _byte_mutation(raw: bytes, rng: random.Random) -> bytes:
    if not raw:
        return b"\xff"
    action = rng.randrange(5)
    position = rng.randrange(len(raw))
    if action == 0:  # flip bytes
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if action == 1:  # truncate
        return raw[:position]
    if action == 2:  # invalid UTF-8
        return raw[:position] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]) \
            + raw[position:]
    if action == 3:  # other line endings
        return raw.replace(b"\n", rng.choice([b"\r\n", b"\r"]))
    return raw[:position] + rng.choice([b"\x1b[2J", b"\x00", b"\r", b"\n\n", b":", b"data:"]) \
        + raw[position:]


def mutate_stream(raw: bytes, rng: random.Random) -> bytes:
    """A recorded SSE body broken in 1–4 ways."""
    events = split_events(raw)
    for _ in range(rng.randint(1, 3)):
        events = _event_mutation(events, rng)
    body = b"\n\n".join(events) + b"\n\n"
    if rng.random() < 0.4:
        body = _byte_mutation(body, rng)
    return body


def mutate_page(raw: bytes, rng: random.Random) -> bytes:
    """A recorded history page broken in 1–4 ways."""
    try:
        page = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    if isinstance(page, list) and page:
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            index = rng.randrange(len(page))
            if roll < 0.5:
                page[index] = mutate_payload(page[index], rng)
            elif roll < 0.65:
                page.insert(index, page[rng.randrange(len(page))])
            elif roll < 0.75:
                rng.shuffle(page)
            elif roll < 0.85:
                page[index] = odd_value(rng)
            else:
                del page[index]
                if not page:
                    break
    elif rng.random() < 0.5:
        page = odd_value(rng)
    body = _json(page).encode()
    if rng.random() < 0.25:
        body = _byte_mutation(body, rng)
    if rng.random() < 0.05:
        body = deep(rng.choice([100, 2000]), rng).encode()
    return body


# --- the pipelines -------------------------------------------------------------------------


def render_everything(transcript: Transcript) -> None:
    """Everything openletta makes of a transcript: export, replay (Rich and JSON), and every
    tool call through its renderer, narrow and wide; all of it must be writable as UTF-8."""
    items = transcript.visible_items(include_internal=True)
    to_markdown(items, "fuzz", include_internal=True).encode("utf-8")
    json.dumps(transcript_json(transcript, include_internal=True),
               ensure_ascii=False).encode("utf-8")
    console = Console(file=io.StringIO(), width=100, color_system="truecolor",
                      force_terminal=True)
    print_transcript(transcript, console, include_internal=True)
    console.file.getvalue().encode("utf-8")  # type: ignore[attr-defined]
    for item in items:
        if isinstance(item, ToolCallItem):
            renderer = renderer_for(item.name)
            if item.arguments is not None:
                renderer.summary(item).encode("utf-8")
            for width in (60, 140):
                for block in renderer.body(item, width):
                    block.plain.encode("utf-8")


def run_stream(body: bytes) -> None:
    """SSE bytes → parser → accumulator (with footers) → everything rendered."""
    result = parse_sse_text(body)
    transcript = Transcript(footers=True)
    for message in result.messages:
        transcript.feed(message)
    render_everything(transcript)


def run_page(body: bytes, older: bytes | None = None) -> None:
    """History page bytes (and an older page) → the client's decoding → load and prepend."""
    transcript = Transcript(footers=True)
    for raw, load in ((body, transcript.load_history), (older, transcript.prepend_history)):
        if raw is None:
            continue
        data = loads(raw)
        if not isinstance(data, list):
            continue  # the client raises a typed ServerError here
        for newest_first in (False, True):
            page = history_page(data, limit=4, newest_first=newest_first)
        load(page.messages)
    render_everything(transcript)


def mutated_case(rng: random.Random) -> Callable[[], None]:
    """One fuzz case, ready to run: a mutated stream, or a pair of mutated history pages."""
    if rng.random() < 0.6:
        body = mutate_stream((FIXTURES / rng.choice(STREAMS)).read_bytes(), rng)
        return functools.partial(run_stream, body)
    pages = [mutate_page((FIXTURES / rng.choice(PAGES)).read_bytes(), rng) for _ in range(2)]
    return functools.partial(run_page, *pages)
