"""What a launch costs before the chat shows, in two parts measured apart from the terminal.

Run: python bench/bench_startup.py [--imports N] [--apps N]

* **import**: the wall time of importing what ``python -m openletta`` imports before the app
  runs (``openletta.cli``, then ``openletta.ui.launch``), the collector paused as the command
  line pauses it, each in a fresh Python that writes and reads its bytecode cache and, as
  the command line does, the code earlier launches compiled (``openletta.compiled_code``); the
  quickest and the median of ``--imports`` processes, and the modules loaded.
* **start**: the CPU time of one process from making the app until its chat shows the newest
  reply of its history (a greeting the demo agent gave), headless at 120x40, against the
  embedded demo server running in the same process (its answers count too), with the styles
  an earlier app parsed as a launch keeps them (``parsed_css_kept``); the quickest and
  the median of ``--apps`` apps, one after another in that process (the first ones warm up
  what a process does once, and are left out).

Both leave out what a terminal adds (``bench_stream_cpu.py``'s launch measures the whole, a
figure a shared machine moves by 10 %), so that a change of a few milliseconds shows. Nothing
is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time

#: Apps started before the ones measured.
WARM_UP = 3
SIZE = (120, 40)
#: As the command line imports: with what an earlier launch compiled (when the code keeps it).
IMPORT = """
import contextlib, gc, sys, time
gc.disable()
started = time.perf_counter()
try:
    from openletta.compiled_code import compiled_code_kept as kept
except ImportError:
    kept = contextlib.nullcontext
with kept():
    import openletta.cli
    import openletta.ui.launch
print(time.perf_counter() - started, len(sys.modules))
"""


def import_times(count: int) -> tuple[list[float], int]:
    """Seconds each of ``count`` fresh processes took to import the app; the modules loaded."""
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONDONTWRITEBYTECODE"}
    times, modules = [], 0
    for _ in range(count + 1):  # the first may write the bytecode cache
        out = subprocess.run([sys.executable, "-c", IMPORT], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        times.append(float(out[0]))
        modules = int(out[1])
    return times[1:], modules


async def start_times(count: int) -> list[float]:
    """CPU seconds of each of ``count`` apps from their making until the chat shows."""
    from openletta.demo import DemoServer
    from openletta.ui.app import OpenLettaApp
    from openletta.ui.screens.chat import ChatScreen
    from openletta.ui.widgets.assistant import AssistantMessage

    def chat_shown(app: OpenLettaApp) -> bool:
        screen = app.screen
        return isinstance(screen, ChatScreen) and any(
            reply.children for reply in screen.query(AssistantMessage))

    async def one(base_url: str) -> float:
        gc.collect()
        gc.disable()
        started = time.process_time()
        app = OpenLettaApp(base_url=base_url, agent="demo-agent")
        with styles_kept():
            async with app.run_test(size=SIZE) as pilot:
                while not chat_shown(app):
                    await pilot.pause()
                await pilot.pause()  # the frame that shows it
                used = time.process_time() - started
        gc.enable()
        return used

    server = DemoServer(speed=0)
    base_url = await server.start()
    try:
        app = OpenLettaApp(base_url=base_url, agent="demo-agent")
        async with app.run_test(size=SIZE) as pilot:  # a history: "hello" and its answer
            while not isinstance(app.screen, ChatScreen):
                await pilot.pause()
            await pilot.press(*"hello", "enter")
            while not chat_shown(app):
                await pilot.pause()
        return [await one(base_url) for _ in range(WARM_UP + count)][WARM_UP:]
    finally:
        await server.stop()


def styles_kept() -> contextlib.AbstractContextManager[object]:
    """The styles an earlier app parsed, as a launch takes them (when the code keeps them)."""
    try:
        from openletta.settings import cache_dir
        from openletta.ui.textual_internals import parsed_css_kept
    except ImportError:
        return contextlib.nullcontext()
    return parsed_css_kept(cache_dir() / "styles.pickle")


def line(name: str, seconds: list[float]) -> str:
    return (f"{name:8s} quickest {1000 * min(seconds):6.1f} ms   "
            f"median {1000 * statistics.median(seconds):6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--imports", type=int, default=15, help="fresh processes importing")
    parser.add_argument("--apps", type=int, default=15, help="apps started in one process")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as config:  # settings, drafts and what is compiled
        os.environ["OPENLETTA_CONFIG_DIR"] = config
        times, modules = import_times(options.imports)
        print(line("import", times) + f"   {modules} modules")
        print(line("start", asyncio.run(start_times(options.apps))))


if __name__ == "__main__":
    main()
