"""The chat view on its own: mounting from changes, coalesced syncs, windowing, following."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import chat_helpers
import pytest
from chat_helpers import all_mounted, laid_out, restyled
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static
from waiting import wait_until

import openletta.ui
from openletta.api.messages import parse_message
from openletta.transcript import Change, Item, Transcript
from openletta.ui import chat_scroll
from openletta.ui.chat_scroll import MOUNT_HOLD_SECONDS, RETIRED_LIMIT, ChatScroll
from openletta.ui.chat_view import ChatView
from openletta.ui.chat_window import (
    BEGINNING,
    EARLIER_BATCH,
    MAX_MOUNTED,
    OPENING_BATCH,
    PRUNE_SLACK,
)
from openletta.ui.screenful import screenful
from openletta.ui.sending_title import SENDING, SendingTitle
from openletta.ui.textual_internals import FrugalScreen
from openletta.ui.themes import ThemeVariables
from openletta.ui.widgets import AssistantMessage, ItemWidget

APP_CSS = Path(openletta.ui.__file__).parent / "styles" / "app.tcss"


class ViewApp(ThemeVariables, App[None]):
    """Just a chat view, styled like the real app."""

    CSS_PATH = APP_CSS

    def compose(self) -> ComposeResult:
        yield ChatView()


class FrugalViewApp(ViewApp):
    """The chat view on a screen that lays out as the chat's does."""

    def get_default_screen(self) -> Screen[None]:
        return FrugalScreen(id="_default")


def reply(key: str, text: str) -> object:
    return parse_message({"message_type": "assistant_message", "id": key, "otid": key,
                          "content": text})


def add_turns(view: ChatView, transcript: Transcript, count: int, paragraphs: int = 1) -> None:
    """``count`` turns of a question and an answer of ``paragraphs`` paragraphs."""
    for number in range(count):
        view.apply(transcript.add_user(f"question {number}"))
        answer = "\n\n".join(f"answer {number}" for _ in range(paragraphs))
        view.apply(transcript.feed(reply(f"a{number}", answer)))


def mounted_keys(view: ChatView) -> list[str]:
    """Keys of the items whose widgets are in the view (not the unmounted ones waiting to go)."""
    return [child.item.key for child in view.scroll.children
            if isinstance(child, ItemWidget) and view.widget_for(child.item) is child]


@asynccontextmanager
async def long_chat() -> AsyncIterator[tuple[ViewApp, Pilot[None], ChatView, Transcript]]:
    """A running view at 80x24 showing the end of 200 turns."""
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 200)
        await settled(pilot, view)
        yield app, pilot, view, transcript


async def settled(pilot: Pilot[None], view: ChatView) -> None:
    """Wait until the view is still: what was applied and the window moves under way have
    mounted, the view keeps its height (their Markdown has rendered) and no unmounted widget
    waits to be removed."""
    await chat_helpers.settled(pilot, view)
    await wait_until(pilot, lambda: not waiting_widgets(view), what="unmounted widgets removed")


async def test_items_mount_in_transcript_order() -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 3)
        await view.scroll.wait_for_mounts()
        await wait_until(pilot, lambda: len(mounted_keys(view)) == len(transcript.items),
                         what="every item mounted")
        assert mounted_keys(view) == [item.key for item in transcript.items]


async def test_items_arriving_between_flushes_mount_together_in_one_layout() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        for number in range(5):  # plain messages: nothing of theirs is laid out late
            view.apply(transcript.add_user(f"message {number}"))
        view.flush()
        await settled(pilot, view)
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append,
                                                          immediate=True)
        view.apply(transcript.add_user("first"))
        view.apply(transcript.add_user("second"))
        arrived = [view.widget_for(item) for item in transcript.items[-2:]]
        assert all(widget is not None and not widget.is_attached for widget in arrived)
        view.flush()
        await settled(pilot, view)
        assert mounted_keys(view) == [item.key for item in transcript.items]
        assert len(layouts) == 1  # the mount; a new widget's size asks for no second one


