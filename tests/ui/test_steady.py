"""Streaming stays cheap: content changes that keep a widget's size repaint it alone (the
rest still lay out), and every write is parsed by one shared parser."""

from __future__ import annotations

from typing import Any

import pytest
from markdown_it import MarkdownIt
from test_markdown_lists import styled_lines
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static
from waiting import wait_until

from openletta.markdown_text import reply_parser
from openletta.ui.steady import layout_needed, refresh_content
from openletta.ui.widgets.assistant import ReplyMarkdown
from openletta.ui.widgets.paragraph import SteadyParagraph

PARAGRAPH = ("Streaming adds words to the last paragraph, and most of them fit on the line "
             "that is already there, so only some of them need the screen laid out again. "
             "A second sentence makes it wrap a few more times in a narrow column.")
WORDS = PARAGRAPH.split()


class OneStatic(App[None]):
    CSS = "#fill { width: 1fr; height: auto; } #fit { width: auto; height: auto; }"

    def compose(self) -> ComposeResult:
        yield Static("one two", id="fill")
        yield Static("one two", id="fit")


async def test_only_a_change_of_height_needs_a_layout() -> None:
    app = OneStatic()
    async with app.run_test(size=(20, 10)) as pilot:
        fill = app.query_one("#fill", Static)
        await wait_until(pilot, lambda: fill.content_size.width == 20, what="a layout")
        fill.update("one two three four", layout=False)  # still one line at 20 cells
        assert not layout_needed(fill)
        fill.update("one two three four five six", layout=False)  # two lines
        assert layout_needed(fill)
        fit = app.query_one("#fit", Static)
        fit.update("one two three", layout=False)  # auto width: wider, same height
        assert layout_needed(fit)
        waiting = Static("one")
        waiting.update("one two three four five six seven", layout=False)
        refresh_content(waiting)
        assert not layout_needed(waiting)  # mounting lays it out, with what it says then
        await app.mount(waiting)
        await wait_until(pilot, lambda: waiting.size == (20, 2), what="laid out on mounting")


class StreamedBesideWhole(App[None]):
    """The same reply, given whole on the left and streamed word by word on the right."""

    CSS = "Horizontal { height: auto; } ReplyMarkdown { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield ReplyMarkdown("Intro.\n\n" + PARAGRAPH, id="whole")
            yield ReplyMarkdown("", id="streamed")


async def test_a_streamed_paragraph_ends_laid_out_as_if_given_whole() -> None:
    app = StreamedBesideWhole()
    async with app.run_test(size=(60, 30)) as pilot:
        streamed = app.query_one("#streamed", ReplyMarkdown)
        await streamed.append("Intro.\n\n")
        for index, word in enumerate(WORDS):
            await streamed.append(word if index == 0 else f" {word}")
            await pilot.pause()
        paragraphs = list(streamed.query(SteadyParagraph))
        assert len(paragraphs) == 2
        last = paragraphs[-1]
        await wait_until(pilot, lambda: styled_lines(app, True) == styled_lines(app, False),
                         what="the streamed reply to match the whole one")
        assert last.size.height == last.get_content_height(
            last.container_size, app.size, last.content_size.width) > 3


async def test_streamed_writes_share_one_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    app = StreamedBesideWhole()
    async with app.run_test(size=(60, 30)) as pilot:
        reply_parser()  # made once for the app's life
        made: list[MarkdownIt] = []
        original = MarkdownIt.__init__

        def counting_init(parser: MarkdownIt, *args: Any, **kwargs: Any) -> None:
            made.append(parser)
            original(parser, *args, **kwargs)

        monkeypatch.setattr(MarkdownIt, "__init__", counting_init)
        streamed = app.query_one("#streamed", ReplyMarkdown)
        for word in WORDS[:20]:
            await streamed.append(f"{word} ")
            await pilot.pause()
        assert "Streaming adds words" in streamed.source
        assert made == []


def test_file_names_in_a_reply_are_not_links_to_hosts() -> None:
    html = reply_parser().render("Edit main.py, build.sh and README.md; see https://x.org")
    assert "http://main.py" not in html and "http://README.md" not in html
    assert 'href="http://build.sh"' not in html
    assert '<a href="https://x.org">https://x.org</a>' in html
