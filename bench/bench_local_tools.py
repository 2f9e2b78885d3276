"""What declaring the local toolset costs each request: its size, and the time to the first
chunk of the reply, with and without ``client_tools``.

Run: python bench/bench_local_tools.py [--runs N] [--base-url URL --agent ID]

Against a real Letta server when ``--base-url``/``LETTA_BASE_URL`` and ``--agent``/
``OPENLETTA_E2E_AGENT_ID`` are given (the e2e harness prints both), else against the embedded
demo server. Each run sends "hello" twice on the agent's default thread through
``LettaClient.send_message``, once with the seven local tools declared and once without, in
alternating order, and times from the request to the first chunk that is not a ping (the
model's first token) and to the end of the reply. The request body is what the client
encodes (``httpx`` JSON), measured once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from typing import Any

from openletta.api.client import LettaClient, turn_options
from openletta.api.messages import Ping
from openletta.demo import DemoServer
from openletta.tools import declarations


async def timed_turn(client: LettaClient, agent_id: str,
                     tools: list[dict[str, Any]]) -> tuple[float, float]:
    """Seconds to the first chunk that is not a ping, and to the end of the reply."""
    started = time.perf_counter()
    first = None
    async with client.send_message(agent_id, "hello", client_tools=tools) as stream:
        async for message in stream:
            if first is None and not isinstance(message, Ping):
                first = time.perf_counter() - started
    return first or 0.0, time.perf_counter() - started


def body_size(tools: list[dict[str, Any]]) -> int:
    """Bytes of a send request's JSON body for one user message."""
    item = {"type": "message", "role": "user", "content": "hello", "otid": "x" * 36}
    body = {"messages": [item], "streaming": True, **turn_options(True, True, tools)}
    return len(json.dumps(body, separators=(",", ":")).encode())


async def measure(base_url: str, agent_id: str, runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"declared first": [], "declared total": [],
                                     "none first": [], "none total": []}
    async with LettaClient(base_url) as client:
        await timed_turn(client, agent_id, [])  # warm up connections and caches
        for run in range(runs):
            order = ("declared", "none") if run % 2 == 0 else ("none", "declared")
            for kind in order:
                first, total = await timed_turn(
                    client, agent_id, declarations() if kind == "declared" else [])
                times[f"{kind} first"].append(first)
                times[f"{kind} total"].append(total)
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--base-url", default=os.environ.get("LETTA_BASE_URL"))
    parser.add_argument("--agent", default=os.environ.get("OPENLETTA_E2E_AGENT_ID"))
    args = parser.parse_args()
    demo = None
    if not (args.base_url and args.agent):
        demo = DemoServer(speed=0)
        args.base_url, args.agent = await demo.start(), "demo-agent"
        async with LettaClient(args.base_url) as client:
            args.agent = (await client.list_agents())[0].id
    try:
        times = await measure(args.base_url, args.agent, args.runs)
    finally:
        if demo is not None:
            await demo.stop()
    server = "demo server" if demo is not None else args.base_url
    declared, plain = body_size(declarations()), body_size([])
    print(f"server: {server}, {args.runs} runs each, median (min-max)")
    print(f"request body: {plain:,} bytes without the tools, {declared:,} with them "
          f"(+{declared - plain:,} bytes)")
    for what in ("first", "total"):
        label = "time to first chunk" if what == "first" else "time to the end"
        for kind in ("none", "declared"):
            values = [value * 1000 for value in times[f"{kind} {what}"]]
            print(f"{label:>20}, {'declared' if kind == 'declared' else 'not declared':>12}: "
                  f"{statistics.median(values):7.1f} ms ({min(values):.1f}-{max(values):.1f})")


if __name__ == "__main__":
    asyncio.run(main())