async def test_an_item_removed_before_the_flush_that_would_mount_it_never_mounts() -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        view.apply(transcript.add_user("kept"))
        view.apply(transcript.add_user("dropped"))
        dropped = transcript.items[-1]
        widget = view.widget_for(dropped)
        removal = Change()
        removal.removed.append(dropped)
        view.apply(removal)
        view.add_notice("a notice goes after what arrived")
        await settled(pilot, view)
        assert widget is not None and not widget.is_attached
        assert mounted_keys(view) == [transcript.items[0].key]
        children = [child for child in view.scroll.children if child.display]
        assert children.index(view.widget_for(transcript.items[0])) < children.index(
            view.scroll.query_one(".notice"))


async def test_a_reply_one_line_taller_is_laid_out_once() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        view.apply(transcript.feed(reply("a1", "one line")))
        view.flush()
        await settled(pilot, view)
        widget = view.widget_for(transcript.items[0])
        assert widget is not None
        height = widget.size.height
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append,
                                                          immediate=True)
        view.apply(transcript.feed(reply("a1", " and words enough to wrap onto a second")))
        view.flush()
        await wait_until(pilot, lambda: widget.size.height == height + 1, what="one line more")
        await settled(pilot, view)
        assert len(layouts) == 1


async def test_a_chat_grown_by_a_line_is_not_repainted_whole_after_its_layout() -> None:
    """The layout that gave the reply its new line painted what it moved; the scroller's new
    virtual size asks for no second repaint of everything in it (a frame's worth of work)."""
    app = ViewApp()
    async with app.run_test(size=(40, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 10)  # taller than the view: a new line scrolls it
        view.apply(transcript.feed(reply("r1", "one line")))
        view.flush()
        await settled(pilot, view)
        widget = view.widget_for(transcript.items[-1])
        assert widget is not None
        height, virtual = widget.size.height, view.scroll.virtual_size.height
        repaints: list[object] = []
        scroll_refresh = view.scroll.refresh
        view.scroll.refresh = lambda *args, **kwargs: (  # type: ignore[method-assign]
            repaints.append(kwargs), scroll_refresh(*args, **kwargs))[1]
        view.apply(transcript.feed(reply("r1", " and words enough to wrap onto a second")))
        view.flush()
        await wait_until(pilot, lambda: widget.size.height == height + 1, what="one line more")
        await settled(pilot, view)
        assert view.scroll.virtual_size.height == virtual + 1
        assert repaints == []


async def test_a_message_on_its_way_gives_its_name_up_in_the_layout_that_shows_it() -> None:
    """As the server takes a message, "sending hello" leaves the rule above the prompt with
    the flush that shows the message in the chat: no frame shows neither, and nothing but
    the message lays the chat out (a row below the chat resized it twice a turn)."""
    app = FrugalViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 10)
        await settled(pilot, view)
        title = SendingTitle(view, view)  # (the field: any widget; the prompt in the app)
        frames: list[tuple[bool, bool]] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, lambda _screen: (
            frames.append((title.shown is not None,
                           in_view(view.widget_for(transcript.items[-1]))))), immediate=True)
        title.show((SENDING, "hello"))
        await wait_until(pilot, lambda: title.shown is not None, what="the name shown")
        await settled(pilot, view)
        assert frames == []  # naming it laid nothing out
        title.show(None)  # as the screen hears of it: the name first, then the message
        view.apply(transcript.add_user("hello"))
        await wait_until(pilot, lambda: frames, what="the message in the chat")
        await settled(pilot, view)
        assert frames == [(False, True)]


def in_view(widget: ItemWidget | None) -> bool:
    """Whether ``widget`` is mounted and laid out in the view."""
    return widget is not None and widget.is_attached and bool(widget.region)


