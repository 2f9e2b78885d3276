"""Record one streamed turn from a Letta server with the time each event arrived.

Run: python bench/record_stream.py BASE_URL AGENT_ID TEXT OUT.sse

The output is the stream exactly as received, each event preceded by an SSE comment line
``: t=<seconds since the request was sent>``; SSE readers ignore comments, so the file is a
valid stream, and ``bench_stream_cpu.py`` replays it at its recorded pace. Recordings in
``tests/fixtures/timed/`` came from the scripted e2e harness (``scripts/harness``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx


def record(base_url: str, agent_id: str, text: str) -> str:
    """The timed stream of the reply to ``text``."""
    body = {"messages": [{"role": "user", "content": text}], "stream_tokens": True,
            "include_pings": True}
    out: list[str] = []
    started = time.monotonic()
    with httpx.Client(base_url=base_url, timeout=120) as client, client.stream(
            "POST", f"/v1/agents/{agent_id}/messages/stream", json=body) as response:
        response.raise_for_status()
        event: list[str] = []
        for line in response.iter_lines():
            if line:
                event.append(line)
                continue
            if event:
                out.append(f": t={time.monotonic() - started:.4f}\n" + "\n".join(event) + "\n\n")
                event = []
    return "".join(out)


if __name__ == "__main__":
    base, agent, message, path = sys.argv[1:5]
    Path(path).write_text(record(base, agent, message))
