"""The Linux driver's input thread: reads and parses keys, takes bracketed pastes whole,
sleeps while nothing comes, and ends as soon as the driver stops it."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from textual.app import App
from textual.message import Message

from openletta.ui.bracketed_paste import PASTE_END, PASTE_START, Pasted, PasteSplitter
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


async def test_a_paste_arrives_whole_in_order_and_with_its_escapes() -> None:
    """Textual's parser replays an ESC in a paste as keys, ahead of the paste; here the paste
    goes around it, its end marker and a character cut by the end of a read too."""
    read_end, write_end = os.pipe()
    driver = RecordingDriver(read_end)
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        for data in (b"a\x1b[200~abc\x1b[31mdef\r\xe4\xb8", b"\xad\x1b[20", b"1~z"):
            os.write(write_end, data)
            await asyncio.sleep(0.05)  # (most likely read apart; read together, the same)
        await wait_for(lambda: keys(driver)[-1:] == ["z"])
        assert [(type(event).__name__, getattr(event, "key", getattr(event, "text", None)))
                for event in driver.received] == [
            ("Key", "a"), ("Paste", "abc\x1b[31mdef\r中"), ("Key", "z")]
    finally:
        driver.exit_event.set()
        thread.join(timeout=1.0)
        driver.close()
        os.close(read_end)
        os.close(write_end)


KEYS = st.lists(st.sampled_from(["a", "\x1b", "\x1b[", "\x1b[2", "\x1b[20", "\x1b[A", "[", "~",
                                 "0", "é"]), max_size=6).map("".join).filter(
    lambda keys: PASTE_START not in keys)
PASTES = st.lists(st.sampled_from(["b", "\x1b", "\x1b[", "\x1b[20", "\x1b[200~", "\x1b[31m",
                                   "\x00", "\r", "中"]), max_size=6).map("".join)


@settings(max_examples=300)
@given(segments=st.lists(st.tuples(KEYS, PASTES), max_size=4), tail=KEYS, data=st.data())
def test_pastes_come_whole_and_in_order_however_the_input_is_cut(
        segments: list[tuple[str, str]], tail: str, data: st.DataObject) -> None:
    stream = "".join(keys + PASTE_START + paste + PASTE_END for keys, paste in segments) + tail
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    splitter = PasteSplitter()
    parts = [part for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True)
             for part in splitter.feed(stream[start:end])]
    expected: list[str | Pasted] = []
    for keys, paste in segments:
        expected += [keys + PASTE_START, PASTE_END, Pasted(paste.replace("\x00", ""))]
    expected.append(tail)
    assert joined(parts) == joined(expected)


def joined(parts: list[str | Pasted]) -> list[str | Pasted]:
    """``parts`` with the text for the parser run together (where a read cut it is not the
    parser's business) and empty texts left out."""
    result: list[str | Pasted] = []
    for part in parts:
        if isinstance(part, str) and result and isinstance(result[-1], str):
            result[-1] += part
        elif part != "":
            result.append(part)
    return result