async def test_a_followed_chat_keeps_its_end_in_view_in_the_frame_a_row_shows_below_it() -> None:
    """A row shown below the chat takes a line from it: the layout that does so scrolls the
    chat by that line (Textual's anchor scrolled by its old height, a second frame fixed it)."""
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 10)
        await settled(pilot, view)
        scroll, pending = view.scroll, view.query_one("#pending")
        frames: list[tuple[int, float, int]] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, lambda _screen: (
            frames.append((pending.size.height, scroll.scroll_y, scroll.max_scroll_y))),
            immediate=True)
        for rows, height in (([("queued", "later")], 1), ([], 0)):
            frames.clear()
            view.set_pending(rows)
            await wait_until(pilot, lambda height=height: pending.size.height == height,
                             what=f"{height} pending rows")
            await settled(pilot, view)
            shown = next(frame for frame in frames if frame[0] == height)
            assert shown[1] == shown[2], f"the first frame with {height} rows is at the end"
            assert scroll.scroll_y == scroll.max_scroll_y


async def test_chunks_are_coalesced_and_the_final_state_is_synced() -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        view.apply(transcript.feed(reply("a1", "start")))
        await all_mounted(pilot, view, transcript.items)
        widget = view.widget_for(transcript.items[0])
        assert widget is not None
        synced: list[str] = []
        original_sync = widget.sync
        widget.sync = lambda: (synced.append(widget.item.text), original_sync())  # type: ignore[method-assign]
        for number in range(200):
            view.apply(transcript.feed(reply("a1", f" {number}")))
        view.flush()
        assert len(synced) == 1
        assert synced[-1].endswith(" 199")


async def test_old_items_are_unmounted_and_come_back_when_scrolled_to_the_top() -> None:
    async with long_chat() as (app, pilot, view, transcript):
        mounted = len(view.mounted_items)
        # Following the bottom, the newest items that fill a few views stay (these are
        # short: fewer than the limit), once the slack is passed.
        kept = view.scroll.kept_while_following(view.mounted_items)
        assert kept <= mounted <= kept + min(PRUNE_SLACK, kept) and mounted < MAX_MOUNTED
        assert mounted_keys(view) == [item.key for item in transcript.items[-mounted:]]
        earlier = app.query_one("#earlier")
        assert earlier.display
        first = view.widget_for(view.mounted_items[0])
        assert first is not None
        view.scroll.scroll_home(animate=False)
        await wait_until(pilot, lambda: first.item is not view.mounted_items[0],
                         what="a batch mounted above")
        await settled(pilot, view)
        # A batch came back above; the newest stay (the window is within its limit).
        assert len(view.mounted_items) == mounted + EARLIER_BATCH <= MAX_MOUNTED + PRUNE_SLACK
        assert view.mounted_items[EARLIER_BATCH] is first.item
        assert view.mounted_items[-1] is transcript.items[-1]
        assert mounted_keys(view) == [item.key for item in view.mounted_items]
        assert not view.following
        # What was at the top stays in place: the new batch is above it, out of view.
        assert view.scroll.scroll_y > 0
        assert first.region.y - view.scroll.region.y == earlier.outer_size.height


def scroll_home_until_unmounted(view: ChatView, item: Item) -> Callable[[], bool]:
    """A condition that scrolls to the top, as the mouse wheel does, until ``item`` is
    unmounted (each scroll to the top mounts a batch above)."""

    def unmounted() -> bool:
        if item not in view.mounted_items:
            return True
        view.scroll.release_hold()
        view.scroll.scroll_home(animate=False)
        return False

    return unmounted


async def read_far_back(view: ChatView, transcript: Transcript, pilot: Pilot[None]) -> None:
    """Scroll to the top, as the mouse wheel does, until the newest item is unmounted."""
    await wait_until(pilot, scroll_home_until_unmounted(view, transcript.items[-1]),
                     timeout=20, what="the newest item unmounted")
    await settled(pilot, view)
    assert transcript.items[-1] not in view.mounted_items


def waiting_widgets(view: ChatView) -> list[ItemWidget]:
    """Item widgets still in the DOM whose items the view no longer shows."""
    return [child for child in view.scroll.children
            if isinstance(child, ItemWidget) and view.widget_for(child.item) is not child]


