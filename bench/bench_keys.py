"""How long keys that change styles take with a long reply on screen.

Run: python bench/bench_keys.py [--items N] [--rounds R]

The real app runs headless at 120x40 on the embedded demo server (as ``bench_ui.py``), with
one reply on screen whose last block is a bullet list of ``--items`` items (streamed in
fast, as ``bench_reply_shapes.py`` streams one). Then, ``--rounds`` times each: the focus
goes to the reply and back to the prompt (as a click and Esc do: the view does not scroll),
F2 opens and closes the memory panel, Ctrl+T shows and hides internal items. Each action is
timed from the call until the screen has painted it, and the nodes the stylesheet styled
again for it are counted (a class or focus that changes styles all inside the widget that
has it, unless the app says otherwise: about a millisecond a node). Medians are printed;
nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench_reply_shapes import SHAPES, reply
from bench_ui import AGENT, SIZE, open_chat, settle, stream_reply
from textual.dom import DOMNode

from openletta.settings import Settings
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets import AssistantMessage


def counting_styles(app: OpenLettaApp) -> list[DOMNode]:
    """The nodes the stylesheet styles from now on (a list that grows)."""
    styled: list[DOMNode] = []
    apply = app.stylesheet.apply

    def counted(node: DOMNode, **options: Any) -> None:
        styled.append(node)
        apply(node, **options)

    app.stylesheet.apply = counted  # type: ignore[method-assign]
    return styled


def actions(app: OpenLettaApp, screen: ChatScreen) -> dict[str, Callable[[], Any]]:
    """Each action to time, by name: a call that starts it."""
    message = screen.view.scroll.query(AssistantMessage).last()
    return {
        "focus the reply": lambda: message.focus(scroll_visible=False),
        "back to the prompt": lambda: screen.prompt.focus(),
        "F2 opens memory": lambda: app.simulate_key("f2"),
        "F2 closes memory": lambda: app.simulate_key("f2"),
        "Ctrl+T shows internal": lambda: app.simulate_key("ctrl+t"),
        "Ctrl+T hides internal": lambda: app.simulate_key("ctrl+t"),
    }


async def measure(items: int, rounds: int) -> None:
    app = OpenLettaApp(demo=True, agent=AGENT, demo_speed=0, settings=Settings(),
                       tune_gc=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(app)
        await settle(screen.view)
        await stream_reply(screen, reply(SHAPES["bullets"](items)), rate=5000)
        await settle(screen.view)
        styled = counting_styles(app)
        times: dict[str, list[float]] = {}
        nodes: dict[str, list[int]] = {}
        for _ in range(rounds):
            for name, action in actions(app, screen).items():
                styled.clear()
                started = time.perf_counter()
                action()
                await pilot.pause()
                await screen.wait_for_refresh()
                times.setdefault(name, []).append(time.perf_counter() - started)
                nodes.setdefault(name, []).append(len(styled))
        print(f"a reply whose last block is a {items}-item list, {rounds} rounds:")
        for name, seconds in times.items():
            print(f"  {name:<22} {statistics.median(seconds) * 1000:5.0f} ms, "
                  f"{statistics.median(nodes[name]):4.0f} nodes styled")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(measure(args.items, args.rounds))


if __name__ == "__main__":
    main()
