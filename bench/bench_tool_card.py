"""CPU of a tool card while a large file write streams into it, per sync with its frame.

Run: python bench/bench_tool_card.py [--syncs N] [--lines N]
The card is drawn from the call as far as it arrived at every sync (about 30 a second in
the app): its title (path, size) changes each time, the first lines of the file soon stop
changing. Stop 52 measured 17-18 ms a sync for a 56 KB write; before that, 26-29 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "ui"))

from widget_app import ItemsApp

from openletta.transcript import ToolCallItem, ToolStatus


async def streamed(arguments: str, syncs: int) -> tuple[float, float]:
    """CPU ms per sync: the card's own work, and with the frame that shows it."""
    item = ToolCallItem(key="k", name="write_file", status=ToolStatus.STREAMING)
    app = ItemsApp([item])
    async with app.run_test(size=(120, 40)) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        syncing, started = 0.0, time.process_time()
        for step in range(1, syncs + 1):
            item.arguments_text = arguments[: len(arguments) * step // syncs]
            before = time.process_time()
            card.sync()
            syncing += time.process_time() - before
            await pilot.pause()
        whole = time.process_time() - started
    return syncing * 1000 / syncs, whole * 1000 / syncs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--syncs", type=int, default=200)
    parser.add_argument("--lines", type=int, default=1500)
    args = parser.parse_args()
    content = "".join(f"line {number}: some text here with words\n"
                      for number in range(args.lines))
    arguments = json.dumps({"path": "/a/b.py", "content": content})
    card, frame = asyncio.run(streamed(arguments, args.syncs))
    print(f"a {len(arguments):,}-byte write streamed in {args.syncs} syncs")
    print(f"the card's sync:       {card:6.2f} ms CPU")
    print(f"sync with its frame:   {frame:6.2f} ms CPU")


if __name__ == "__main__":
    main()
