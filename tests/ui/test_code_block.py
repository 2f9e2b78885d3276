"""A reply's code block: drawn in pieces exactly as Textual draws its one label of code, and a
streamed one renders only the piece whose lines changed."""

from __future__ import annotations

import pytest
from test_markdown_lists import WholeAndStreamed, streamed_beside_whole, styled_lines
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Label, Markdown
from waiting import wait_until

from openletta.ui.themes import ThemeVariables
from openletta.ui.widgets import WIDGETS_CSS_PATH
from openletta.ui.widgets.assistant import ReplyMarkdown
from openletta.ui.widgets.code_block import PIECE_LINES, CodeBlock, pieces

CODE_LINES = [
    "def answer(question: str) -> int:",
    '    """A docstring that runs over',
    "    several lines, across the cut between two pieces.",
    '    """',
    "    return 42  # " + "a comment long enough to run past the edge of the column " * 2,
] + [f"step_{n} = answer('{n}')" for n in range(2 * PIECE_LINES)]
REPLY = "Intro.\n\n```python\n" + "\n".join(CODE_LINES) + "\n```\n\nOutro.\n"


class SideBySide(ThemeVariables, App[None]):
    """Textual's Markdown on the left, the reply's on the right, same width."""

    CSS_PATH = WIDGETS_CSS_PATH
    CSS = "Horizontal { height: auto; } Markdown { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Markdown(REPLY, id="textual")
            yield ReplyMarkdown(REPLY, id="ours")


class StyledWholeAndStreamed(ThemeVariables, WholeAndStreamed):
    """The reply given whole and streamed, styled as in the app."""

    CSS_PATH = WIDGETS_CSS_PATH


def drawn(app: App[None]) -> bool:
    """Both halves are drawn down to their last line."""
    return all(any("".join(text for text, _ in line) == "Outro." for line in
                   styled_lines(app, left)) for left in (True, False))


@pytest.mark.parametrize(("theme", "ansi"), [("textual-dark", False),
                                             ("textual-light", False),
                                             ("textual-dark", True)])
async def test_code_looks_exactly_as_textual_draws_it(theme: str, ansi: bool) -> None:
    app = SideBySide()
    async with app.run_test(size=(110, 3 * PIECE_LINES + 20)) as pilot:
        app.ansi_color = ansi
        app.theme = theme
        await pilot.pause()
        await wait_until(pilot, lambda: drawn(app), what=f"both documents drawn in {theme}")
        fence = app.query_one(CodeBlock)
        assert len(fence.query_children(Label)) == 3  # the code is cut in pieces
        ours, textual = styled_lines(app, left=False), styled_lines(app, left=True)
        assert any("".join(text for text, _ in line) == f"step_{2 * PIECE_LINES - 1}=answer"
                   f"('{2 * PIECE_LINES - 1}')" for line in ours)
        assert ours == textual


async def test_a_streamed_code_block_keeps_its_settled_pieces() -> None:
    app = StyledWholeAndStreamed(REPLY)
    seen: dict[str, object] = {}

    def first_piece_once_settled(document: ReplyMarkdown) -> Label | None:
        """The first piece of code, once a second piece began (its lines are settled)."""
        labels = list(document.query("CodeBlock > Label"))
        if len(labels) < 2:
            return None
        seen.setdefault("content", labels[0].content)
        return labels[0]

    async with app.run_test(size=(110, 3 * PIECE_LINES + 20)) as pilot:
        first = await streamed_beside_whole(app, pilot, first_piece_once_settled)
        assert first is not None and first.is_mounted
        streamed = app.query_one("#streamed").query_one(CodeBlock)
        assert first is streamed.query_children(Label).first()
        # Not updated since its lines were settled: rendered once for all of them.
        assert isinstance(seen["content"], Content) and first.content is seen["content"]
        assert streamed.code.rstrip("\n") == "\n".join(CODE_LINES)


async def test_code_is_highlighted_once_and_again_only_for_another_theme(monkeypatch) -> None:
    highlighted: list[str] = []
    highlight = CodeBlock.highlight

    def counted(code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        highlighted.append(code)
        return highlight(code, language, ansi=ansi, dark=dark)

    monkeypatch.setattr(CodeBlock, "highlight", staticmethod(counted))
    app = SideBySide()
    async with app.run_test(size=(110, 3 * PIECE_LINES + 20)) as pilot:
        app.theme = "textual-dark"
        await wait_until(pilot, lambda: drawn(app), what="both documents drawn")
        assert len(highlighted) == 1, "highlighted as it was made, not again as it mounted"
        app.theme = "textual-light"
        await wait_until(pilot, lambda: len(highlighted) == 2, what="highlighted for light")
        await pilot.pause()
        assert styled_lines(app, left=False) == styled_lines(app, left=True)


async def test_a_streamed_reply_ends_with_its_code_highlighted_whole(monkeypatch) -> None:
    """However its new ends were highlighted as it streamed (here: not at all), a streamed
    reply's code is highlighted as Textual highlights the whole code once the reply is done."""
    from widget_app import ItemsApp

    from openletta.transcript import AssistantItem
    from openletta.ui.widgets import code_block

    highlight = code_block.highlight

    def unlit_unless_whole(code: str, *, language: str | None = None, theme: object = None,
                           whole: bool = False) -> Content:
        if whole:
            return highlight(code, language=language, theme=theme, whole=True)
        return Content("\n".join(code.splitlines()))

    monkeypatch.setattr(code_block, "highlight", unlit_unless_whole)
    item = AssistantItem(key="a")
    app = ItemsApp([item])
    async with app.run_test(size=(110, 3 * PIECE_LINES + 20)) as pilot:
        widget = app.widget_of(item)
        for part in ("Code:\n\n```python\n", "\n".join(CODE_LINES[:9]) + "\n",
                     "\n".join(CODE_LINES[9:]) + "\n```\n"):
            item.text += part
            widget.sync()
            await pilot.pause()
        fence = widget.query_one(CodeBlock)
        await wait_until(pilot, lambda: fence.code.rstrip("\n") == "\n".join(CODE_LINES),
                         what="the code streamed")
        assert not any(label.content.spans for label in fence.query_children(Label))
        item.done = True
        widget.sync()
        await wait_until(pilot, lambda: widget.has_class("-whole"), what="the reply done")
        shown = [label.content for label in fence.query_children(Label)]
        whole = pieces(Markdown.BLOCKS["fence"].highlight(
            fence.code, "python", ansi=app.native_ansi_color, dark=app.current_theme.dark))
        assert [(piece.plain, piece.spans) for piece in shown] == [
            (piece.plain, piece.spans) for piece in whole]
        assert all(len(piece.spans) > 1 for piece in shown)
