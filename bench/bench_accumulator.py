"""Throughput of the protocol core: SSE parse + models + accumulator, and accumulator only.

Run: python bench/bench_accumulator.py [--repeat N]
Goal (issue 21): parse+accumulate ≥ 200,000 chunks/s on a 2-core machine.

"as streamed" is the app's path: each event is read into messages and each message fed to
the transcript (one change per message) and let go, with the app's collector settings.
"whole body" reads the body into a list of every message first (``openletta replay``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from openletta.api.sse import StreamState, parse_sse_text, recorded_events
from openletta.transcript import Transcript
from openletta.ui import collector

CAPTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "long_markdown_tokens.sse"


def best_of(runs: int, work) -> float:
    """Best wall time of ``runs`` runs of ``work()``."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=40, help="times the capture is replayed")
    args = parser.parse_args()
    one = CAPTURE.read_text()
    # One long stream: the capture's events repeated, as a long session would deliver them.
    body = one.replace("data: [DONE]\n\n", "")
    text = body * args.repeat + "data: [DONE]\n\n"
    messages = parse_sse_text(text).messages
    chunks = len(messages)

    def as_streamed() -> None:
        state, transcript = StreamState(), Transcript()
        for event, data in recorded_events(text):
            for message in state.feed(event, data):
                transcript.feed(message)

    def whole_body() -> None:
        Transcript().feed_all(parse_sse_text(text).messages)

    def accumulate_only() -> None:
        transcript = Transcript()
        for message in messages:
            transcript.feed(message)

    whole = best_of(3, whole_body)
    accumulate = best_of(3, accumulate_only)
    collector.settle_after_startup()
    streamed = best_of(5, as_streamed)
    print(f"capture: {CAPTURE.name} x {args.repeat} = {chunks:,} chunks")
    print(f"parse + accumulate, as streamed: {chunks / streamed:,.0f} chunks/s "
          f"({streamed * 1000:.0f} ms)")
    print(f"parse + accumulate, whole body:  {chunks / whole:,.0f} chunks/s "
          f"({whole * 1000:.0f} ms)")
    print(f"accumulate only:                 {chunks / accumulate:,.0f} chunks/s "
          f"({accumulate * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
