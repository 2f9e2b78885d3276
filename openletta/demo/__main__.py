"""``python -m openletta.demo``: run the demo server until Ctrl-C and print its URL."""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from openletta.demo.server import DemoServer


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m openletta.demo",
                                     description="Run openletta's embedded demo server.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="delay factor for streaming (0 = as fast as possible)")
    parser.add_argument("--history-messages", type=int, default=0,
                        help="give the first agent a generated history of N messages")
    parser.add_argument("--pending-approval", action="store_true",
                        help="start with the first agent waiting for a tool approval")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    server = DemoServer(port=args.port, speed=args.speed,
                        history_messages=args.history_messages,
                        pending_approval=args.pending_approval)
    base_url = await server.start()
    print(f"openletta demo server on {base_url}  (LETTA_BASE_URL={base_url}; Ctrl-C stops)",
          flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


def main(argv: list[str] | None = None) -> None:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(parse_args(argv)))


if __name__ == "__main__":
    main()
