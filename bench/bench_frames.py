"""The screen work one turn costs, counted: frames, layouts, widgets and lines rendered.

Run: python bench/bench_frames.py [--warm N] [--turns N]

CPU seconds on a shared 2-core machine move by 20 % from one run to the next; these counts
do not (they move only when the turn is paced differently, by a frame or two). They are what
the CPU figures of ``bench_stream_cpu.py`` are made of, so a change that saves work shows
here whatever the machine is doing.

The real app runs headless at 120x40 against the embedded demo server, and a sent message
is answered by replaying a stream recorded from a real Letta server at its recorded pace
(``bench_stream_cpu.ReplayServer``: ``hello``, ``slow``, ``long``). After ``--warm`` short
turns (so the chat scrolls, as it does once a session is under way), each recording is sent
``--turns`` times and every count is divided by ``--turns``:

* **frames**: screen updates (``Screen._on_timer_update``);
* **layouts**: screen layouts (each arranges every mounted widget);
* **arrangements**: whole-screen arrangements (a layout makes one; more is waste);
* **widget renders**: widgets asked for their lines by the compositor;
* **lines rendered**: widget lines rendered anew (not from a widget's line cache);
* **restyles**: widgets styled again after a class or pseudo-class change.

Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
from collections.abc import Callable
from typing import Any

from bench_stream_cpu import ReplayServer, load, renewed  # this script's folder is on the path
from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widget import Widget

from openletta.settings import Settings
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.chat import ChatScreen

SIZE = (120, 40)
RECORDINGS = ("hello", "slow", "long")


class Counts:
    """Calls of a few of Textual's methods, counted while :attr:`on`."""

    def __init__(self) -> None:
        self.on = False
        self.calls: collections.Counter[str] = collections.Counter()

    def count(self, owner: type, method: str, name: str,
              weight: Callable[..., int] = lambda *args, **kwargs: 1) -> None:
        original = getattr(owner, method)

        def counted(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.calls[name] += weight(*args, **kwargs)
            return original(*args, **kwargs)

        setattr(owner, method, counted)


def counting() -> Counts:
    counts = Counts()
    counts.count(Screen, "_on_timer_update", "frames")
    counts.count(Screen, "_refresh_layout", "layouts")
    counts.count(Compositor, "_arrange_root", "arrangements")
    counts.count(Widget, "render_lines", "widget renders")
    counts.count(StylesCache, "render_line", "lines rendered")
    counts.count(Stylesheet, "update_nodes", "restyles",
                 weight=lambda self, nodes, *args, **kwargs: len(list(nodes)))
    return counts


async def measure(recording: str, warm: int, turns: int, counts: Counts) -> dict[str, float]:
    server = ReplayServer()
    base_url = await server.start()
    counts.calls.clear()
    app = OpenLettaApp(base_url=base_url, agent="demo-agent", settings=Settings())
    try:
        async with app.run_test(size=SIZE) as pilot:
            while not isinstance(app.screen, ChatScreen):
                await pilot.pause()
            screen = app.screen
            await asyncio.sleep(1)
            for index in range(warm + turns):
                server.queue.append(renewed(load("hello" if index < warm else recording)))
                server.done.clear()
                screen.prompt.text = f"{recording} {index}"
                counts.on = index >= warm
                await pilot.press("enter")
                await server.done.wait()
                await asyncio.sleep(0.5)  # the turn's end: footer, status, last frames
                counts.on = False
    finally:
        await server.stop()
    return {name: value / turns for name, value in counts.calls.items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", type=int, default=10, help="short turns before counting")
    parser.add_argument("--turns", type=int, default=3, help="turns counted per recording")
    options = parser.parse_args()
    counts = counting()
    names = ("frames", "layouts", "arrangements", "widget renders", "lines rendered",
             "restyles")
    print(f"per turn, after {options.warm} short turns ({SIZE[0]}x{SIZE[1]}, headless)")
    print(f"{'':8}" + "".join(f"{name:>16}" for name in names))
    for recording in RECORDINGS:
        figures = await measure(recording, options.warm, options.turns, counts)
        print(f"{recording:8}" + "".join(f"{figures.get(name, 0):16.0f}" for name in names))


if __name__ == "__main__":
    asyncio.run(main())
