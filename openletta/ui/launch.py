"""Start the TUI from parsed command-line arguments (called by ``openletta.cli``)."""

from __future__ import annotations

import argparse
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from openletta.chat.local_calls import LocalCalls
from openletta.config import resolve_connection
from openletta.display import DisplayText
from openletta.settings import Settings, load_settings
from openletta.tools.base import Workspace
from openletta.tools.permissions import PermissionMode, Permissions
from openletta.ui.app import OpenLettaApp

LOCAL_URL = "http://localhost:8283"
#: How long to wait for a local server before falling back to the demo.
PROBE_TIMEOUT = 0.3


def run(args: argparse.Namespace) -> int:
    """Run the app until the user quits; print how to come back. Returns the exit status."""
    settings = load_settings()
    demo = args.demo or should_use_demo(args.base_url, settings, os.environ)
    flag_or_saved = args.base_url
    if not flag_or_saved and not os.environ.get("LETTA_BASE_URL"):
        flag_or_saved = settings.base_url
    base_url = api_key = None
    if not demo:
        connection = resolve_connection(base_url=flag_or_saved, env=os.environ)
        base_url, api_key = connection.base_url, connection.api_key
    app = OpenLettaApp(base_url=base_url, api_key=api_key, demo=demo, agent=args.agent,
                       conversation=args.conversation, theme=args.theme, settings=settings,
                       tune_gc=True, local=local_calls(args))
    app.run()
    if app.resume_hint:
        print(DisplayText(f"Resume this chat with: {app.resume_hint}"))
    return app.return_code or 0


def local_calls(args: argparse.Namespace) -> LocalCalls | None:
    """The local toolset the flags ask for, run in the current directory."""
    if args.no_local_tools:
        return None
    mode = PermissionMode.YOLO if args.yolo else PermissionMode(args.permission_mode)
    return LocalCalls(Permissions(Workspace(Path.cwd()), mode=mode))


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
