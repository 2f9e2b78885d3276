"""Quitting as the user would when the process is told to stop (SIGTERM) or its terminal
closes (SIGHUP). By default either signal kills the app where it stands: what was typed and
not sent is lost, and SIGTERM leaves the terminal in the app's modes (alternate screen, mouse
reporting, no cursor)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from typing import Any

from textual.app import App

#: Seconds a process whose terminal closed has to quit before it is ended.
HANG_UP_GRACE = 2.0


def quit_on_signals(app: App[Any]) -> None:
    """Make SIGTERM and SIGHUP quit ``app`` through its ``exit`` (where the event loop can
    take signal handlers: not on Windows)."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, AttributeError):
        loop.add_signal_handler(signal.SIGTERM, app.exit)
        loop.add_signal_handler(signal.SIGHUP, _hung_up, app)


def _hung_up(app: App[Any]) -> None:
    """The terminal is gone: the app quits as asked (what it keeps on exit is written at
    once), and if its threads cannot stop, waiting on a terminal that is no more, the process
    is ended :data:`HANG_UP_GRACE` seconds later."""
    app.exit()
    ending = threading.Timer(HANG_UP_GRACE, end_process)
    ending.daemon = True
    ending.start()


def end_process() -> None:
    """End this process at once (it could not stop by itself)."""
    os.kill(os.getpid(), signal.SIGKILL)
