"""Whether a long reply costs more as a session goes on: the same reply, turn after turn.

Run: python bench/bench_session_growth.py [--turns N] [--rate R]

The real app runs headless at 120x40 on the embedded demo server (as ``bench_ui.py``), and
one long Markdown reply (a heading, paragraphs, a bullet list, a code fence, a table and a
numbered list) is fed to its chat as a live turn ``--turns`` times, ``--rate`` chunks a
second, each once the last is painted. Printed per turn: the CPU of the turn, the time of
the garbage collector's young and middle collections in it (the full collection the bench
runs before each turn left out), and the items and widgets mounted in the chat after it. Then the
median of the first four turns against the last four (goal of issue 21: no more).
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

from bench_reply_shapes import SHAPES, reply
from bench_ui import AGENT, SIZE, open_chat, settle, stream_reply

from openletta.settings import Settings
from openletta.ui.app import OpenLettaApp

LONG = ("# A long reply\n\n" + SHAPES["paragraphs"](6) + SHAPES["bullets"](12) + "\n"
        + SHAPES["code"](8) + "\n" + SHAPES["table"](6) + "\n" + SHAPES["numbered"](8))


async def measure(turns: int, rate: float) -> None:
    app = OpenLettaApp(demo=True, agent=AGENT, demo_speed=0, settings=Settings(),
                       tune_gc=True)
    collecting = [0.0, 0.0]  # total, start of the one under way

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[1] = time.perf_counter()
        elif info["generation"] < 2:
            collecting[0] += time.perf_counter() - collecting[1]

    async with app.run_test(size=SIZE):
        screen = await open_chat(app)
        await settle(screen.view)
        gc.callbacks.append(timed)
        spent: list[float] = []
        try:
            for turn in range(1, turns + 1):
                collected = collecting[0]
                figures = await stream_reply(screen, reply(LONG), rate)
                mounted = await settle(screen.view)
                spent.append(figures.cpu)
                print(f"turn {turn:2}: CPU {figures.cpu:5.3f} s, GC "
                      f"{(collecting[0] - collected) * 1000:3.0f} ms, {mounted:3} items, "
                      f"{len(list(screen.view.scroll.walk_children())):4} widgets mounted",
                      flush=True)
        finally:
            gc.callbacks.remove(timed)
    first, last = statistics.median(spent[:4]), statistics.median(spent[-4:])
    print(f"first four {first:.3f} s, last four {last:.3f} s: {last / first:.2f}x "
          f"(goal <= 1.0x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=14)
    parser.add_argument("--rate", type=float, default=400, help="chunks a second")
    args = parser.parse_args()
    asyncio.run(measure(args.turns, args.rate))


if __name__ == "__main__":
    main()
