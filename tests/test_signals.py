"""SIGTERM and SIGHUP quit the app as the user would (its exit keeps the drafts and restores
the terminal); after a hang-up the process ends anyway if it cannot stop."""

from __future__ import annotations

import asyncio
import os
import signal
import threading

import pytest

from openletta.ui import signals


class FakeApp:
    def __init__(self) -> None:
        self.exits = 0

    def exit(self) -> None:
        self.exits += 1


@pytest.fixture
def ended(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set when the process would have been ended, which it is not here."""
    event = threading.Event()
    monkeypatch.setattr(signals, "HANG_UP_GRACE", 0.01)
    monkeypatch.setattr(signals, "end_process", event.set)
    return event


async def test_sigterm_and_sighup_quit_through_the_apps_exit(ended: threading.Event) -> None:
    app = FakeApp()
    loop = asyncio.get_running_loop()
    signals.quit_on_signals(app)  # type: ignore[arg-type]
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100):
            if app.exits:
                break
            await asyncio.sleep(0.01)
        assert app.exits == 1 and not ended.is_set()
        os.kill(os.getpid(), signal.SIGHUP)
        await asyncio.to_thread(ended.wait, 2)
        assert app.exits == 2 and ended.is_set()  # quit, and ended if it could not stop
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
        loop.remove_signal_handler(signal.SIGHUP)
