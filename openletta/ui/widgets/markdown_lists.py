"""Markdown lists that cost one widget per simple item instead of four.

Textual draws each list item as ``Horizontal(MarkdownBullet, Vertical(*blocks))``. Replies are
full of lists whose items are one paragraph each, and a long history mounts many of them, so
such an item here is a single :class:`BulletParagraph`: the paragraph, drawn with its bullet
and a hanging indent. Items with more in them (nested lists, code, several paragraphs) keep
Textual's layout.

This builds on Textual's Markdown block internals (the block classes, and what the parser
put in a block before it is mounted), reached through :mod:`openletta.ui.textual_internals`.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual, VisualType
from textual.widgets.markdown import MarkdownBlock

from openletta.ui.textual_internals import (
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
    markdown_block_content,
    markdown_block_document,
    markdown_block_token,
    markdown_child_blocks,
    size_without_relayout,
)
from openletta.ui.widgets.paragraph import SteadyParagraph

#: The bullet's colour on dark and on light themes, as Textual's ``MarkdownBullet`` has it.
BULLET_STYLE = {True: "$text-primary", False: "$text-secondary"}


class Hanging(Visual):
    """``body`` with ``label`` on its first line and the lines below indented to match."""

    def __init__(self, label: Content, body: Visual) -> None:
        self._label = label
        self._body = body

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        indent = self._label.cell_length
        return indent + self._body.get_optimal_width(rules, container_width - indent)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self._body.get_height(rules, max(1, width - self._label.cell_length))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        indent = self._label.cell_length
        lines = self._body.render_strips(max(1, width - indent), height, style, options)
        unselected = replace(options, selection=None)  # a selection is of the body's text
        label = self._label.render_strips(indent, 1, style, unselected)[0]
        gap = Strip.blank(indent, style.rich_style)
        return [Strip.join([label if row == 0 else gap, line]) for row, line in enumerate(lines)]


class BulletParagraph(SteadyParagraph):
    """A list item that is one paragraph: the paragraph, drawn after its bullet."""

    def __init__(self, paragraph: MarkdownParagraph, symbol: str) -> None:
        super().__init__(markdown_block_document(paragraph), markdown_block_token(paragraph),
                         paragraph.source_range)
        self.symbol = symbol
        self.set_content(markdown_block_content(paragraph))

    def render(self) -> VisualType:
        body = super().render()
        if not isinstance(body, Visual):  # pragma: no cover - Static always visualizes
            return body
        bullet_style = BULLET_STYLE[self.app.current_theme.dark]
        return Hanging(Content.styled(self.symbol, bullet_style), body)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text of the paragraph (the bullet is not part of it)."""
        return selection.extract(str(self.content)), "\n"


def list_item(item: MarkdownListItem, symbol: str) -> MarkdownBlock | Horizontal:
    """The widget for one list item: light when it is a single paragraph."""
    blocks = markdown_child_blocks(item)
    if len(blocks) == 1 and isinstance(blocks[0], MarkdownParagraph):
        return BulletParagraph(blocks[0], symbol)
    bullet = MarkdownBullet()
    bullet.symbol = symbol
    return Horizontal(bullet, Vertical(*blocks))


class BulletList(MarkdownBulletList):
    """A bullet list whose one-paragraph items are one widget each."""

    virtual_size = size_without_relayout()  # it grows with a streamed item

    def compose(self) -> ComposeResult:
        blocks = markdown_child_blocks(self)
        for block in blocks:
            if isinstance(block, MarkdownListItem):
                yield list_item(block, block.bullet)
        blocks.clear()


class OrderedList(MarkdownOrderedList):
    """A numbered list whose one-paragraph items are one widget each."""

    virtual_size = size_without_relayout()  # it grows with a streamed item

    def compose(self) -> ComposeResult:
        blocks = markdown_child_blocks(self)
        items = [block for block in blocks if isinstance(block, MarkdownListItem)]
        try:
            start = int(items[0].bullet) if items else 1
        except ValueError:
            start = 1
        labels = [f"{number}. " for number in range(start, start + len(items))]
        width = max((len(label) for label in labels), default=0)
        for item, label in zip(items, labels, strict=True):
            yield list_item(item, label.rjust(width + 1))
        blocks.clear()
