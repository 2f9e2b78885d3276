"""Going forward again from the top of a long conversation: PageDown and Alt+↓ (demo server).

The history comes page by page from the server; at the top of it only a window of the oldest
items is mounted, and the later ones must come as the user goes down, on any terminal height.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from chat_helpers import open_chat, settled

from openletta.demo import DemoServer
from openletta.transcript import Item, UserItem
from openletta.ui.chat_window import BEGINNING

HISTORY = 100  # two pages of 50


@pytest.fixture
async def history_server() -> AsyncIterator[str]:
    server = DemoServer(speed=0, history_messages=HISTORY)
    try:
        yield await server.start()
    finally:
        await server.stop()


def shown(view) -> list[tuple[Item, int, int]]:
    """The items on screen or off it but mounted and displayed: ``(item, top, bottom)`` rows
    in the scrolled content."""
    rows = []
    for item in view.mounted_items:
        widget = view.widget_for(item)
        if widget is not None and widget.display and widget.virtual_region.height:
            region = widget.virtual_region
            rows.append((item, region.y, region.bottom))
    return rows


def item_at(view, line: int) -> Item | None:
    """The item whose widget covers ``line`` of the scrolled content (or the first below;
    the last mounted, for a line of the margin under it)."""
    rows = shown(view)
    under_last = rows[-1][0] if rows and line < view.scroll.virtual_size.height else None
    return next((item for item, _top, bottom in rows if bottom > line), under_last)


async def to_the_top(pilot, screen, wait_until) -> None:
    """PageUp until the whole conversation is loaded and its first line is in view."""
    view = screen.view
    earlier = view.query_one("#earlier")
    for _ in range(200):
        if BEGINNING in str(earlier.render()) and view.scroll.scroll_y < 1:
            break
        before = (view.scroll.scroll_y, view.mounted_items[:1], str(earlier.render()))
        await pilot.press("pageup")
        await wait_until(pilot, lambda before=before: before != (
            view.scroll.scroll_y, view.mounted_items[:1], str(earlier.render())),
            what="PageUp to move the view, mount more or load more", timeout=10)
    await settled(pilot, view)
    assert view.mounted_items[0] is screen.session.transcript.items[0]


@pytest.mark.parametrize("size", [(120, 40), (120, 150)])
async def test_pagedown_from_the_top_goes_a_page_forward_every_time(
        history_server, make_app, wait_until, size) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=size) as pilot:
        screen = await open_chat(pilot, wait_until)
        view, items = screen.view, screen.session.transcript.items
        await to_the_top(pilot, screen, wait_until)
        height = view.scroll.scrollable_content_region.height
        presses = 0
        while not view.following:
            presses += 1
            assert presses < 100, "PageDown never reached the bottom"
            top = view.scroll.scroll_y
            last = item_at(view, top + height - 1)  # on the bottom line of the view
            assert last is not None, "the view is not full while later items wait below"
            was = item_at(view, top)
            await pilot.press("pagedown")
            await wait_until(pilot, lambda was=was: item_at(view, view.scroll.scroll_y)
                             is not was or view.following,
                             what=f"PageDown {presses} to move the view")
            await settled(pilot, view)
            if view.following:
                break
            first = item_at(view, view.scroll.scroll_y)  # on the top line now
            assert first is not None
            # a page on: the bottom line of the view before is (about) the top line now
            assert items.index(first) in (items.index(last), items.index(last) + 1), \
                f"PageDown {presses}: {items.index(last)} was on the last line, " \
                f"{items.index(first)} is on the first"
        assert view.mounted_items[-1] is items[-1]
        assert items[0] not in view.mounted_items  # a window, not the whole transcript


def next_prompt(view, items: list[Item]) -> UserItem | None:
    """The first prompt that starts below the top line of the view."""
    top = item_at(view, view.scroll.scroll_y)
    assert top is not None
    for item in items[items.index(top):]:
        widget = view.widget_for(item)
        if isinstance(item, UserItem) and (widget is None or (widget.display and
                                           widget.virtual_region.y > view.scroll.scroll_y)):
            return item
    return None


async def test_alt_down_puts_each_next_prompt_at_the_top(
        history_server, make_app, wait_until) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, wait_until)
        view, items = screen.view, screen.session.transcript.items
        await to_the_top(pilot, screen, wait_until)
        jumps = 0
        while (prompt := next_prompt(view, items)) is not None:
            jumps += 1
            before = (view.scroll.scroll_y, view.mounted_items[:1])
            await pilot.press("alt+down")
            await wait_until(pilot, lambda before=before: view.widget_for(prompt) is not None
                             and (view.scroll.scroll_y, view.mounted_items[:1]) != before,
                             what=f"Alt+↓ {jumps} to move the view")
            await settled(pilot, view)
            widget = view.widget_for(prompt)
            assert widget is not None
            if view.following and view.scroll.scroll_y < widget.virtual_region.y:
                break  # the end of the chat is in view: the last prompt cannot go higher
            assert widget.virtual_region.y == view.scroll.scroll_y, \
                f"Alt+↓ {jumps}: {items.index(item_at(view, view.scroll.scroll_y))} " \
                f"at the top, not the prompt {items.index(prompt)}"
        assert jumps > 10


@pytest.mark.parametrize("size", [(120, 40), (120, 150)])
async def test_pageup_through_items_unmounted_above_goes_a_page_back_every_time(
        history_server, make_app, wait_until, size) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=size) as pilot:
        screen = await open_chat(pilot, wait_until)
        view, items = screen.view, screen.session.transcript.items
        await to_the_top(pilot, screen, wait_until)  # every page of history is loaded
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: view.following, what="back at the bottom")
        await settled(pilot, view)
        assert items[0] not in view.mounted_items  # the oldest wait above, unmounted
        height = view.scroll.scrollable_content_region.height
        presses = 0
        while view.scroll.scroll_y >= 1 or items[0] not in view.mounted_items:
            presses += 1
            assert presses < 60, "PageUp never reached the top"
            was = item_at(view, view.scroll.scroll_y)  # on the top line
            await pilot.press("pageup")
            await wait_until(pilot, lambda was=was: item_at(view, view.scroll.scroll_y)
                             is not was, what=f"PageUp {presses} to move the view")
            await settled(pilot, view)
            if view.scroll.scroll_y < 1:
                break
            last = item_at(view, view.scroll.scroll_y + height - 1)  # the bottom line now
            assert last is not None and was is not None
            assert items.index(last) in (items.index(was), items.index(was) - 1), \
                f"PageUp {presses}: {items.index(was)} was on the first line, " \
                f"{items.index(last)} is on the last"
