"""A Markdown paragraph that asks for a layout only when its height changes."""

from __future__ import annotations

from textual.content import Content

from openletta.ui.steady import refresh_content
from openletta.ui.textual_internals import (
    MarkdownParagraph,
    set_markdown_block_content,
    size_without_relayout,
)


class SteadyParagraph(MarkdownParagraph):
    """A paragraph whose new content lays the screen out again only if it changes its size.

    A streamed reply renders its last paragraph again on every write; most writes add words
    to a line without adding a line, and those now repaint the paragraph alone.
    """

    virtual_size = size_without_relayout()

    def set_content(self, content: Content) -> None:
        set_markdown_block_content(self, content, layout=False)
        refresh_content(self)
