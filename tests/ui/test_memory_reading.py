"""The memory panel is never silently blank: its status line says a read is under way, and
why one failed, also for a failure no one expected (which is reported as a worker's is)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from chat_helpers import open_chat
from test_app import SIZE
from test_memory_panel import blocks
from textual.pilot import Pilot

from openletta.api.resources import Block
from openletta.ui.memory_panel import MemoryPanel

ReadBlocks = Callable[[str], Awaitable[list[Block]]]


def status(panel: MemoryPanel) -> str:
    return str(panel.query_one(".memory-status").render())


@contextlib.asynccontextmanager
async def opened_reading_with(read: Callable[[ReadBlocks], ReadBlocks], demo_server,
                              make_app, wait_until, monkeypatch: pytest.MonkeyPatch
                              ) -> AsyncIterator[tuple[Pilot[None], MemoryPanel]]:
    """The panel opened (F2) in the demo chat, its blocks read by ``read(the client's read)``."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        client = screen.session.client
        monkeypatch.setattr(client, "list_blocks", read(client.list_blocks))
        await pilot.press("f2")
        assert screen.memory is not None
        yield pilot, screen.memory


async def test_the_status_line_says_the_blocks_are_being_read(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    release = asyncio.Event()

    def held(list_blocks: ReadBlocks) -> ReadBlocks:
        async def slow(agent_id: str) -> list[Block]:
            await release.wait()
            return await list_blocks(agent_id)
        return slow

    async with opened_reading_with(held, demo_server, make_app, wait_until,
                                   monkeypatch) as (pilot, panel):
        await wait_until(pilot, lambda: status(panel) == "Reading the memory…",
                         what="the read under way")
        release.set()
        await wait_until(pilot, lambda: status(panel) == "2 blocks", what="the blocks")
        assert set(blocks(panel)) == {"human", "persona"}


async def test_an_unexpected_failure_of_the_read_is_said_and_reported(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_list_blocks: ReadBlocks) -> ReadBlocks:
        async def failing(_agent_id: str) -> list[Block]:
            raise RuntimeError("pool in a bad state\nsecond line")
        return failing

    async with opened_reading_with(broken, demo_server, make_app, wait_until,
                                   monkeypatch) as (pilot, panel):
        await wait_until(pilot, lambda: status(panel) == (
            "Could not read the memory: RuntimeError: pool in a bad state"),
            what="the failure in the status line")
        await wait_until(pilot, lambda: any(
            "Unexpected error" in str(toast.message) and "pool in a bad state" in
            str(toast.message) for toast in pilot.app._notifications),
            what="the failure reported")
        assert not blocks(panel)
