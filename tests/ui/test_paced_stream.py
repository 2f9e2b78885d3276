"""The paced Markdown stream: fragments that come during a write go into the next one, and
stopping writes what is left at once."""

from __future__ import annotations

import asyncio

from openletta.ui.widgets.paced_stream import PacedStream


class Document:
    """Stands for a Markdown document: records writes; each one lasts until ``release``."""

    def __init__(self) -> None:
        self.writes: list[str] = []
        self.released = asyncio.Event()
        self.writing = self.overlapped = False

    async def append(self, text: str) -> None:
        self.overlapped |= self.writing
        self.writing = True
        self.writes.append(text)
        await self.released.wait()
        self.writing = False


async def until(condition) -> None:
    while not condition():
        await asyncio.sleep(0)


async def test_fragments_that_come_during_a_write_are_written_together_next() -> None:
    document = Document()
    stream = PacedStream(document)  # type: ignore[arg-type]
    await stream.write("a")
    await until(lambda: document.writes == ["a"])
    await stream.write("b")
    await stream.write("c")
    assert stream.pending and document.writes == ["a"]  # the first write still renders
    document.released.set()
    await until(lambda: len(document.writes) == 2)
    assert document.writes == ["a", "bc"] and not stream.pending
    await stream.stop()
    assert document.writes == ["a", "bc"]


async def test_stopping_leaves_nothing_unwritten() -> None:
    document = Document()
    document.released.set()
    stream = PacedStream(document)  # type: ignore[arg-type]
    await stream.write("a")
    await until(lambda: document.writes == ["a"])
    await stream.write("")  # nothing to write: nothing pending
    assert not stream.pending
    await stream.write("b")
    await stream.stop()
    assert document.writes == ["a", "b"]


async def test_stopping_during_a_write_writes_the_rest_once_it_ends() -> None:
    """(Textual's Markdown reads where its last block began as a write is asked for: a write
    begun before the last one ended parsed from an older line, and doubled blocks.)"""
    document = Document()
    stream = PacedStream(document)  # type: ignore[arg-type]
    await stream.write("a")
    await until(lambda: document.writes == ["a"])
    await stream.write("b")
    stopping = asyncio.create_task(stream.stop())
    for _ in range(10):
        await asyncio.sleep(0)
    assert document.writes == ["a"] and not stopping.done()
    document.released.set()
    await stopping
    assert document.writes == ["a", "b"] and not document.overlapped
