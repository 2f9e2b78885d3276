"""Light Markdown lists: one widget per one-paragraph item, drawn exactly as Textual draws it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Horizontal
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Markdown
from waiting import wait_until

from openletta.ui.textual_internals import MarkdownBullet
from openletta.ui.widgets.assistant import ReplyMarkdown
from openletta.ui.widgets.markdown_lists import BulletParagraph

REPLY = """Intro.

- tests: **green**, and a line long enough to wrap below its bullet in a narrow column
- build: `ok` with [a link](https://example.com)
  - nested one
  - nested two
- an item with code:

  ```
  x = 1
  ```

8. eighth
9. ninth, which also runs long enough that it has to wrap under its number
10. tenth

Outro.
"""


class SideBySide(App[None]):
    """Textual's Markdown on the left, the reply's on the right, same width."""

    CSS = "Horizontal { height: auto; } Markdown { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Markdown(REPLY, id="textual")
            yield ReplyMarkdown(REPLY, id="ours")


def styled_lines(app: App[None], left: bool) -> list[list[tuple[str, str]]]:
    """Each screen line of one half as (text, style) segments, blank segments dropped."""
    half = app.size.width // 2
    lines = []
    for strip in app.screen._compositor.render_strips():
        part = strip.crop(0, half) if left else strip.crop(half, app.size.width)
        lines.append([(segment.text, str(segment.style)) for segment in part
                      if segment.text.strip()])
    return lines


def drawn(app: App[None]) -> bool:
    """Both documents are drawn to their last line, in the colours of the current theme."""
    themed = app.screen.styles.background == Color.parse(app.get_css_variables()["background"])
    return themed and all(
        any("".join(text for text, _ in line) == "Outro." for line in styled_lines(app, left))
        for left in (True, False))


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_lists_look_exactly_as_textual_draws_them(theme: str) -> None:
    app = SideBySide()
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = theme
        await wait_until(pilot, lambda: drawn(app), what=f"both documents drawn in {theme}")
        ours, textual = styled_lines(app, left=False), styled_lines(app, left=True)
        assert any(text.startswith("•") for line in ours for text, _ in line)
        assert any(" 9. " in text for line in ours for text, _ in line)
        assert ours == textual


async def test_one_paragraph_items_are_one_widget_each() -> None:
    app = SideBySide()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: drawn(app), what="both documents drawn")
        ours = app.query_one("#ours")
        light = list(ours.query(BulletParagraph))
        # The first bullet, the 2 nested ones and the 3 numbered items.
        assert len(light) == 6
        # The items holding a nested list or a code block keep Textual's bullet + column.
        assert len(ours.query(MarkdownBullet)) == 2
        assert len(ours.query(Horizontal)) == 2
        textual = app.query_one("#textual")
        assert len(list(ours.walk_children())) < len(list(textual.walk_children())) - 15


class WholeAndStreamed(App[None]):
    """A reply given whole on the left, and on the right, empty: a test streams it there."""

    CSS = "Horizontal { height: auto; } ReplyMarkdown { width: 1fr; }"

    def __init__(self, reply: str) -> None:
        super().__init__()
        self.reply = reply

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield ReplyMarkdown(self.reply, id="whole")
            yield ReplyMarkdown("", id="streamed")


def words(text: str) -> list[str]:
    """``text`` in pieces that end after each space or newline, as tokens come."""
    return re.findall(r"\S*\s*", text)[:-1] or [text]


async def streamed_beside_whole(app: WholeAndStreamed, pilot: Pilot[None],
                                first_of: Callable[[ReplyMarkdown], Widget | None]
                                ) -> Widget | None:
    """Stream the reply a word at a time into the right document, until it is drawn as the
    whole one on the left; the first widget ``first_of`` found in it as it streamed."""
    streamed = app.query_one("#streamed", ReplyMarkdown)
    first: Widget | None = None
    for word in words(app.reply):
        await streamed.append(word)
        first = first or first_of(streamed)
    await wait_until(pilot, lambda: styled_lines(app, left=False)
                     == styled_lines(app, left=True),
                     what="the streamed reply drawn as the whole one")
    return first


async def test_a_streamed_list_is_drawn_as_the_whole_one_with_its_items_kept() -> None:
    app = WholeAndStreamed(REPLY)
    async with app.run_test(size=(100, 30)) as pilot:
        first_item = await streamed_beside_whole(
            app, pilot, lambda document: next(iter(document.query(BulletParagraph)), None))
        assert any(" 9. " in text for line in styled_lines(app, left=False) for text, _ in line)
        # Updated in place as the list grew: the first item's widget was never replaced.
        assert first_item is not None and first_item.is_mounted
        assert first_item is app.query_one("#streamed").query(BulletParagraph).first()
