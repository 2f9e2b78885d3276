"""Where a call runs, as its card says it: a local call never reads "runs on server"."""

from __future__ import annotations

import pytest
from chat_helpers import open_chat
from test_app import SIZE
from test_approvals import prompt_focused

from openletta.chat.local_calls import LocalCalls
from openletta.transcript import ToolCallItem
from openletta.ui.widgets import tool_card


@pytest.mark.parametrize("message", ["how much disk", "what files are here"])
async def test_a_local_approval_request_never_reads_runs_on_server(
        demo_server, make_app, wait_until, local: LocalCalls, monkeypatch, message: str
        ) -> None:
    """Between the request's arrival and the server saying which calls wait, its card has
    said "runs on server" (the place of every call asked about not yet marked local)."""
    said: list[tuple[str, str]] = []
    place = tool_card._place

    def noted(item: ToolCallItem) -> str:
        said.append((item.name, shown := place(item)))
        return shown

    monkeypatch.setattr(tool_card, "_place", noted)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press(*message, "enter")
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert prompt.here is not None
    shown = [where for name, where in said if name == prompt.call.name]
    assert "⌂ runs here" in shown and "runs on server" not in shown