async def test_a_window_move_removes_what_it_unmounts_in_the_same_step() -> None:
    async with long_chat() as (_app, pilot, view, _transcript):
        newest = view.widget_for(view.mounted_items[-1])
        assert newest is not None
        await wait_until(pilot, scroll_home_until_unmounted(view, newest.item), timeout=20,
                         what="a window move that unmounts the newest")
        await view.scroll.wait_for_mounts()
        assert not waiting_widgets(view)
        assert not newest.is_attached
        assert len(mounted_keys(view)) == len(view.mounted_items)


async def test_widgets_pruned_while_following_leave_the_dom_once_the_view_is_quiet(
        wait_until) -> None:
    async with long_chat() as (_app, pilot, view, transcript):
        oldest = view.widget_for(view.mounted_items[0])
        assert oldest is not None
        add_turns(view, transcript, PRUNE_SLACK)
        added = transcript.items[-2 * PRUNE_SLACK:]
        await all_mounted(pilot, view, added)
        assert oldest.item not in view.mounted_items
        waiting = waiting_widgets(view)
        assert oldest in waiting, "a pruned widget is hidden at first"
        assert all(not child.display for child in waiting)
        assert len(waiting) <= RETIRED_LIMIT
        await wait_until(pilot, lambda: not waiting_widgets(view), what="pruned widgets gone")
        assert not any(child.is_attached for child in waiting)
        assert len(mounted_keys(view)) == len(view.mounted_items)


async def test_scrolling_down_again_brings_the_newest_back_and_follows() -> None:
    async with long_chat() as (_app, pilot, view, transcript):
        await read_far_back(view, transcript, pilot)

        def following_again() -> bool:
            assert len(view.mounted_items) <= MAX_MOUNTED + PRUNE_SLACK
            if view.following:
                return True
            view.scroll.release_hold()  # as the mouse wheel does
            view.scroll.scroll_end(animate=False)
            return False

        await wait_until(pilot, following_again, timeout=20, what="following the bottom again")
        assert view.following
        assert view.mounted_items[-1] is transcript.items[-1]
        assert mounted_keys(view) == [item.key for item in view.mounted_items]
        add_turns(view, transcript, 1)  # followed again: new content mounts at the bottom
        await pilot.pause()
        assert view.mounted_items[-1] is transcript.items[-1]
        assert view.widget_for(transcript.items[-1]) is not None


async def test_new_items_wait_below_while_reading_far_back_and_end_brings_them() -> None:
    async with long_chat() as (app, pilot, view, transcript):
        await read_far_back(view, transcript, pilot)
        shown = list(view.mounted_items)
        add_turns(view, transcript, 2)
        await pilot.pause()
        assert view.mounted_items == shown  # nothing moved under the reader
        indicator = app.query_one("#new-indicator")
        assert indicator.display
        waiting = len(transcript.items) - transcript.items.index(shown[-1]) - 1
        assert f"↓ {waiting} later items" in str(indicator.render())
        view.action_jump_to_bottom()
        await pilot.pause()
        mounted = view.mounted_items
        assert mounted == transcript.items[-len(mounted):]  # the newest, in one piece
        assert mounted_keys(view) == [item.key for item in mounted]
        assert OPENING_BATCH <= len(mounted) < MAX_MOUNTED  # a screenful, not a whole window
        assert view.scroll.max_scroll_y > 0
        assert not indicator.display
        assert view.following


async def test_jumping_far_away_mounts_a_window_around_the_target() -> None:
    async with long_chat() as (_app, pilot, view, transcript):
        target = transcript.items[50]
        widget = await view.scroll_to_item(target)
        await pilot.pause()
        assert widget is not None and widget.is_mounted
        assert view.mounted_items == transcript.items[40:40 + MAX_MOUNTED]
        assert mounted_keys(view) == [item.key for item in view.mounted_items]
        assert view.scroll.scroll_y == widget.virtual_region.y
        newest = transcript.items[-1]
        assert await view.scroll_to_item(newest) is not None
        await pilot.pause()
        assert view.mounted_items[-1] is newest
        assert len(view.mounted_items) == MAX_MOUNTED


