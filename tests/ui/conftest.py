"""Fixtures for the UI tests: an embedded demo server, isolated settings, local tools, a
health check held back, a wait helper."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
import waiting

from openletta.api.client import LettaClient
from openletta.chat.local_calls import LocalCalls
from openletta.demo import DemoServer
from openletta.settings import Settings
from openletta.tools.base import Workspace
from openletta.tools.permissions import Permissions, ProjectRules
from openletta.ui.app import OpenLettaApp
from openletta.ui.dates import Clock

#: A fixed "now" so relative times on screen do not depend on the clock.
FIXED_NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


@dataclass
class RunningDemo:
    """A demo server started in the test's event loop."""

    server: DemoServer
    base_url: str


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep settings written by the app out of the user's real config directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("LETTA_BASE_URL", "LETTA_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


async def _running(server: DemoServer) -> AsyncIterator[RunningDemo]:
    base_url = await server.start()
    try:
        yield RunningDemo(server, base_url)
    finally:
        await server.stop()


@pytest.fixture
async def demo_server() -> AsyncIterator[RunningDemo]:
    """The embedded demo server at full speed (no artificial delays) on a free port."""
    async for running in _running(DemoServer(speed=0)):
        yield running


@pytest.fixture
async def long_history() -> AsyncIterator[RunningDemo]:
    """The demo server with 300 messages of history for its demo agent (several pages)."""
    async for running in _running(DemoServer(speed=0, history_messages=300)):
        yield running


AppFactory = Callable[..., OpenLettaApp]
Waiter = Callable[..., Awaitable[None]]


@pytest.fixture
def fixed_clock() -> Clock:
    """A clock that always says :data:`FIXED_NOW`."""
    return lambda: FIXED_NOW


@pytest.fixture
def make_app(fixed_clock: Clock) -> AppFactory:
    """Build the real app with fresh settings and a fixed clock: ``make_app(base_url=…)``."""

    def build(**options: object) -> OpenLettaApp:
        return OpenLettaApp(settings=Settings(), clock=fixed_clock,
                            **options)  # type: ignore[arg-type]

    return build


@pytest.fixture
def local(tmp_path: Path) -> LocalCalls:
    """Local tools run in a project folder holding ``hello.txt``, with no rules yet."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "hello.txt").write_text("hi from the test folder\n")
    return LocalCalls(Permissions(Workspace(root),
                                  project_rules=ProjectRules(tmp_path / "rules.toml")))


@pytest.fixture
def held_health(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The health check waits until the event returned is set."""
    release = asyncio.Event()
    health = LettaClient.health

    async def held(client: LettaClient) -> object:
        await release.wait()
        return await health(client)

    monkeypatch.setattr(LettaClient, "health", held)
    return release


@pytest.fixture
def wait_until() -> Waiter:
    """``await wait_until(pilot, condition, what=…)``: run the app until it holds; fail if it
    never does (:func:`waiting.wait_until`)."""
    return waiting.wait_until
