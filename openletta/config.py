"""Which Letta server to talk to, and with which key.

Precedence: explicit argument (``--base-url``) > environment (``LETTA_BASE_URL``,
``LETTA_API_KEY``) > defaults (Letta Cloud when a key is set, else the local server).
Values from a config file belong between the environment and the defaults; the caller
passes them as arguments when no flag or environment variable is set.
"""

from __future__ import annotations

import os
import shlex
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from openletta.settings import Settings

CLOUD_URL = "https://api.letta.com"
LOCAL_URL = "http://localhost:8283"
#: The settings' name for the embedded demo server.
DEMO_SERVER = "demo"
#: How long to wait for a local server before falling back to the demo.
PROBE_TIMEOUT = 0.3


@dataclass(frozen=True)
class Connection:
    base_url: str
    api_key: str | None
    #: Where ``base_url`` came from: ``argument``, ``LETTA_BASE_URL`` or ``default``.
    source: str


def resolve_connection(base_url: str | None = None, api_key: str | None = None,
                       env: Mapping[str, str] = os.environ) -> Connection:
    """The base URL and API key to use (see the module docstring for the precedence)."""
    key = api_key or env.get("LETTA_API_KEY") or None
    if base_url:
        url, source = base_url, "argument"
    elif env.get("LETTA_BASE_URL"):
        url, source = env["LETTA_BASE_URL"], "LETTA_BASE_URL"
    else:
        url, source = (CLOUD_URL if key else LOCAL_URL), "default"
    return Connection(normalise_base_url(url), key, source)


def normalise_base_url(url: str) -> str:
    """``url`` without surrounding spaces, trailing slashes or a trailing ``/v1``
    (every API path starts with ``/v1`` already)."""
    url = url.strip().rstrip("/")
    return url.removesuffix("/v1").rstrip("/")


@dataclass(frozen=True)
class Server:
    """The server the app talks to: the embedded demo (``demo``), or ``base_url``."""

    demo: bool
    base_url: str | None = None
    api_key: str | None = None

    @property
    def key(self) -> str:
        """How the settings name this server (:func:`server_key`)."""
        return server_key(self.base_url, demo=self.demo)


def server_key(base_url: str | None, *, demo: bool) -> str:
    """How the settings name a server: its URL, or ``demo`` for the embedded one (whose URL
    changes with every run)."""
    return DEMO_SERVER if demo or not base_url else base_url


def choose_server(base_url: str | None, *, demo: bool, settings: Settings,
                  env: Mapping[str, str] = os.environ) -> Server:
    """The server for ``--base-url``/``--demo``: the demo if asked for or if nothing is
    configured and no local server answers; else the configured one (the saved base URL
    comes after the flag and ``LETTA_BASE_URL``)."""
    if demo or should_use_demo(base_url, settings, env):
        return Server(demo=True)
    if not base_url and not env.get("LETTA_BASE_URL"):
        base_url = settings.base_url
    connection = resolve_connection(base_url=base_url, env=env)
    return Server(demo=False, base_url=connection.base_url, api_key=connection.api_key)


def should_use_demo(base_url: str | None, settings: Settings, env: Mapping[str, str]) -> bool:
    """True when nothing is configured and no local server answers (decided in < 0.5 s)."""
    configured = (base_url or env.get("LETTA_BASE_URL") or env.get("LETTA_API_KEY")
                  or settings.base_url)
    return not configured and not port_open(LOCAL_URL)


def port_open(url: str, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether something accepts TCP connections at ``url``'s host and port."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "localhost", port), timeout=timeout):
            return True
    except OSError:
        return False


@dataclass(frozen=True)
class ResumeHint:
    """How to open a chat again, printed on exit: ``command``, and ``agent_name`` when the
    command names the agent by its id."""

    command: str
    agent_name: str = ""

    def __str__(self) -> str:
        agent = f" ({' '.join(self.agent_name.split())})" if self.agent_name else ""
        return f"Resume this chat{agent} with: {self.command}"


def resume_hint(base_url: str | None, saved_base_url: str | None, agent_id: str,
                agent_name: str, conversation: str | None) -> ResumeHint:
    """The command that opens this chat again: on the demo (``base_url`` ``None``) or
    ``base_url`` (named unless it is the one saved in the settings).

    It names the agent by its id, which no other agent has: a name may be another agent's
    too (``--agent NAME`` then lets one choose), or be changed meanwhile. The demo's
    agents, made anew each run with the same ids and names that differ, go by their name.
    """
    parts = ["openletta"]
    if base_url is None:
        parts.append("--demo")
    elif base_url != saved_base_url:
        parts += ["--base-url", base_url]
    by_name = base_url is None and bool(agent_name)
    parts += ["--agent", agent_name if by_name else agent_id]
    if conversation:
        parts += ["--conversation", conversation]
    return ResumeHint(shlex.join(parts), "" if by_name else agent_name)