@pytest.mark.parametrize(("height", "batches"), [(24, 0), (60, 2)])
async def test_a_large_page_mounts_its_newest_items_until_the_view_is_full(
        height: int, batches: int) -> None:
    app = ViewApp()
    async with app.run_test(size=(80, height)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        history = [reply(f"a{number}", f"answer {number}") for number in range(500)]
        view.apply(transcript.load_history(history))
        await wait_until(pilot, lambda: view.scroll.max_scroll_y > 0, what="the view full")
        await settled(pilot, view)
        size = view.scroll.size
        opened = min(OPENING_BATCH, screenful(transcript.items, size.width, size.height))
        mounted = opened + batches * EARLIER_BATCH
        assert mounted_keys(view) == [item.key for item in transcript.items[-mounted:]]
        assert view.scroll.max_scroll_y > 0  # the view is full, so scrolling up shows more
        assert f"{500 - mounted} earlier items" in str(app.query_one("#earlier").render())


async def test_a_page_of_long_replies_opens_with_about_a_screenful_of_them() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        long_text = "\n\n".join(f"paragraph {line}" for line in range(20))
        history = [reply(f"a{number}", long_text) for number in range(100)]
        view.apply(transcript.load_history(history))
        await wait_until(pilot, lambda: view.scroll.max_scroll_y > 0, what="the view full")
        await settled(pilot, view)
        mounted = mounted_keys(view)
        assert mounted == [item.key for item in transcript.items[-len(mounted):]]
        assert len(mounted) < OPENING_BATCH  # not a whole batch of long replies
        scroll = view.scroll
        assert scroll.max_scroll_y >= scroll.size.height  # a screen to scroll back through
        assert view.following and scroll.scroll_y == scroll.max_scroll_y


async def test_scrolled_up_view_stays_put_and_offers_a_jump_to_new_content() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 30, paragraphs=4)  # (the few views kept scroll)
        await pilot.pause()
        assert view.following
        view.scroll.scroll_to(y=5, animate=False)
        await pilot.pause()
        add_turns(view, transcript, 1)
        await pilot.pause()
        assert view.scroll.scroll_y == 5
        assert app.query_one("#new-indicator").display
        await pilot.click("#new-indicator")
        await pilot.pause()
        assert view.following
        assert not app.query_one("#new-indicator").display


async def test_a_change_above_the_newest_item_is_not_news_for_a_scrolled_up_view() -> None:
    """A card unfolded by a search, a footer given its tokens: nothing new came."""
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 30, paragraphs=4)
        await pilot.pause()
        view.scroll.scroll_to(y=5, animate=False)
        await pilot.pause()
        indicator = app.query_one("#new-indicator")
        unfolded = Change()
        unfolded.touch(transcript.items[3])
        view.apply(unfolded)
        await pilot.pause()
        assert not indicator.display
        view.apply(transcript.feed(reply("a29", " and more")))  # the newest reply grows
        await pilot.pause()
        assert indicator.display


async def test_a_reply_that_grew_since_the_last_layout_is_not_taken_for_a_scroll_away(
        ) -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 30)
        await pilot.pause()
        scroll = view.scroll
        assert view.following and scroll.scroll_y == scroll.max_scroll_y
        # As between two layouts: the content grew, the anchor has not moved the view yet.
        scroll.set_reactive(ChatScroll.scroll_y, scroll.max_scroll_y - 3)
        assert view.following
        view.apply(transcript.feed(reply("a29", " and a good deal more" * 12)))
        await laid_out(pilot, view)
        assert not app.query_one("#new-indicator").display
        assert view.following and scroll.scroll_y == scroll.max_scroll_y  # the anchor moved it
        scroll.scroll_relative(y=-3, animate=False)  # the user scrolls away
        await pilot.pause()
        assert not view.following


