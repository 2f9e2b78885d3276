"""Markdown written as it streams, at a pace that leaves the app time for everything else."""

from __future__ import annotations

import asyncio
import time
from contextlib import suppress

from textual.widgets import Markdown


class PacedStream:
    """Writes fragments to a Markdown document as Textual's ``MarkdownStream`` does (those
    that come while a write renders are joined into the next), but rests after each write
    as long as the write took.

    A write parses the document's last block again: a short paragraph takes a few
    milliseconds, and the rest after it goes unseen; a long list or table grows dearer with
    every item, and rendering it at every fragment kept the app busy all the time the reply
    streamed. Resting as long as each write took keeps writes to about half the time, and
    the screen still follows the reply many times a second.
    """

    def __init__(self, document: Markdown) -> None:
        self._document = document
        self._pending: list[str] = []
        self._written = asyncio.Event()
        self._writing: asyncio.Future[None] | None = None
        self._task = asyncio.create_task(self._run())

    @property
    def pending(self) -> bool:
        """Whether fragments wait for the next write."""
        return bool(self._pending)

    async def write(self, fragment: str) -> None:
        """Add ``fragment`` to the end of the document, now or with the next write."""
        if fragment:
            self._pending.append(fragment)
            self._written.set()
        await asyncio.sleep(0)  # let a resting writer see it

    async def stop(self) -> None:
        """Write what is pending at once (after the write under way), and stop."""
        self._task.cancel()
        with suppress(asyncio.CancelledError):
            await self._task
        if self._writing is not None:  # Markdown reads where to parse from as a write is
            await self._writing        # asked for: one at a time, or blocks are doubled
        if rest := self._take():
            await self._document.append(rest)

    async def _run(self) -> None:
        while True:
            await self._written.wait()
            started = time.monotonic()
            self._writing = asyncio.ensure_future(self._document.append(self._take()))
            await asyncio.shield(self._writing)
            await asyncio.sleep(time.monotonic() - started)

    def _take(self) -> str:
        fragments = "".join(self._pending)
        self._pending.clear()
        self._written.clear()
        return fragments
