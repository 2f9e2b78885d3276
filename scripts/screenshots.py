"""Write the SVG screenshots in ``screenshots/`` from the embedded demo server.

Run from the repository root: ``python scripts/screenshots.py [NAME …]`` (rerunnable; it
overwrites the files; names pick shots, default all). Each shot starts a fresh demo server
and app, sends one prompt, waits for the turn to end and saves what the terminal shows.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.pilot import Pilot

from openletta.demo import DemoServer
from openletta.settings import Settings
from openletta.transcript import UserItem
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.chat import ChatScreen

OUT = Path(__file__).resolve().parents[1] / "screenshots"
SIZE = (110, 34)
TIMEOUT = 20.0


@dataclass(frozen=True)
class Shot:
    """One screenshot: the prompt to send (none for the chooser) and the theme."""

    name: str
    prompt: str | None
    theme: str = "openletta-dark"
    agent: str | None = "demo-agent"
    #: Keys pressed before the prompt is sent, and after its reply ended.
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


SHOTS = (
    Shot("agent-chooser", None, agent=None),
    Shot("chat-markdown", "what can you do?"),
    Shot("chat-markdown-light", "what can you do?",
         theme="openletta-light"),
    Shot("tool-bash", "bash"),
    Shot("tool-read-file", "read"),
    Shot("tool-edit-file", "edit"),
    Shot("tool-write-file", "write"),
    Shot("tool-error", "error"),
    Shot("hostile-output", "hostile"),
    Shot("approval-spoof", "spoof"),
    Shot("memory-panel", "remember my name is Ana and I drink tea without sugar",
         before=("f2",)),
    Shot("run-inspector", "bash", after=(*"/run", "enter")),
    Shot("context-view", "bash", after=(*"/context", "enter")),
    Shot("tool-memory-insert", "remember my name is Ana and I drink tea without sugar"),
    Shot("tool-conversation-search", "search"),
    Shot("tool-archival-insert", "archive openletta renders Letta tools natively"),
    Shot("tool-archival-search", "passages"),
    Shot("tool-web-search", "web"),
    Shot("tool-fetch-webpage", "fetch"),
    Shot("tool-run-code", "code"),
    Shot("tool-send-message", "legacy"),
)


async def wait_for(pilot: Pilot[None], predicate: Callable[[], object], what: str) -> None:
    """Run the app until ``predicate`` holds; fail loudly after :data:`TIMEOUT`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError(f"screenshot: {what} did not happen within {TIMEOUT:.0f} s")
        await pilot.pause(0.02)


async def take(shot: Shot) -> Path:
    """Run the app for ``shot`` and save its SVG."""
    server = DemoServer(speed=0)
    base_url = await server.start()
    app = OpenLettaApp(base_url=base_url, agent=shot.agent, theme=shot.theme,
                       settings=Settings())
    try:
        async with app.run_test(size=SIZE) as pilot:
            if shot.agent is None:
                await wait_for(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                               and app.screen.agents, "the agent list")
            else:
                await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen)
                               and app.focused is app.screen.prompt, "the chat screen")
            await pilot.press(*shot.before)
            if shot.before:
                await pilot.pause(0.3)
                app.screen.query_one("#prompt").focus()
            if shot.prompt is not None:
                await send(pilot, app, shot.prompt)
            await pilot.press(*shot.after)
            await pilot.pause(0.5 if shot.before or shot.after else 0.3)
            app.clear_notifications()
            await pilot.pause()
            path = OUT / f"{shot.name}.svg"
            app.save_screenshot(filename=path.name, path=str(path.parent))
    finally:
        await server.stop()
    return path


async def send(pilot: Pilot[None], app: OpenLettaApp, prompt: str) -> None:
    """Type ``prompt``, send it and wait until its turn has ended."""
    screen = app.screen
    assert isinstance(screen, ChatScreen)
    transcript = screen.session.transcript

    def ended() -> bool:
        users = [item for item in transcript.items if isinstance(item, UserItem)]
        return (bool(users) and users[-1].text == prompt and not screen.busy
                and transcript.stop_reason is not None)

    await pilot.press(*prompt, "enter")
    await wait_for(pilot, ended, f"the reply to {prompt!r}")


async def main(names: list[str]) -> None:
    """Take the shots named in ``names`` (all when none is named)."""
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as config:
        os.environ["OPENLETTA_CONFIG_DIR"] = config
        for shot in SHOTS:
            if names and shot.name not in names:
                continue
            print(f"{await take(shot)}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