async def test_internal_items_are_hidden_until_toggled(monkeypatch) -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        system = parse_message({"message_type": "system_message", "id": "s1",
                                "content": "You are a helpful agent."})
        view.apply(transcript.load_history([system, reply("r1", "- one\n- two")]))
        await all_mounted(pilot, view, transcript.items)
        widget, answer = (view.widget_for(item) for item in transcript.items)
        assert widget is not None and answer is not None and not widget.display
        styled = restyled(app, monkeypatch)
        view.show_internal = True
        await pilot.pause()
        assert widget.display
        # Only the view and the internal items are styled again, not the rest of the chat.
        assert widget in styled and not any(
            node in styled for node in answer.walk_children(with_self=True))
        view.show_internal = False
        await pilot.pause()
        assert not widget.display


async def test_an_older_page_is_mounted_above_everything() -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        view.apply(transcript.load_history([reply("new", "newest")]))
        view.apply(transcript.prepend_history([reply("old", "oldest")]))
        await pilot.pause()
        assert mounted_keys(view) == [item.key for item in transcript.items]
        assert transcript.items[0].text == "oldest"  # type: ignore[attr-defined]


async def test_clear_unmounts_everything_and_the_earlier_row_brings_it_back() -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view, transcript = app.query_one(ChatView), Transcript()
        add_turns(view, transcript, 2)
        await pilot.pause()
        view.clear()
        await pilot.pause()
        assert mounted_keys(view) == []
        await pilot.click("#earlier")
        await pilot.pause()
        assert mounted_keys(view) == [item.key for item in transcript.items]


async def test_earlier_row_tells_whether_older_history_exists() -> None:
    app = ViewApp()
    async with app.run_test() as pilot:
        view = app.query_one(ChatView)
        earlier = app.query_one("#earlier", Static)
        assert not earlier.display
        view.more_on_server = True
        await pilot.pause()
        assert earlier.display and "load earlier" in str(earlier.render())
        view.more_on_server = False
        await pilot.pause()
        assert earlier.display and earlier.has_class("-beginning")
        assert str(earlier.render()) == BEGINNING


async def test_asking_for_an_older_page_repaints_the_row_without_a_layout() -> None:
    async with long_chat() as (app, pilot, view, transcript):
        view.more_on_server = True
        await view.scroll_to_item(transcript.items[0])  # every known item above is mounted
        await settled(pilot, view)
        earlier = app.query_one("#earlier", Static)
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append,
                                                          immediate=True)
        view.show_earlier()
        await pilot.pause()  # until the app is idle: a layout asked for would have run by now
        assert str(earlier.render()) == "loading earlier messages…"
        assert earlier.region.height == 1
        assert layouts == []


async def test_the_wheel_at_the_top_asks_again_for_an_older_page() -> None:
    async with long_chat() as (app, pilot, view, transcript):
        view.more_on_server = True
        await view.scroll_to_item(transcript.items[0])  # every known item above is mounted
        await settled(pilot, view)
        view.scroll.scroll_home(animate=False, immediate=True)  # at the top: asks
        await pilot.pause()
        earlier = app.query_one("#earlier", Static)
        assert str(earlier.render()) == "loading earlier messages…"
        view.earlier_failed()  # the page did not come; the view stays at the top
        await pilot.pause()
        assert "load earlier" in str(earlier.render()) and view.scroll.scroll_y == 0
        scroll = view.scroll
        scroll.post_message(events.MouseScrollUp(scroll, 1, 1, 0, -1, 0, False, False, False))
        await pilot.pause()
        assert str(earlier.render()) == "loading earlier messages…"


async def test_a_window_move_is_laid_out_once_everything_in_it_is_mounted() -> None:
    async with long_chat() as (app, pilot, view, _transcript):
        top = view.mounted_items[0]
        view.scroll.scroll_home(animate=False)  # reading back: the next batch goes above
        await wait_until(pilot, lambda: view.mounted_items[0] is not top,
                         what="a batch mounted above")
        await settled(pilot, view)
        first = view.mounted_items[0]
        view.show_earlier()
        new = [view.widget_for(item) for item in view.mounted_items[:EARLIER_BATCH]]
        replies = [widget for widget in new if isinstance(widget, AssistantMessage)]
        assert replies, "replies mount their Markdown blocks a step after themselves"
        seen_at_first_layout: list[bool] = []

        def on_layout(_screen: object) -> None:
            if not seen_at_first_layout:
                seen_at_first_layout.append(all(reply.children for reply in replies))

        app.screen.screen_layout_refresh_signal.subscribe(app.screen, on_layout,
                                                          immediate=True)
        await wait_until(pilot, lambda: seen_at_first_layout, what="a layout after the move")
        assert view.mounted_items[EARLIER_BATCH] is first
        assert seen_at_first_layout == [True]


