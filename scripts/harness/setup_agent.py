"""Create the test tools and agents on a Letta server (stdlib only, importable by tests).

Requests go out with an empty ``User-Agent``, like the recordings: Letta then treats the caller
as a 1.0 SDK client (letta-server-notes.md §4).
"""

from __future__ import annotations

import inspect
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import lab_tools

MODEL = "openai-proxy/fake-model"
EMBEDDING = "openai/text-embedding-3-small"
AGENT_TYPE = "letta_v1_agent"
TEST_AGENT_NAME = "openletta-e2e"
TOOL_TAG = "openletta-e2e"
MEMORY_BLOCKS = [
    {"label": "human", "value": "The user is testing openletta, a terminal client."},
    {"label": "persona", "value": "I am a test agent driven by a scripted fake model."},
]
TIMEOUT = 30.0


class LettaRequestError(RuntimeError):
    """A request to the Letta server failed."""


def call(base_url: str, method: str, path: str, body: Any = None,
         query: dict[str, str] | None = None) -> Any:
    """Send one JSON request and return the decoded JSON answer."""
    url = base_url.rstrip("/") + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "User-Agent": "", "Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")[:2000]
        raise LettaRequestError(f"{method} {path} -> HTTP {error.code}: {detail}") from None
    except OSError as error:
        raise LettaRequestError(f"{method} {path} failed: {error}") from None


def tool_source(name: str) -> str:
    """The Python source of one of the test tools."""
    return inspect.getsource(getattr(lab_tools, name))


def upsert_tools(base_url: str) -> list[str]:
    """Create or update the four test tools (``PUT /v1/tools/`` upserts by name); their ids."""
    return [
        call(base_url, "PUT", "/v1/tools/", {
            "source_code": tool_source(name),
            "default_requires_approval": name in lab_tools.TOOLS_NEEDING_APPROVAL,
            "tags": [TOOL_TAG],
        })["id"]
        for name in lab_tools.TOOL_NAMES
    ]


def create_agent(base_url: str, name: str, tool_ids: list[str] | None = None) -> str:
    """Create a ``letta_v1_agent`` on the fake model with the test tools; its id.

    ``tool_ids`` defaults to the result of :func:`upsert_tools`.
    """
    agent = call(base_url, "POST", "/v1/agents/", {
        "name": name,
        "agent_type": AGENT_TYPE,
        "model": MODEL,
        "embedding": EMBEDDING,
        "tool_ids": upsert_tools(base_url) if tool_ids is None else tool_ids,
        "memory_blocks": MEMORY_BLOCKS,
        "tags": [TOOL_TAG],
    })
    return agent["id"]


def ensure_test_agent(base_url: str, name: str = TEST_AGENT_NAME) -> str:
    """The id of the agent called ``name``, created if missing; the tools are refreshed."""
    tool_ids = upsert_tools(base_url)
    existing = call(base_url, "GET", "/v1/agents/", query={"name": name, "limit": "1"})
    if existing:
        return existing[0]["id"]
    return create_agent(base_url, name, tool_ids)
