"""Driving the chat screen from Pilot tests: wait for it, send a message and wait for the end."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
import waiting
from textual.app import App
from textual.dom import DOMNode
from textual.pilot import Pilot

from openletta.transcript import Item, UserItem
from openletta.ui.app import OpenLettaApp
from openletta.ui.chat_view import ChatView
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets import ItemWidget
from openletta.ui.widgets.approval import ApprovalPrompt
from openletta.ui.widgets.assistant import AssistantMessage


def chat(app: OpenLettaApp) -> ChatScreen:
    assert isinstance(app.screen, ChatScreen), type(app.screen).__name__
    return app.screen


def restyled(app: App[Any], monkeypatch: pytest.MonkeyPatch) -> list[DOMNode]:
    """The nodes ``app``'s stylesheet styles from now on, in order (a list that grows)."""
    styled: list[DOMNode] = []
    apply = app.stylesheet.apply

    def recorded(node: DOMNode, **options: Any) -> None:
        styled.append(node)
        apply(node, **options)

    monkeypatch.setattr(app.stylesheet, "apply", recorded)
    return styled


def mounted_items(view: ChatView) -> list[object]:
    """Items whose widgets are in the view (not the unmounted ones waiting to be removed)."""
    return [child.item for child in view.scroll.children
            if isinstance(child, ItemWidget) and view.widget_for(child.item) is child]


@contextlib.asynccontextmanager
async def demo_chat(make_app, base_url: str, wait_until, size: tuple[int, int] = (100, 30),
                    **options: object
                    ) -> AsyncIterator[tuple[OpenLettaApp, Pilot[None], ChatScreen]]:
    """The app running on the demo agent's chat screen (``options``: the app's others, such
    as ``local``)."""
    app = make_app(base_url=base_url, agent="demo-agent", **options)
    async with app.run_test(size=size) as pilot:
        yield app, pilot, await open_chat(pilot, wait_until)


async def open_chat(pilot: Pilot[None], wait_until) -> ChatScreen:
    """Wait for the chat screen and its history."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="chat screen")
    screen = chat(app)  # type: ignore[arg-type]
    await wait_until(pilot, lambda: app.focused is screen.prompt or (
        app.focused is not None and isinstance(app.focused.parent, ApprovalPrompt)),
        what="prompt (or an approval prompt) focused")
    await wait_until(pilot, lambda: not screen.workers or all(
        w.group != "history" or w.is_finished for w in screen.workers), what="history")
    await laid_out(pilot, screen.view)
    return screen


async def all_mounted(pilot: Pilot[None], view: ChatView, items: Sequence[Item]) -> None:
    """Wait until every item of ``items`` has a mounted widget: items that arrive between two
    flushes are mounted by the flush's timer, which a ``pilot.pause()`` does not wait for."""
    await waiting.wait_until(pilot, lambda: all(
        (widget := view.widget_for(item)) is not None and widget.is_mounted for item in items),
        what="a mounted widget for every item")


async def settled(pilot: Pilot[None], view: ChatView) -> None:
    """Wait until what was applied to the view is mounted and laid out, and it holds still."""
    view.flush()
    await view.scroll.wait_for_mounts()
    await laid_out(pilot, view)


async def laid_out(pilot: Pilot[None], view: ChatView, *, steady: int = 3) -> None:
    """Wait until the chat's height stops changing (Markdown renders after it mounts): the
    same height at ``steady`` checks in a row, each after the app's queues ran dry, with
    every reply's Markdown rendered and no layout of the screen pending (a loaded machine
    found the height steady while the layout that the replies asked for waited for the
    screen's timer). What waits for the view's next flush is flushed first, or the wait
    could end before it."""
    view.flush()
    heights: list[int] = []

    def height_steady() -> bool:
        screen = view.screen
        if screen._layout_required or screen._layout_widgets or not replies_rendered(view):
            heights.clear()
            return False
        heights.append(view.scroll.virtual_size.height)
        return len(heights) > steady and len(set(heights[-steady:])) == 1

    try:
        await waiting.wait_until(pilot, height_steady, timeout=10,
                                 what="the chat view to keep its height")
    except AssertionError as error:
        raise AssertionError(f"{error}; its last heights: {heights[-10:]}") from None


def replies_rendered(view: ChatView) -> bool:
    """Whether every reply in the view shows all the text written to it. A streamed reply
    renders in its stream's own task, which the app's queues running dry does not wait for."""
    for reply in view.scroll.query(AssistantMessage):
        stream = reply._stream
        if reply._queued or reply.lock.is_locked or reply.source != "".join(reply._written) or (
                stream is not None and stream.pending):
            return False
    return True


async def send(pilot: Pilot[None], screen: ChatScreen, text: str, wait_until) -> None:
    """Type ``text``, press Enter and wait for the turn to end."""
    transcript = screen.session.transcript

    def turn_ended() -> bool:
        users = [item for item in transcript.items if isinstance(item, UserItem)]
        return (bool(users) and users[-1].text == text and not screen.busy
                and transcript.stop_reason is not None)

    await pilot.press(*text, "enter")
    try:  # (a turn of the demo takes well under a second; a loaded CI machine, longer)
        await wait_until(pilot, turn_ended, timeout=15, what=f"turn {text!r} ended")
    except AssertionError as error:
        raise AssertionError(f"{error}; {turn_picture(screen)}") from None
    await pilot.pause()


def turn_picture(screen: ChatScreen) -> str:
    """Where the chat's turn is: what a failed wait for its end says."""
    transcript = screen.session.transcript
    users = [item.text for item in transcript.items if isinstance(item, UserItem)]
    return (f"messages sent {users[-3:]}, busy {screen.busy}, phase "
            f"{screen.controller.state.phase.name}, stop reason {transcript.stop_reason!r}, "
            f"prompt {screen.prompt.text!r}, focused {screen.app.focused!r}")


async def start_new_conversation(pilot: Pilot[None], screen: ChatScreen,
                                 wait_until) -> ChatScreen:
    """``/new`` from ``screen``: wait for the new conversation's chat screen."""
    app = pilot.app
    await pilot.press(*"/new", "enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                     and app.screen is not screen, what="new conversation")
    return await open_chat(pilot, wait_until)


async def side_conversation(pilot: Pilot[None], wait_until) -> tuple[ChatScreen, str]:
    """Wait for the chat, then start a new conversation: its chat screen and its id."""
    screen = await start_new_conversation(pilot, await open_chat(pilot, wait_until),
                                          wait_until)
    conversation = screen.session.conversation_id
    assert conversation is not None
    return screen, conversation


async def choose(pilot: Pilot[None], key: str, wait_until) -> None:
    """Press a choice's key on the focused approval prompt and wait until it took effect
    (the key waits to see that no other key follows it)."""
    focused = pilot.app.focused
    prompt = focused.parent if focused is not None else None
    assert isinstance(prompt, ApprovalPrompt), "no approval prompt has the focus"
    await pilot.press(key)
    await wait_until(pilot, lambda: not prompt.choice_pending, what=f"{key!r} taken")