class ScrollApp(App[None]):
    """A chat scroller holding an edge row and 30 rows, each 2 lines high."""

    CSS = "Static { height: 2; }"

    def compose(self) -> ComposeResult:
        with ChatScroll():
            yield Static("edge")
            yield from (Static(f"row {number}") for number in range(30))


async def test_a_held_widget_stays_put_even_when_the_height_does_not_change() -> None:
    app = ScrollApp()
    async with app.run_test(size=(40, 10)) as pilot:
        scroll = app.query_one(ChatScroll)
        scroll.scroll_to(y=20, animate=False, immediate=True)
        await pilot.pause()
        rows = list(scroll.query(Static))
        held = rows[12]
        on_screen = held.region.y
        scroll.hold_in_place(held)
        first_frame: list[int] = []
        app.screen.screen_layout_refresh_signal.subscribe(
            app.screen, lambda _screen: first_frame or first_frame.append(held.region.y),
            immediate=True)
        # Four rows go above and four go out below: the total height stays the same.
        above = [Static(f"new {number}") for number in range(4)]
        await scroll.mount_held(above, after=0, remove=rows[-4:]).wait()
        await wait_until(pilot, lambda: first_frame, what="a frame with the new rows")
        assert above[0].is_attached and not rows[-1].is_attached
        assert first_frame == [on_screen], "the first frame with the new rows is scrolled"
        assert scroll.virtual_size.height == 62
        assert held.region.y == on_screen
        assert scroll.scroll_y == 28


async def test_held_updates_resume_even_when_the_scroller_goes_away_mid_mount() -> None:
    app = ScrollApp()
    async with app.run_test(size=(40, 10)) as pilot:
        scroll = app.query_one(ChatScroll)
        released = scroll.mount_held([Static("new")], after=0)
        await scroll.remove()
        # Released when the mount fails, at the latest after MOUNT_HOLD_SECONDS.
        await wait_until(pilot, released.is_set, timeout=MOUNT_HOLD_SECONDS + 5,
                         what="the hold released")
        late = Static("late")
        await app.screen.mount(late)
        await wait_until(pilot, lambda: late.region.height > 0, what="a layout with the new row")
        assert late.region.height == 2, "the screen lays out again"


class SlowToGo(Static):
    """A row whose unmounting takes a while (a busy machine's removal of a long reply)."""

    gone = False

    async def on_unmount(self) -> None:
        await asyncio.sleep(0.5)
        self.gone = True


async def test_a_removal_slower_than_the_hold_still_ends(monkeypatch) -> None:
    monkeypatch.setattr(chat_scroll, "MOUNT_HOLD_SECONDS", 0.05)
    app = ScrollApp()
    async with app.run_test(size=(40, 10)) as pilot:
        scroll = app.query_one(ChatScroll)
        slow = SlowToGo("slow")
        await scroll.mount(slow)
        released = scroll.mount_held([Static("new")], after=0, remove=[slow])
        gone_when_released: list[bool] = []

        async def note_release() -> None:
            await released.wait()
            gone_when_released.append(slow.gone)

        noting = asyncio.create_task(note_release())
        await wait_until(pilot, lambda: slow.gone and not slow.is_attached,
                         what="the slow row unmounted and detached")
        await noting
        # The wait for the removal gave up; the removal itself was not cut short.
        assert gone_when_released == [False], "the hold ends while the removal goes on"
        await pilot.press("a")  # the pilot waits for every widget to take its messages
