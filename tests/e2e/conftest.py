"""End-to-end fixtures: a real Letta 0.16.8 server with the scripted fake model.

With ``LETTA_BASE_URL`` set, the tests use that server (and ``OPENLETTA_E2E_AGENT_ID`` as the
shared agent when given). Otherwise the session starts the harness
(``scripts/harness/harness.py``: installs on first use, a few minutes) and stops it at the end.
A server that cannot be installed or started fails the tests; they are never skipped.
Every test in this folder is marked ``e2e``: ``pytest -m "not e2e"`` leaves them out.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

E2E_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(E2E_DIR.parents[1] / "scripts" / "harness"))
sys.path.insert(0, str(E2E_DIR.parent))  # the shared test helpers (chat_fakes)

import harness  # noqa: E402
import setup_agent  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402

from openletta.chat import replies  # noqa: E402


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_DIR in item.path.parents:
            item.add_marker(pytest.mark.e2e)


@dataclass(frozen=True)
class LettaServer:
    """The server the end-to-end tests talk to."""

    base_url: str
    #: A shared agent on the fake model with the test tools.
    agent_id: str


def _start_harness() -> harness.Stack:
    try:
        return harness.start()
    except (harness.HarnessError, setup_agent.LettaRequestError) as error:
        pytest.fail(f"the Letta end-to-end server could not be started "
                    f"(harness dir {harness.default_directory()}):\n{error}", pytrace=False)


@pytest.fixture(scope="session")
def letta_server() -> Iterator[LettaServer]:
    """The running server: ``LETTA_BASE_URL``'s, or one the harness starts for the session."""
    base_url = os.environ.get("LETTA_BASE_URL", "").rstrip("/")
    if base_url:
        try:
            agent_id = (os.environ.get("OPENLETTA_E2E_AGENT_ID")
                        or setup_agent.ensure_test_agent(base_url))
        except setup_agent.LettaRequestError as error:
            pytest.fail(f"LETTA_BASE_URL={base_url} is not usable for end-to-end tests:\n"
                        f"{error}", pytrace=False)
        yield LettaServer(base_url, agent_id)
        return
    stack = _start_harness()
    try:
        yield LettaServer(stack.base_url, stack.agent_id)
    finally:
        if not stack.reused:  # a stack started by hand stays up
            harness.stop_stack(stack.directory)


@pytest.fixture(scope="session")
def letta_base_url(letta_server: LettaServer) -> str:
    """``http://127.0.0.1:PORT`` of the server, without a trailing slash."""
    return letta_server.base_url


@pytest.fixture(scope="session")
def letta_agent_id(letta_server: LettaServer) -> str:
    """The shared test agent. Tests that may leave an approval pending use ``fresh_agent_id``."""
    return letta_server.agent_id


@pytest.fixture
def fresh_agent_id(letta_base_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A new agent on the fake model with the test tools, deleted after the test."""
    test_name = re.sub(r"[^A-Za-z0-9_-]+", "-", request.node.name)[:60]
    agent_id = setup_agent.create_agent(letta_base_url,
                                        f"e2e-{test_name}-{uuid.uuid4().hex[:6]}")
    yield agent_id
    with contextlib.suppress(setup_agent.LettaRequestError):
        setup_agent.call(letta_base_url, "DELETE", f"/v1/agents/{agent_id}")


@pytest.fixture
async def proxy(letta_base_url: str) -> AsyncIterator[FaultProxy]:
    """A fault-injecting proxy in front of the server (:mod:`fault_proxy`)."""
    address = urlsplit(letta_base_url)
    proxy = FaultProxy(address.hostname or "127.0.0.1", address.port or 80)
    await proxy.start()
    yield proxy
    await proxy.stop()


@pytest.fixture
def quick_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resume dropped replies after short pauses (about 6 s in all)."""
    monkeypatch.setattr(replies, "RESUME_PAUSES", (0.2, 0.5, 1.0, 2.0, 2.0))
