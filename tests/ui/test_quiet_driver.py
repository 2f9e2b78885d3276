"""The Linux driver's input thread: reads and parses keys, sleeps while nothing comes, and
ends as soon as the driver stops it."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable

from textual import events
from textual.app import App
from textual.message import Message

from openletta.ui.textual_internals import INPUT_GRACE, QuietLinuxDriver


class RecordingDriver(QuietLinuxDriver):
    """Reads from a pipe instead of the terminal and keeps the events it would post."""

    def __init__(self, fileno: int) -> None:
        super().__init__(App())
        self.fileno = fileno
        self.received: list[Message] = []

    def process_message(self, message: Message) -> None:
        self.received.append(message)


def keys(driver: RecordingDriver) -> list[str]:
    return [event.key for event in driver.received if isinstance(event, events.Key)]


async def wait_for(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_input_is_parsed_a_lone_escape_arrives_and_stopping_ends_the_thread() -> None:
    read_end, write_end = os.pipe()
    driver = RecordingDriver(read_end)
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        os.write(write_end, b"hi")
        await wait_for(lambda: keys(driver) == ["h", "i"])
        os.write(write_end, b"\x1b")  # reported only once no more bytes follow it
        await wait_for(lambda: keys(driver) == ["h", "i", "escape"])
        # The thread must sleep past its grace period to show it still wakes for input.
        await asyncio.sleep(INPUT_GRACE + 0.2)
        os.write(write_end, "é".encode())
        await wait_for(lambda: keys(driver)[-1:] == ["é"])
        await asyncio.sleep(INPUT_GRACE + 0.2)
        driver.exit_event.set()  # as Textual's disable_input does
        thread.join(timeout=1.0)
        assert not thread.is_alive()
    finally:
        driver.exit_event.set()
        driver.close()
        os.close(read_end)
        os.close(write_end)
