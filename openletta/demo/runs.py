"""Runs: the server side of one request, buffering the SSE frames it produces.

The producer (see :mod:`openletta.demo.turns`) appends frames; HTTP responses follow them
live. A foreground run has one follower, the response that started it, and drops frames as
they are sent. A background run numbers its message chunks with ``seq_id`` 1, 2, … and
keeps every frame so ``POST /v1/runs/{id}/stream`` can replay ``seq_id > starting_after``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from datetime import datetime

from openletta.demo import chunks
from openletta.demo.chunks import Chunk


@dataclass(eq=False)
class Run:
    id: str
    agent_id: str
    conversation_id: str | None
    background: bool
    created_at: datetime
    include_pings: bool = True
    status: str = "created"
    stop_reason: str | None = None
    completed_at: datetime | None = None
    finished: bool = False
    cancel_requested: bool = False
    frames: list[tuple[int | None, bytes]] = field(default_factory=list)
    #: One record per LLM step (``GET /v1/runs/{id}/steps``).
    steps: list[Chunk] = field(default_factory=list)
    _seq: int = 0
    _followers: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def emit(self, chunk: Chunk) -> None:
        """Send a message chunk (background runs number it with ``seq_id``)."""
        seq = None
        if self.background and "seq_id" in chunk:
            self._seq += 1
            seq = self._seq
            chunk = {**chunk, "seq_id": seq}
        self._append(seq, chunks.data_frame(chunk))

    def emit_frame(self, frame: bytes) -> None:
        """Send an encoded frame that carries no ``seq_id`` (stop reason, usage, [DONE])."""
        self._append(None, frame)

    def finish(self, status: str, stop_reason: str, at: datetime) -> None:
        self.status, self.stop_reason, self.completed_at = status, stop_reason, at
        self.finished = True
        if not self.background and not self._followers:
            self.frames.clear()
        self._wake()

    async def follow(self, *, starting_after: int = 0, keepalive: float = 20.0,
                     date: Callable[[], str]) -> AsyncGenerator[bytes, None]:
        """Frames as they come (several joined when they are already there), with a ping
        after every ``keepalive`` seconds of silence; ends with the run."""
        self._followers += 1
        index = 0
        try:
            while True:
                if index < len(self.frames):
                    batch = [frame for seq, frame in self.frames[index:]
                             if seq is None or seq > starting_after]
                    index = self._consumed(len(self.frames))
                    if batch:
                        yield b"".join(batch)
                    continue
                if self.finished:
                    return
                try:
                    await asyncio.wait_for(self._changed.wait(), keepalive)
                except TimeoutError:
                    if self.include_pings:
                        yield chunks.data_frame(chunks.ping(self.id, date()))
        finally:
            self._followers -= 1
            if self.finished and not self.background:
                self.frames.clear()

    def _consumed(self, upto: int) -> int:
        """Forget sent frames of a foreground run; return where reading goes on."""
        if self.background:
            return upto
        del self.frames[:upto]
        return 0

    def _append(self, seq: int | None, frame: bytes) -> None:
        self.frames.append((seq, frame))
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
