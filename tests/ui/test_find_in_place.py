"""Ctrl+F in a long reply: the view goes to the line the match is on and selects the match,
and stepping goes from one occurrence to the next inside the reply (demo server)."""

from __future__ import annotations

import pytest
from chat_helpers import demo_chat, laid_out, restyled, send
from textual.widget import Widget
from widget_app import shown_text

from openletta.transcript import AssistantItem, ToolCallItem, ToolStatus, UserItem
from openletta.ui import shown_text as shown_text_module
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.search_bar import MATCH_CLASS, READ_AHEAD_BATCH
from openletta.ui.widgets import ToolCallCard

SIZE = (100, 30)
#: The last line of the demo's long reply (about 140 lines), and words in each of its six
#: parts.
ENDING = "end of the long answer"
IN_EACH_PART = "second point"


def marked(screen: ChatScreen) -> list[object]:
    return [widget.item for widget in screen.view.scroll.query(f".{MATCH_CLASS}")]


def selected(screen: ChatScreen) -> tuple[Widget, str] | None:
    """The one widget with selected text, and that text."""
    if len(screen.selections) != 1:
        return None
    ((widget, _),) = screen.selections.items()
    return widget, screen.get_selected_text() or ""


def selected_widget(screen: ChatScreen) -> Widget | None:
    found = selected(screen)
    return found[0] if found is not None else None


def in_view(screen: ChatScreen, text: str) -> bool:
    """Whether the selected text is ``text`` (ignoring case) and is on screen."""
    found = selected(screen)
    return found is not None and found[1].lower() == text \
        and text in shown_text(found[0]).lower()


def long_reply(screen: ChatScreen) -> AssistantItem:
    (reply,) = [item for item in screen.session.transcript.items
                if isinstance(item, AssistantItem) and ENDING in item.text]
    return reply


async def test_a_match_deep_in_a_long_reply_is_shown_and_selected(
        demo_server, make_app, wait_until, monkeypatch) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (app, pilot,
                                                                               screen):
        await send(pilot, screen, "long", wait_until)
        await send(pilot, screen, "hi", wait_until)
        reply = long_reply(screen)
        styled = restyled(app, monkeypatch)
        await pilot.press("ctrl+f", *ENDING, "enter")
        await wait_until(pilot, lambda: marked(screen) == [reply], what="the reply marked")
        # The reply is tinted as a whole: what is inside it is not styled again.
        marked_widget = screen.view.widget_for(reply)
        assert marked_widget in styled and not any(
            node in styled for node in marked_widget.walk_children())
        await laid_out(pilot, screen.view)
        assert ENDING in shown_text(screen.view.scroll).lower(), "the match's line on screen"
        await wait_until(pilot, lambda: in_view(screen, ENDING),
                         what="the match on screen, selected")
        scroll = screen.view.scroll
        found = selected(screen)
        assert found is not None
        assert found[0].region.y > scroll.region.y, "some of what leads to it is shown above"
        await pilot.press("escape")
        assert selected(screen) is None


