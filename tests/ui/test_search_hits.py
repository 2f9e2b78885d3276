"""Finding where a widget draws a query: the widget, the row and the words to select."""

from __future__ import annotations

from textual.geometry import Region
from widget_app import ItemsApp

from openletta.transcript import AssistantItem, ReasoningItem
from openletta.ui.search_hits import Hit, find_hits
from openletta.ui.widgets import ReasoningBlock

SIZE = (60, 40)
REPLY = ("# Needle\n\n" + "A paragraph long enough to wrap a few times at sixty cells: " * 3
         + "and its needle comes last.\n\n- one\n- a needle in a list\n\n"
         "| a | b |\n|---|---|\n| x | NEEDLE |\n")


def drawn_row(hit: Hit) -> str:
    widget = hit.widget
    return widget.render_lines(Region(0, 0, *widget.region.size))[hit.row].text


async def test_each_place_a_reply_draws_the_query_top_to_bottom() -> None:
    item = AssistantItem(key="a", text=REPLY, done=True)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        reply = app.widget_of(item)
        hits = find_hits(reply, " needle ")
        assert len(hits) == 4
        assert all("needle" in drawn_row(hit).lower() for hit in hits)
        selected = [hit.widget.get_selection(hit.selection) for hit in hits if hit.selection]
        assert [text for text, _ in selected] == ["Needle", "needle", "needle", "NEEDLE"]
        rows = [hit.row_in(reply) for hit in hits]
        assert rows == sorted(rows) and len(set(rows)) == 4
        paragraph = hits[1]
        assert paragraph.row > 0, "the needle is on a later line of its wrapped paragraph"
        assert find_hits(reply, "no such words") == [] and find_hits(reply, "  ") == []


async def test_a_thought_drawn_without_selectable_text_gives_its_rows() -> None:
    lines = [f"line {number}" for number in range(30)]
    lines[20] = "the needle is here"
    item = ReasoningItem(key="r", text="\n".join(lines), done=True)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        block = app.widget_of(item)
        assert isinstance(block, ReasoningBlock)
        assert find_hits(block, "needle") == [], "not drawn while it is folded"
        block.expanded = True
        await pilot.pause()
        (hit,) = find_hits(block, "needle")
        assert hit.widget is block and hit.selection is None
        assert hit.row == 21 and "the needle is here" in drawn_row(hit)


async def test_the_last_line_of_a_code_block_is_found_under_its_padding() -> None:
    item = AssistantItem(key="a", text="```python\ntotal = 0\nreturn total\n```\n", done=True)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        (hit,) = find_hits(app.widget_of(item), "return total")
        assert "return total" in drawn_row(hit)
