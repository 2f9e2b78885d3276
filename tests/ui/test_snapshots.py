"""Snapshots of the main screens (layout only; behaviour is tested in test_app.py).

Each app runs the embedded demo server at speed 0 in its own event loop, at a fixed size,
with a fixed clock, so the pictures do not change from run to run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from chat_helpers import laid_out
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from waiting import wait_until

from openletta.chat.local_calls import LocalCalls
from openletta.settings import Settings
from openletta.tools.base import Workspace
from openletta.tools.permissions import Permissions, ProjectRules
from openletta.ui.app import OpenLettaApp
from openletta.ui.screens.agents import AgentChooserScreen, Clock
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.connect import ConnectScreen
from openletta.ui.screens.new_agent import HINT, NewAgentScreen
from openletta.ui.widgets.approval import ApprovalPrompt, CommandEditor

SIZE = (100, 30)
#: Nothing listens on port 1, so connecting fails at once.
UNREACHABLE = "http://127.0.0.1:1"


def demo_app(clock: Clock) -> OpenLettaApp:
    return OpenLettaApp(demo=True, demo_speed=0, settings=Settings(), clock=clock)


async def settle(pilot: Pilot[None], ready: Callable[[], object], timeout: float = 10) -> None:
    """Run until ``ready()`` holds, no worker is busy (of the screen, or of one under it: it
    shows through a dialog) and a chat has its final height."""
    app = pilot.app
    await wait_until(pilot, lambda: ready() and not any(w.is_running for w in app.workers),
                     timeout=timeout, what="the screen to settle")
    await pilot.wait_for_scheduled_animations()
    if isinstance(app.focused, TextArea | Input):
        app.focused.cursor_blink = False  # else the picture depends on when it is taken
    if isinstance(app.screen, ChatScreen):
        await laid_out(pilot, app.screen.view)


def test_agent_chooser(snap_compare, fixed_clock: Clock) -> None:
    """The chooser lists the demo agents, the first highlighted, the filter focused."""
    app = demo_app(fixed_clock)

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                     and app.screen.agents)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_new_agent_form(snap_compare, fixed_clock: Clock) -> None:
    """Ctrl+N over the chooser: the name typed in the search, the server's models listed."""
    app = demo_app(fixed_clock)

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                     and app.screen.agents)
        chooser = app.screen
        await pilot.press(*"helper")  # searched for after a pause: wait for what it found
        await settle(pilot, lambda: not chooser.agents
                     and chooser.query_one("#agents-empty").display)
        await pilot.press("ctrl+n")
        await settle(pilot, lambda: isinstance(app.screen, NewAgentScreen)
                     and str(app.screen.status.render()) == HINT)  # the models listed

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_chat_after_a_finished_turn(snap_compare, fixed_clock: Clock) -> None:
    """The chat with one finished "hello" turn, the status bar showing its usage."""
    app = demo_app(fixed_clock)

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                     and app.screen.agents)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ChatScreen))
        await pilot.press(*"hello", "enter")
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await settle(pilot, lambda: not screen.busy
                     and screen.session.transcript.stop_reason is not None)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_connect_error(snap_compare) -> None:
    """The connect screen after a refused connection: URL, reason, fixes, retry key."""
    app = OpenLettaApp(base_url=UNREACHABLE, settings=Settings())

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, ConnectScreen) and app.screen.failed)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


@pytest.mark.parametrize("keyword", ["approve", "write", "edit"])
def test_approval_prompt(snap_compare, fixed_clock: Clock, keyword: str) -> None:
    """The inline approval prompt in the card of a bash command, a file write and an edit."""
    app = OpenLettaApp(demo=True, demo_speed=0, settings=Settings(), clock=fixed_clock,
                       agent="demo-agent")

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, ChatScreen)
                     and app.focused is app.screen.prompt)
        await pilot.press(*keyword, "enter")
        await settle(pilot, lambda: bool(app.screen.query(ApprovalPrompt))
                     and app.focused is not None
                     and isinstance(app.focused.parent, ApprovalPrompt))

    assert snap_compare(app, terminal_size=(100, 36), run_before=ready)


def test_memory_panel_after_a_turn_that_changed_a_block(snap_compare,
                                                       fixed_clock: Clock) -> None:
    """The panel beside the chat, the human block marked as changed by the turn."""
    app = demo_app(fixed_clock)

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                     and app.screen.agents)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ChatScreen))
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await pilot.press("f2")
        await settle(pilot, lambda: bool(screen.memory.query(".memory-block")))
        screen.prompt.focus()
        await pilot.press(*"remember my name is Ana", "enter")
        await settle(pilot, lambda: bool(screen.memory.query(".memory-block.-changed")))

    assert snap_compare(app, terminal_size=(120, 30), run_before=ready)


def test_editing_a_local_command_on_its_prompt(snap_compare, fixed_clock: Clock,
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A local Bash call's prompt, its command open for editing below the choices."""
    monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)
    root = Path("/tmp/openletta-snapshot-project")  # shown in the prompt: a fixed path
    root.mkdir(exist_ok=True)
    local = LocalCalls(Permissions(Workspace(root),
                                   project_rules=ProjectRules(tmp_path / "rules.toml")))
    app = OpenLettaApp(demo=True, demo_speed=0, settings=Settings(), clock=fixed_clock,
                       agent="demo-agent", local=local)

    async def ready(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, ChatScreen)
                     and app.focused is app.screen.prompt)
        await pilot.press(*"how much disk", "enter")
        await settle(pilot, lambda: bool(app.screen.query(ApprovalPrompt))
                     and app.focused is not None
                     and isinstance(app.focused.parent, ApprovalPrompt))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.focused, CommandEditor))

    assert snap_compare(app, terminal_size=(100, 36), run_before=ready)