async def test_steps_go_through_each_occurrence_in_the_reply(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (_, pilot, screen):
        await send(pilot, screen, "long", wait_until)
        reply = long_reply(screen)
        await pilot.press("ctrl+f", *IN_EACH_PART, "enter")
        await wait_until(pilot, lambda: marked(screen) == [reply], what="the reply marked")
        seen: list[Widget] = []
        for step in range(6):  # from the last occurrence up to the first
            if step:
                await pilot.press("up")
            await wait_until(pilot, lambda: in_view(screen, IN_EACH_PART)
                             and selected_widget(screen) not in seen,
                             what=f"occurrence {6 - step} on screen")
            assert marked(screen) == [reply]
            assert f"{6 - step} of 6" in str(screen.search.query_one("#search-count").render())
            widget = selected_widget(screen)
            assert widget is not None
            seen.append(widget)
        assert [widget.region.y for widget in seen] == sorted(
            (widget.region.y for widget in seen), reverse=True), "from the bottom up"
        await pilot.press("down")
        await wait_until(pilot, lambda: in_view(screen, IN_EACH_PART)
                         and selected_widget(screen) is seen[-2],
                         what="the second occurrence again")

async def test_a_match_in_folded_output_unfolds_the_card_and_is_shown(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, (100, 20)) as (
            _, pilot, screen):
        await send(pilot, screen, "read", wait_until)
        (call,) = [item for item in screen.session.transcript.items
                   if isinstance(item, ToolCallItem)]
        card = screen.view.widget_for(call)
        assert isinstance(card, ToolCallCard) and card.has_class("-foldable")
        assert not card.expanded and "__main__" not in shown_text(card)
        await pilot.press("ctrl+f", *"__main__", "enter")
        await wait_until(pilot, lambda: marked(screen) == [call], what="the card marked")
        await wait_until(pilot, lambda: in_view(screen, "__main__"),
                         what="the match on screen, selected")
        assert card.expanded



async def test_a_match_on_the_first_line_of_a_message_has_what_leads_to_it_above(
        demo_server, make_app, wait_until) -> None:
    """Not on the view's top row: the rows above show where in the chat it is."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (_, pilot, screen):
        await send(pilot, screen, "hello", wait_until)
        await send(pilot, screen, "find me here", wait_until)
        await send(pilot, screen, "long", wait_until)
        (message,) = [item for item in screen.session.transcript.items
                      if isinstance(item, UserItem) and item.text == "find me here"]
        await pilot.press("ctrl+f", *"find me here", "enter")
        await wait_until(pilot, lambda: marked(screen) == [message], what="the message marked")
        await wait_until(pilot, lambda: in_view(screen, "find me here"),
                         what="the match on screen, selected")
        await laid_out(pilot, screen.view)
        search, scroll = screen.search, screen.view.scroll
        assert search.hit is not None
        hit = search.hits[search.hit]
        rows_above = hit.widget.region.y + hit.row - scroll.region.y
        assert 2 <= rows_above <= scroll.page_height // 4  # a few rows: it stays near the top


def count(screen: ChatScreen) -> str:
    return str(screen.search.query_one("#search-count").render())


async def test_markdown_syntax_and_link_addresses_are_not_counted_and_code_is_found(
        demo_server, make_app, wait_until) -> None:
    """What a reply shows is searched, not its Markdown source: ``**`` or a link's address
    count nothing (nothing on screen shows them); a line of code is shown and selected.
    (Ctrl+F again selects the query, and typing replaces it.)"""
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (_, pilot, screen):
        await send(pilot, screen, "long", wait_until)
        reply = long_reply(screen)
        assert "**" in reply.text and "example.invalid/part-1" in reply.text
        await pilot.press("ctrl+f", *"**")
        await wait_until(pilot, lambda: count(screen) == "no matches", what="** not counted")
        await pilot.press("ctrl+f", *"example.invalid/part-1")
        await wait_until(pilot, lambda: count(screen) == "no matches",
                         what="a link's address not counted")
        await pilot.press("ctrl+f", *"return total", "enter")
        await wait_until(pilot, lambda: marked(screen) == [reply], what="the reply marked")
        await wait_until(pilot, lambda: in_view(screen, "return total"),
                         what="the last line of a code block on screen, selected")


async def test_opening_find_reads_the_shown_text_ahead_of_the_query(
        long_history, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long history's Markdown is read as the bar opens, not at the first key typed."""
    async with demo_chat(make_app, long_history.base_url, wait_until) as (app, pilot, screen):
        replies = [item for item in screen.session.transcript.items
                   if isinstance(item, AssistantItem)]
        assert len(replies) > READ_AHEAD_BATCH  # (read in batches)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: not any(worker.group == "find-read-ahead"
                                                for worker in app.workers),
                         what="the text read ahead")

        def unread(text: str) -> str:
            raise AssertionError("a reply's Markdown read again at the query")

        monkeypatch.setattr(shown_text_module, "markdown_text", unread)
        await pilot.press(*"the")
        await wait_until(pilot, lambda: screen.search.matches, what="matches")


async def test_a_query_only_in_the_middle_a_card_leaves_out_is_told_of(
        demo_server, make_app, wait_until) -> None:
    """A long output's card shows its two ends: a line from its middle is no match (nothing on
    screen shows it), but the bar says an output holds it, where the search did not look."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (_, pilot, screen):
        await send(pilot, screen, "hello", wait_until)
        output = "".join(f"{number}\n" for number in range(100_001, 101_001))
        call = ToolCallItem(key="long-output", tool_call_id="call-long", name="Bash",
                            status=ToolStatus.SUCCESS, runs_here=True,
                            arguments_text='{"command": "seq 100001 101000"}',
                            result=f"Exit code: 0\n{output}", stdout=[output])
        screen.session.transcript.items.append(call)
        assert "100150" in shown_text_module.shown_text(call)
        assert "100500" not in shown_text_module.shown_text(call)
        await pilot.press("ctrl+f", *"100500")
        await wait_until(pilot, lambda: count(screen).startswith(
            "no matches · also in lines not shown of 1 tool output"), what="the output told of")
        await pilot.press("ctrl+f", *"100150")
        await wait_until(pilot, lambda: count(screen) == "1 matches", what="a shown line found")
