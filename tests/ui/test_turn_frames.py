"""A turn's changes to the status bar are painted in the frames that show what changed it.

Every frame costs a paint and a write to the terminal; a short turn painted the status bar
alone three times (the request on its way before the user's message showed, "streaming"
before the reply, the turn's end before its footer), each in a frame of its own.
"""

from __future__ import annotations

import pytest
from chat_helpers import open_chat, send

from openletta.transcript import UserItem
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets import ItemWidget

#: What a frame showed: the status bar's state, the kinds of items in the chat, and how many
#: user messages the transcript held then.
Frame = tuple[str, tuple[str, ...], int]


@pytest.fixture
def frames(monkeypatch: pytest.MonkeyPatch) -> list[Frame]:
    """The frames the chat screen paints, as :data:`Frame`."""
    painted: list[Frame] = []
    paint = ChatScreen._compositor_refresh

    def recorded(screen: ChatScreen) -> None:
        if screen._compositor._dirty_regions:
            kinds = tuple(type(child).__name__ for child in screen.view.scroll.children
                          if isinstance(child, ItemWidget) and child.is_mounted)
            users = sum(isinstance(item, UserItem) for item in screen.session.transcript.items)
            painted.append((screen.status.info.state, kinds, users))
        paint(screen)

    monkeypatch.setattr(ChatScreen, "_compositor_refresh", recorded)
    return painted


async def test_a_short_turn_paints_the_status_with_what_changed_it(
        make_app, wait_until, frames: list[Frame]) -> None:
    app = make_app(demo=True, demo_speed=1.0, agent="demo-agent")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.pause()
        before = len(frames)
        known = len(frames[-1][1]) if frames else 0
        await send(pilot, screen, "hello", wait_until)
        await wait_until(pilot, lambda: frames[-1][1][-1:] == ("TurnFooter",),
                         what="the turn's footer painted")
        typed = frames[before:]  # (the frames of the typing show no turn yet)
        turn = typed[next(index for index, frame in enumerate(typed)
                          if frame[0] != "connected"):]
        for state, kinds, users in turn:
            # the user's message shows in the first frame after the server took it
            assert kinds.count("UserMessage") == users, turn
            if state == "streaming":  # "streaming" shows with the reply
                assert {"AssistantMessage", "ReasoningBlock"} & set(kinds[known:]), turn
            if state == "connected":  # and the turn's end with its footer
                assert "TurnFooter" in kinds[known:], turn
