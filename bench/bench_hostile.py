"""Cost under hostile input: every step linear in what arrives, never quadratic.

Run: python bench/bench_hostile.py
Prints the time of each case; at issue 17 the quadratic code took 139 s for 40,000 × 1 KB
chunks of accumulation, 5.5 s for 20,000, and 14.7 s to sanitise
``"A" * 2_000_000 + "\\rx" * 200_000``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from openletta.api import json_text
from openletta.api.messages import parse_message
from openletta.display import DisplayText, StreamCleaner, terminal_text
from openletta.transcript import AssistantItem, Transcript

KB = "x" * 1023 + "\n"
OVERWRITES = "A" * 2_000_000 + "\rx" * 200_000


def timed(label: str, work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    seconds = time.perf_counter() - started
    print(f"{label:<62} {seconds:8.3f} s")
    return seconds


def reply_chunks(count: int) -> list[object]:
    return [parse_message({"message_type": "assistant_message", "id": "a", "otid": "a",
                           "content": KB}) for _ in range(count)]


def argument_chunks(count: int) -> list[object]:
    first = {"message_type": "tool_call_message", "id": "t", "otid": "t",
             "tool_call": {"tool_call_id": "c", "name": "write_file",
                           "arguments": '{"path": "a", "content": "'}}
    more = {"message_type": "tool_call_message", "id": "t", "otid": "t",
            "tool_call": {"tool_call_id": "c", "arguments": "0123456789"}}
    return [parse_message(first), *(parse_message(more) for _ in range(count))]


def accumulate(chunks: list[object]) -> None:
    transcript = Transcript()
    for chunk in chunks:
        transcript.feed(chunk)  # type: ignore[arg-type]


def stream_clean(count: int) -> None:
    """What the reply widget does, at a sync after every chunk: read what arrived since the
    last sync and clean only that."""
    item, cleaner, read, shown = AssistantItem(key="a"), StreamCleaner(), 0, []
    for _ in range(count):
        item.append(KB)
        shown.append(cleaner.feed(item.text_since(read)))
        read = item.text_length


def main() -> None:
    print("accumulation (parse done beforehand)")
    for count in (20_000, 40_000):
        chunks = reply_chunks(count)
        timed(f"  {count:,} × 1 KB reply chunks into the transcript",
              lambda c=chunks: accumulate(c))
    arguments = argument_chunks(200_000)
    timed("  200,000 × 10 B tool-argument fragments", lambda: accumulate(arguments))
    print("display text")
    timed("  DisplayText of 'A'*2,000,000 + '\\rx'*200,000", lambda: DisplayText(OVERWRITES))
    timed("  terminal_text (overwriting) of the same", lambda: terminal_text(OVERWRITES))
    timed("  a reply widget's cleaning: 40,000 × 1 KB, a sync per chunk",
          lambda: stream_clean(40_000))
    print("untrusted JSON")
    deep = "[" * 1_000_000 + "]" * 1_000_000
    timed("  refusing 1,000,000 levels of nesting", lambda: json_text.loads_or_none(deep))
    wide = "[" + ",".join(["[1, {\"a\": [2]}]"] * 200_000) + "]"
    timed("  200,000 shallow arrays (many brackets, little depth)", lambda: json_text.loads(wide))


if __name__ == "__main__":
    main()
