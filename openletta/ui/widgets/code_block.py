"""A fenced code block in a reply: focusable, copied with ``c``, drawn in pieces of lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Label, Markdown
from textual.widgets.markdown import MarkdownFence

from openletta.ui.clipboard import copy_to_clipboard
from openletta.ui.highlight import highlight, highlight_theme
from openletta.ui.steady import same_content
from openletta.ui.textual_internals import fence_highlighted_code

if TYPE_CHECKING:
    from markdown_it.token import Token  # (Textual's parser: a type only)

#: Lines of code a piece holds.
PIECE_LINES = 16

def pieces(code: Content) -> list[Content]:
    """``code`` (highlighted) cut into pieces of :data:`PIECE_LINES` lines; at least one."""
    text, newline = code.plain, -1
    cuts: list[int] = []
    while True:
        for _ in range(PIECE_LINES):
            newline = text.find("\n", newline + 1)
            if newline < 0:
                return code.divide(cuts)[::2]  # the pieces, not the newlines between them
        cuts += (newline, newline + 1)


class CodeBlock(MarkdownFence, can_focus=True):
    """A fenced code block that Tab can reach and ``c`` copies.

    Textual draws the code as one label, rendered whole again whenever the code changes: at
    every write of a streamed reply, which made a long block dearer with each line (240
    lines: 14 ms a write). Here each piece of :data:`PIECE_LINES` lines is a label of its
    own, updated only when its lines changed: a streamed block renders its last piece.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy code", id="code.copy"),
    ]

    def __init__(self, markdown: Markdown, token: Token, code: str) -> None:
        super().__init__(markdown, token, code)
        self._looks = self._current_looks()

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False,
                  dark: bool = False) -> Content:
        """``code`` highlighted as Textual highlights it, lexing again only its new end when
        it continues the code last highlighted (a streamed block, made anew at each write)."""
        return highlight(code, language=language or None,
                         theme=highlight_theme(ansi=ansi, dark=dark))

    def highlight_whole(self) -> None:
        """Highlight the code lexed whole: a streamed block's lines are lexed as they come,
        from a line that follows no open string or comment, which is very likely but not
        sure to be as the whole would lex them (:mod:`openletta.ui.highlight`)."""
        ansi, dark = self._looks
        self.set_content(highlight(self.code, language=self.lexer or None,
                                   theme=highlight_theme(ansi=ansi, dark=dark), whole=True))

    def _current_looks(self) -> tuple[bool, bool]:
        """What the code is highlighted for: ANSI colours or not, a dark theme or not."""
        return self.app.native_ansi_color, self.app.current_theme.dark

    def notify_style_update(self) -> None:
        """Highlight the code again only if what it is highlighted for changed. (Textual
        highlights it whenever the block is styled: as it mounts, just after it was
        highlighted to be made, and whenever the reply around it is styled again.)"""
        looks = self._current_looks()
        if looks == self._looks:
            super(MarkdownFence, self).notify_style_update()
            return
        self._looks = looks
        super().notify_style_update()

    def compose(self) -> ComposeResult:
        self._latest = fence_highlighted_code(self)
        for piece in pieces(self._latest):
            yield Label(piece, expand=True)

    def set_content(self, content: Content) -> None:
        """Show ``content`` (the code highlighted), updating the pieces whose lines changed
        (once mounted: a style update before then gives it too)."""
        super().set_content(content)  # keeps it (Textual's one label is not there to update)
        self._latest = content
        if self.is_mounted:
            self._show_latest()
        else:
            self.call_later(self._show_latest)

    def _show_latest(self) -> None:
        shown = list(self.query_children(Label))
        wanted = pieces(self._latest)
        for label, piece in zip(shown, wanted, strict=False):
            if not (isinstance(label.content, Content) and same_content(piece, label.content)):
                label.update(piece)
        if len(wanted) > len(shown):
            self.mount_all(Label(piece, expand=True) for piece in wanted[len(shown):])
        elif len(shown) > len(wanted):
            self.remove_children(shown[len(wanted):])

    def action_copy(self) -> None:
        """Copy the code (without the fence) to the clipboard."""
        copy_to_clipboard(self, "the code block", self.code)
