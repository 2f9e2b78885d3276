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

    async def append(self, text: str) -> None:
        self.writes.append(text)
        await self.released.wait()


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
