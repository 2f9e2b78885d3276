"""Ctrl+F counts an item as a match exactly when its widget draws the query: the shown text
of a reply (its Markdown rendered, made without a widget) and the places the mounted reply
draws a query agree, for any Markdown (property test)."""

from __future__ import annotations

import asyncio
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from widget_app import ItemsApp

from openletta.transcript import AssistantItem, ToolCallItem, ToolStatus
from openletta.transcript.search import find_items, query_pattern
from openletta.ui.search_hits import find_hits
from openletta.ui.shown_text import shown_text

#: Wide enough that no generated code line or table row is cut or wrapped (a code line
#: wider than the reply scrolls sideways: a match past the edge is not drawn).
SIZE = (120, 200)
WORDS = ("alpha", "Beta", "gamma", "x1", "foo_bar", "a-b", "42", "naïve")
#: What Markdown writes but does not show, and what it shows.
SYNTAX = ("**", "*", "_", "`", "```", "#", "##", "](", "](https", "https://ex.invalid",
          "ex.invalid/p", "|", "---", "|---|", "<b>", "</b>", "&amp;", "&", ">", "- ", "1.",
          "img.png", "🖼", "python", "hidden", "  ")

word = st.sampled_from(WORDS)


def decorated(text: str, mark: int) -> str:
    return ["{}", "**{}**", "*{}*", "_{}_", "`{}`", "[{}](https://ex.invalid/p)",
            "<b>{}</b>", "~~{}~~", "![{}](img.png)", "{} &amp;"][mark].format(text)


inline = st.lists(st.tuples(word, st.integers(0, 9)), min_size=1, max_size=6).map(
    lambda parts: " ".join(decorated(text, mark) for text, mark in parts))
code_line = st.lists(word, min_size=1, max_size=4).map(" = ".join)
block = st.one_of(
    inline,
    st.tuples(st.integers(1, 3), inline).map(lambda heading: "#" * heading[0] + " " + heading[1]),
    st.lists(code_line, min_size=1, max_size=3).map(
        lambda lines: "```python\n" + "\n".join(lines) + "\n```"),
    st.lists(inline, min_size=1, max_size=3).map(
        lambda items: "\n".join(f"- {text}" for text in items)),
    st.lists(inline, min_size=1, max_size=3).map(
        lambda items: "\n".join(f"{n}. {text}" for n, text in enumerate(items, 1))),
    st.tuples(word, word, word, word).map(
        lambda cells: "| {} | {} |\n|---|---|\n| `{}` | **{}** |".format(*cells)),
    inline.map(lambda text: f"> {text}"),
    inline.map(lambda text: f"<div>\nhidden {text}\n</div>"),
    st.tuples(inline, inline).map(lambda lines: f"{lines[0]}  \n{lines[1]}"),
)
document = st.lists(block, min_size=1, max_size=5).map("\n\n".join)


def queries(source: str, shown: str) -> set[str]:
    """What a user might look for: Markdown syntax, and pieces of the source and of the
    shown text (a word, two words, across a line of the source)."""
    pieces = {*SYNTAX, *WORDS}
    for text in (source, shown):
        words = text.split(" ")
        pieces.update(words)
        pieces.update(" ".join(pair) for pair in pairwise(words))
    return {piece for piece in pieces if piece.strip() and "\n" not in piece.strip()}


async def disagreements(documents: list[str]) -> list[tuple[str, str, bool]]:
    """For each reply: the queries on which its widget and its shown text disagree."""
    items = [AssistantItem(key=str(index), text=text, done=True)
             for index, text in enumerate(documents)]
    found = []
    app = ItemsApp(items)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for item in items:
            widget, shown = app.widget_of(item), shown_text(item)
            for query in queries(item.text, shown):
                drawn = bool(find_hits(widget, query))
                counted = bool(find_items([item], query, shown_text))
                if drawn != counted:
                    found.append((item.text, query, drawn))
    return found


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(document, min_size=8, max_size=8))
def test_a_reply_counts_as_a_match_exactly_when_it_draws_the_query(
        documents: list[str]) -> None:
    assert asyncio.run(disagreements(documents)) == []


def test_the_query_is_matched_as_the_widgets_match_it() -> None:
    pattern = query_pattern("  Needle ")
    assert pattern is not None and pattern.search("a NEEDLE here")
    assert query_pattern("   ") is None


CALLS = [
    ToolCallItem(key="bash", name="bash", arguments_text='{"command": "make deploy"}',
                 status=ToolStatus.SUCCESS, result='{"stdout": "deployed to prod\\n"}'),
    ToolCallItem(key="read", name="read_file", arguments_text='{"path": "src/app.py"}',
                 status=ToolStatus.SUCCESS, result="import os\nprint(os.getcwd())\n"),
    ToolCallItem(key="tool", name="my_tool", arguments_text='{"city": "Oslo", "days": 3}',
                 status=ToolStatus.SUCCESS, result='{"forecast": "rain"}'),
    ToolCallItem(key="denied", name="bash", arguments_text='{"command": "rm -rf build"}',
                 status=ToolStatus.DENIED, needs_approval=True, reason="not now"),
    ToolCallItem(key="raw", name="bash", arguments_text='{"command": "ls'),
]


def test_a_card_counts_as_a_match_exactly_when_it_draws_the_query() -> None:
    async def check() -> list[tuple[str, str, bool]]:
        found = []
        app = ItemsApp(CALLS)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            for item in CALLS:
                card = app.widget_of(item)
                shown = shown_text(item, card.content_region.width)
                for query in queries(item.arguments_text + " " + (item.result or ""), shown):
                    counted = bool(find_items([item], query, shown_text))
                    if bool(find_hits(card, query)) != counted:
                        found.append((item.key, query, counted))
        return found

    assert asyncio.run(check()) == []
