"""Which Letta server to talk to, and with which key.

Precedence: explicit argument (``--base-url``) > environment (``LETTA_BASE_URL``,
``LETTA_API_KEY``) > defaults (Letta Cloud when a key is set, else the local server).
Values from a config file belong between the environment and the defaults; the caller
passes them as arguments when no flag or environment variable is set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

CLOUD_URL = "https://api.letta.com"
LOCAL_URL = "http://localhost:8283"


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
