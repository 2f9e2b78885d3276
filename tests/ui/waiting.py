"""Waiting in Pilot tests for a condition, never for a length of time.

A fixed pause is both too long (it always costs its time) and too short (under load the app
may not be done yet). :func:`wait_until` runs the app until what the test needs holds, and
fails with ``what`` when it does not within ``timeout``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.pilot import Pilot


async def wait_until(pilot: Pilot[object], condition: Callable[[], object], *,
                     timeout: float = 5.0, what: str = "condition") -> None:
    """Run the app until ``condition()`` is true; ``AssertionError`` naming ``what`` if it is
    not within ``timeout`` seconds.

    Between checks the app's message queues are drained (``pilot.pause()`` without a delay),
    so timers, workers and layouts of the app get to run. ``condition`` is checked first, so
    a condition that already holds costs nothing.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await pilot.pause()
