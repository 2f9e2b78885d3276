"""Markdown tables of a reply: one widget that lays its columns out for its width, keeps
every word of every cell, styles cells as Textual does, and follows a streamed table."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.pilot import Pilot
from textual.style import Style
from textual.widgets import Markdown
from waiting import wait_until

from openletta.ui.widgets.assistant import ReplyMarkdown
from openletta.ui.widgets.paragraph import SteadyParagraph
from openletta.ui.widgets.table import NARROWEST, ReplyTable, TableVisual, column_widths

HEADER, LINES = Style(bold=True), Style(dim=True)
TABLE = """| keyword | what happens |
|---|---|
| `hello` | a short greeting |
| bash | runs ls (coloured output, exit status) and [shows](https://example.com) it |
"""


def visual(headers: list[str], rows: list[list[str]]) -> TableVisual:
    return TableVisual([Content(text) for text in headers],
                       [[Content(text) for text in row] for row in rows], HEADER, LINES)


def test_spare_width_is_shared_in_proportion_to_what_columns_want() -> None:
    assert column_widths([9, 40], [9, 9], 111) == [20, 91]  # as Textual's grid shares it
    assert column_widths([10, 10, 10], [3, 3, 3], 31) == [11, 10, 10]
    assert column_widths([5, 7], [3, 3], 12) == [5, 7]


def test_in_too_little_width_the_widest_columns_give_way_down_to_their_least() -> None:
    assert column_widths([30, 10], [8, 8], 30) == [20, 10]
    assert column_widths([30, 30], [8, 8], 30) == [15, 15]
    assert column_widths([30, 12], [12, 12], 20) == [12, 12]  # it cannot fit: it overflows


def test_a_table_is_drawn_in_lines_as_wide_as_its_room() -> None:
    table = visual(["name", "size"], [["a.txt", "1 kB"], ["b.txt", "22 kB"]])
    lines = [line.plain for line in table.draw(24)]
    assert lines == [
        "┌───────────┬──────────┐",
        "│ name      │ size     │",
        "├───────────┼──────────┤",
        "│ a.txt     │ 1 kB     │",
        "├───────────┼──────────┤",
        "│ b.txt     │ 22 kB    │",
        "└───────────┴──────────┘",
    ]
    assert table.get_height({}, 24) == 7
    assert table.get_optimal_width({}, 100) == 7 + 7 + 3


def test_narrow_cells_wrap_and_header_cells_sit_on_their_last_line() -> None:
    table = visual(["a long header", "b"], [["one two three four", "x"]])
    lines = [line.plain for line in table.draw(14)]
    assert lines[1:3] == ["│ a long │   │", "│ header │ b │"]
    assert lines[4:] == ["│ one    │ x │", "│ two    │   │", "│ three  │   │",
                         "│ four   │   │", "└────────┴───┘"]


def test_headers_and_lines_have_their_styles_and_cells_keep_theirs() -> None:
    table = TableVisual([Content("head")], [[Content.styled("cell", Style(italic=True))]],
                        HEADER, LINES)
    header_line, cell_line = table.draw(10)[1], table.draw(10)[3]
    assert [span.style for span in header_line.spans if span.style == HEADER]
    assert any(span.style == LINES for span in cell_line.spans)
    assert any(span.style == Style(italic=True) for span in cell_line.spans)


def test_rows_of_different_lengths_and_a_missing_header_are_drawn() -> None:
    table = visual([], [["a", "b", "c"], ["d"]])
    lines = [line.plain for line in table.draw(13)]
    assert lines[0] == "┌───┬───┬───┐" and lines[-1] == "└───┴───┴───┘"
    assert lines[3] == "│ d │   │   │"
    assert visual([], []).draw(10) == []


WORDS = st.text(alphabet="abcdefgh", min_size=1, max_size=12)
CELLS = st.lists(WORDS, max_size=4).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4).flatmap(lambda columns: st.tuples(
    st.lists(CELLS, min_size=columns, max_size=columns),
    st.lists(st.lists(CELLS, min_size=1, max_size=columns), max_size=4))),
    st.integers(0, 60))
def test_every_line_fills_the_width_and_no_word_is_lost(
        table_cells: tuple[list[str], list[list[str]]], extra: int) -> None:
    headers, rows = table_cells
    table = visual(headers, rows)
    least = sum(max([NARROWEST, *(len(word) + 2 for cell in column for word in cell.split())])
                for column in zip(*[headers, *[row + [""] * (len(headers) - len(row))
                                               for row in rows]], strict=False))
    width = least + len(headers) + 1 + extra
    lines = table.draw(width)
    assert {line.cell_length for line in lines} == {width}
    drawn = " ".join(line.plain for line in lines)
    for cell in [*headers, *(cell for row in rows for cell in row)]:
        for word in cell.split():
            assert word in drawn


class Replies(App[None]):
    """A reply with a table given whole on the left, and streamed on the right."""

    CSS = "Horizontal { height: auto; } ReplyMarkdown { width: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.opened.append(url)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield ReplyMarkdown(TABLE + "\nSay `hello`.", id="whole")
            yield ReplyMarkdown("", id="streamed")


def table_text(app: App[None], side: str) -> str:
    table = app.query_one(f"#{side}", Markdown).query_one(ReplyTable)
    lines = table.render_lines(table.region.reset_offset)
    return "\n".join(strip.text.rstrip() for strip in lines)


async def test_a_reply_table_is_one_widget_and_a_streamed_one_ends_as_the_whole() -> None:
    app = Replies()
    async with app.run_test(size=(120, 30)) as pilot:
        streamed = app.query_one("#streamed", ReplyMarkdown)
        for line in (TABLE + "\nSay `hello`.").splitlines(keepends=True):
            await streamed.append(line)
            await pilot.pause()
        await wait_until(pilot, lambda: len(streamed.query(ReplyTable)) == 1
                         and "shows" in table_text(app, "streamed"), what="the streamed table")
        whole = app.query_one("#whole", Markdown)
        assert not whole.query("MarkdownTableCellContents")  # no widget per cell
        assert table_text(app, "streamed") == table_text(app, "whole")
        assert "│ bash" in table_text(app, "whole")


async def whole_table(pilot: Pilot[None]) -> ReplyTable:
    """The table of the reply given whole, once it is laid out."""
    whole = pilot.app.query_one("#whole", Markdown)
    await wait_until(pilot, lambda: bool(whole.query(ReplyTable)), what="the table")
    table = whole.query_one(ReplyTable)
    await wait_until(pilot, lambda: table.region.height > 5, what="the table laid out")
    return table


async def test_inline_code_and_links_in_cells_are_styled_and_a_link_can_be_clicked() -> None:
    app = Replies()
    async with app.run_test(size=(120, 30)) as pilot:
        table = await whole_table(pilot)
        whole = app.query_one("#whole", Markdown)
        strips = table.render_lines(table.region.reset_offset)
        segments = [segment for strip in strips for segment in strip]
        code = next(segment for segment in segments if segment.text == "hello")
        paragraph = whole.query_one(SteadyParagraph)
        in_text = next(segment for strip in paragraph.render_lines(paragraph.region.reset_offset)
                       for segment in strip if segment.text == "hello")
        assert code.style is not None and in_text.style is not None
        assert (code.style.color, code.style.bgcolor) == (in_text.style.color,
                                                         in_text.style.bgcolor)
        link = next(segment for segment in segments if segment.text == "shows")
        assert link.style is not None and "@click" in link.style.meta
        await table.run_action(link.style.meta["@click"])
        await wait_until(pilot, lambda: app.opened, what="the link opened")
    assert app.opened == ["https://example.com"]


async def test_text_selected_across_a_table_is_copied_as_drawn() -> None:
    app = Replies()
    async with app.run_test(size=(120, 30)) as pilot:
        table = await whole_table(pilot)
        table.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text() or ""
        assert "│ keyword" in selected and "a short greeting" in selected
        assert selected.splitlines()[0].startswith("┌")
