"""What a tool card says of its call's outcome: where the call ran, and that a write or edit
that failed (or never ran) changed nothing; the same live and read back from history."""

from __future__ import annotations

import json
from typing import Any

from widget_app import ItemsApp, shown_text

from openletta.transcript import ToolCallItem, ToolStatus

SIZE = (100, 40)


def local_call(name: str, arguments: dict[str, Any], *, live: bool,
               **fields: Any) -> ToolCallItem:
    """A call of a local tool: as this client ran it (``live``), or as history gives it
    back (a client sent its result; nothing says it was this one, nor shows a preview)."""
    where = {"runs_here": True, "auto_approved": True} if live else {"client_result": True}
    return ToolCallItem(key=f"{name}:{live}", name=name, arguments_text=json.dumps(arguments),
                        needs_approval=True, **where, **fields)


async def cards(*items: ToolCallItem) -> list[list[str]]:
    """The lines each item's card shows."""
    app = ItemsApp(items)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return [shown_text(app.widget_of(item)).split("\n") for item in items]


async def test_every_card_says_where_its_call_runs() -> None:
    server = ToolCallItem(key="server", name="memory_insert", status=ToolStatus.SUCCESS,
                          arguments_text='{"label": "human", "new_str": "tea"}', result="ok")
    asked = ToolCallItem(key="asked", name="bash", needs_approval=True,
                         status=ToolStatus.SUCCESS, arguments_text='{"command": "ls"}')
    here = local_call("LS", {"path": "."}, live=True, status=ToolStatus.SUCCESS, result="a")
    client = local_call("LS", {"path": "."}, live=False, status=ToolStatus.SUCCESS, result="a")
    streaming = ToolCallItem(key="streaming", name="LS", needs_approval=True,
                             status=ToolStatus.STREAMING, arguments_text='{"path": "."}')
    headers = [card[0] for card in await cards(server, asked, here, client, streaming)]
    assert ["runs on server" in header for header in headers] == [True, True, False, False,
                                                                   False]
    assert "⌂ runs here" in headers[2] and "ran on a client" in headers[3]
    # An approval request still streaming may be for this machine: it does not say yet.
    assert not any(word in headers[4] for word in ("server", "here", "client"))
