"""CPU of streaming one reply at a model's pace, by the shape of its Markdown.

Run: python bench/bench_reply_shapes.py [--items N] [--rate R] [--shapes a,b]

The real app runs headless at 120x40 on the embedded demo server (as ``bench_ui.py``), and
one reply is fed to its chat as a live turn, ``--rate`` chunks a second (a real model sends
50-150), in token-sized chunks. Each shape has ``--items`` parts: paragraphs, items of a
bullet list or of a numbered list, numbered steps with two sub-bullets each, two lines of
code in a fence, lines of a block quote, table rows.

Textual parses a streamed document's last block again at every write, so a list or a table
costs more at each item; paragraphs are the baseline. Reported per shape: CPU seconds and
as a share of the wall time, the garbage collector's total and longest pause (the longest
is the worst stall of the screen it caused). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

from bench_ui import AGENT, SIZE, open_chat, origin, settle, stream_reply

from openletta.api.messages import Message, parse_message
from openletta.demo import chunks
from openletta.demo.ids import message_date, new_id, new_message_id, utc_now
from openletta.settings import Settings
from openletta.ui.app import OpenLettaApp

LINE = "a point with a few words in it, and **bold** too"
SHAPES = {
    "paragraphs": lambda n: "".join(f"Part {i}: {LINE}.\n\n" for i in range(n)),
    "bullets": lambda n: "Here:\n\n" + "".join(f"- item {i}: {LINE}\n" for i in range(n)),
    "numbered": lambda n: "Steps:\n\n" + "".join(f"{i + 1}. step {i}: {LINE}\n"
                                                 for i in range(n)),
    "nested": lambda n: "Plan:\n\n" + "".join(
        f"{i + 1}. **Step {i}**\n   - {LINE}\n   - and `code` too\n" for i in range(n)),
    "code": lambda n: "```python\n" + "".join(f"def step_{i}(x: int) -> int:\n    return x + {i}\n"
                                             for i in range(n)) + "```\n",
    "quote": lambda n: "".join(f"> {LINE}, line {i}\n" for i in range(n)),
    "table": lambda n: "| part | what | note |\n|---|---|---|\n" + "".join(
        f"| {i} | {LINE} | **x** |\n" for i in range(n)),
}


def reply(markdown: str) -> list[Message]:
    """``markdown`` as the token chunks of one assistant message, then the turn's end."""
    message_id, step, run = new_message_id(), new_id("step"), new_id("run")
    date = message_date(utc_now())
    answer = chunks.text_tokens(markdown)
    usage = chunks.Usage()
    usage.add_step(2_000, len(answer), 0)
    rows = [chunks.assistant(origin(message_id, 1, step, run, date), token)
            for token in answer]
    rows += [chunks.stop_reason("end_turn"), usage.chunk()]
    return [parse_message(row) for row in rows]


async def measure(shape: str, items: int, rate: float) -> str:
    """Stream one reply of ``shape`` into a fresh app; its figures, as a line."""
    app = OpenLettaApp(demo=True, agent=AGENT, demo_speed=0, settings=Settings(),
                       tune_gc=True)
    pauses: list[float] = []

    def timed(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            pauses.append(time.perf_counter())
        else:
            pauses[-1] = time.perf_counter() - pauses[-1]

    async with app.run_test(size=SIZE):
        screen = await open_chat(app)
        await settle(screen.view)
        gc.callbacks.append(timed)
        try:
            figures = await stream_reply(screen, reply(SHAPES[shape](items)), rate)
        finally:
            gc.callbacks.remove(timed)
    longest = max(pauses, default=0)
    return (f"{shape:>10} x{items}: {figures.chunks:4} chunks in {figures.wall:5.1f} s, "
            f"CPU {figures.cpu:5.2f} s ({figures.cpu / figures.wall:4.0%}), "
            f"GC {sum(pauses) * 1000:4.0f} ms, longest pause {longest * 1000:3.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--rate", type=float, default=100, help="chunks a second")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args()
    for shape in args.shapes.split(","):
        print(asyncio.run(measure(shape, args.items, args.rate)), flush=True)


if __name__ == "__main__":
    main()
