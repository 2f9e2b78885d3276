"""The estimate of how many of the newest items fill the chat view."""

from __future__ import annotations

from openletta.transcript import AssistantItem, ReasoningItem, SystemItem, TurnFooterItem, UserItem
from openletta.ui.screenful import (
    KEPT_AT_LEAST,
    KEPT_SCREENS,
    MARGIN,
    MESSAGE_MARGIN,
    SMALL_ITEM_ROWS,
    estimated_rows,
    kept_while_following,
    screenful,
)


def answer(key: str, lines: int, width: int = 10) -> AssistantItem:
    item = AssistantItem(key=key)
    item.append("\n".join("x" * width for _ in range(lines)))
    return item


def test_a_message_counts_its_lines_wrapped_at_the_width() -> None:
    assert estimated_rows(UserItem(key="u", text="one line"), 80) == MESSAGE_MARGIN + 1
    assert estimated_rows(UserItem(key="u", text="x" * 200 + "\nshort"), 80) == (
        MESSAGE_MARGIN + 3 + 1)
    assert estimated_rows(answer("a", 30), 80) == MESSAGE_MARGIN + 30


def test_items_whose_height_does_not_follow_their_text_count_as_small_and_hidden_as_none() -> None:
    thought = ReasoningItem(key="r")
    thought.append("a long thought\n" * 100)  # folded in history
    assert estimated_rows(thought, 80) == SMALL_ITEM_ROWS
    assert estimated_rows(TurnFooterItem(key="f"), 80) == SMALL_ITEM_ROWS
    assert estimated_rows(SystemItem(key="s", text="prompt\n" * 50), 80) == 0  # internal


def test_a_screenful_is_the_newest_items_that_fill_the_view_twice_over() -> None:
    height = 20
    long_answers = [answer(f"a{number}", 30) for number in range(10)]
    rows = MESSAGE_MARGIN + 30
    expected = -(-MARGIN * height // rows)  # rows of the newest add up to the budget
    assert screenful(long_answers, 80, height) == expected < len(long_answers)
    short = [UserItem(key=f"u{number}", text="hi") for number in range(5)]
    assert screenful(short, 80, height) == 5  # all of them: they do not fill it
    assert screenful([answer("huge", 500)], 80, height) == 1


def test_a_chat_that_follows_its_bottom_keeps_the_items_of_a_few_views_and_a_few_at_least(
        ) -> None:
    height = 40
    long_answers = [answer(f"a{number}", 60) for number in range(30)]
    rows = MESSAGE_MARGIN + 60
    assert -(-KEPT_SCREENS * height // rows) < KEPT_AT_LEAST  # (tall: the least is kept)
    assert kept_while_following(long_answers, 80, height) == KEPT_AT_LEAST
    short = [UserItem(key=f"u{number}", text="hi") for number in range(100)]
    assert kept_while_following(short, 80, height) == -(-KEPT_SCREENS * height // (
        MESSAGE_MARGIN + 1))  # as many as fill the views: more than the least


def test_a_chat_that_follows_its_bottom_keeps_as_many_items_as_it_opened_with() -> None:
    # A turn late in a session then lays out about as many widgets as the first turn did.
    height = 40
    for items in ([UserItem(key=f"u{number}", text="hi") for number in range(100)],
                  [answer(f"a{number}", 6) for number in range(100)]):
        assert kept_while_following(items, 80, height) == screenful(items, 80, height)
