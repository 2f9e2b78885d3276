"""Markdown lists that cost one widget per simple item instead of four.

Textual draws each list item as ``Horizontal(MarkdownBullet, Vertical(*blocks))``. Replies are
full of lists whose items are one paragraph each, and a long history mounts many of them, so
such an item here is a single :class:`BulletParagraph`: the paragraph, drawn with its bullet
and a hanging indent. Items with more in them (nested lists, code, several paragraphs) keep
Textual's layout.

As a reply streams, Textual parses its last block again at every write and would mount that
list anew, with every item: here the list updates its items in place instead (an item
that did not change costs a comparison), so a long list streams in time linear in its length.

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
from textual.widget import Widget
from textual.widgets.markdown import MarkdownBlock

from openletta.ui.steady import refresh_content, same_content
from openletta.ui.textual_internals import (
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
    UpdatedInPlace,
    copy_block_context,
    markdown_block_content,
    markdown_block_document,
    markdown_block_token,
    markdown_child_blocks,
    size_without_relayout,
    update_block,
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

    def show(self, paragraph: MarkdownParagraph, symbol: str) -> None:
        """Show ``paragraph`` (this item parsed again) after ``symbol``; nothing is done for
        what did not change."""
        copy_block_context(self, paragraph)
        content = markdown_block_content(paragraph)
        if not same_content(content, markdown_block_content(self)):
            self.set_content(content)
        if symbol != self.symbol:
            self.symbol = symbol
            refresh_content(self)

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
    if (paragraph := _only_paragraph(blocks)) is not None:
        return BulletParagraph(paragraph, symbol)
    bullet = MarkdownBullet()
    bullet.symbol = symbol
    return Horizontal(bullet, Vertical(*blocks))


class LightList(UpdatedInPlace):
    """Mixed into a Markdown list class: one widget per one-paragraph item, updated in place
    as the list streams. Subclasses say which symbol each item gets (:meth:`symbols`)."""

    virtual_size = size_without_relayout()  # it grows with a streamed item

    def symbols(self, items: list[MarkdownListItem]) -> list[str]:
        """The bullet or number of each of ``items``."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        blocks = markdown_child_blocks(self)
        items = _items(blocks)
        yield from map(list_item, items, self.symbols(items))
        blocks.clear()

    async def update_in_place(self, block: MarkdownBlock) -> bool:
        """Update the items from ``block``, this list parsed again; mount those it adds."""
        if type(block) is not type(self):
            return False
        copy_block_context(self, block)
        items = _items(markdown_child_blocks(block))
        symbols = self.symbols(items)
        shown = list(self.children)
        for widget, item, symbol in zip(shown, items, symbols, strict=False):
            await _update_item(widget, item, symbol)
        if len(items) > len(shown):
            await self.mount_all(map(list_item, items[len(shown):], symbols[len(shown):]))
        elif len(shown) > len(items):
            await self.remove_children(shown[len(items):])
        return True


class BulletList(LightList, MarkdownBulletList):
    """A bullet list whose one-paragraph items are one widget each."""

    def symbols(self, items: list[MarkdownListItem]) -> list[str]:
        return [item.bullet for item in items]


class OrderedList(LightList, MarkdownOrderedList):
    """A numbered list whose one-paragraph items are one widget each."""

    def symbols(self, items: list[MarkdownListItem]) -> list[str]:
        try:
            start = int(items[0].bullet) if items else 1
        except ValueError:
            start = 1
        labels = [f"{number}. " for number in range(start, start + len(items))]
        width = max((len(label) for label in labels), default=0)
        return [label.rjust(width + 1) for label in labels]


def _items(blocks: list[MarkdownBlock]) -> list[MarkdownListItem]:
    return [block for block in blocks if isinstance(block, MarkdownListItem)]


def _only_paragraph(blocks: list[MarkdownBlock]) -> MarkdownParagraph | None:
    """The paragraph that an item of ``blocks`` is, if it is one paragraph and nothing else
    (drawn as one :class:`BulletParagraph`)."""
    if len(blocks) == 1 and isinstance(blocks[0], MarkdownParagraph):
        return blocks[0]
    return None


async def _update_item(widget: Widget, item: MarkdownListItem, symbol: str) -> None:
    """Make ``widget``, a mounted item, show ``item`` parsed again, after ``symbol``."""
    blocks = markdown_child_blocks(item)
    paragraph = _only_paragraph(blocks)
    if isinstance(widget, BulletParagraph) and paragraph is not None:
        widget.show(paragraph, symbol)
        return
    parts = list(widget.children)
    if (isinstance(widget, Horizontal) and paragraph is None and len(parts) == 2
            and isinstance(parts[0], MarkdownBullet) and isinstance(parts[1], Vertical)):
        if parts[0].symbol != symbol:
            parts[0].symbol = symbol
            parts[0].refresh(layout=True)  # its width may change (9. to 10.)
        await update_blocks(parts[1], blocks)
        return
    await _replace(widget, list_item(item, symbol))


async def update_blocks(container: Widget, blocks: list[MarkdownBlock]) -> None:
    """Make the blocks mounted in ``container`` show ``blocks``, the same parsed again: each
    updated in place, as Textual updates a document's last block; those of another kind
    replaced; those added mounted."""
    shown = list(container.children)
    for widget, block in zip(shown, blocks, strict=False):
        if type(widget) is not type(block) or not isinstance(widget, MarkdownBlock):
            await _replace(widget, block)
        elif not (isinstance(block, MarkdownParagraph) and same_content(
                markdown_block_content(block), markdown_block_content(widget))):
            await update_block(widget, block)
    if len(blocks) > len(shown):
        await container.mount_all(blocks[len(shown):])
    elif len(shown) > len(blocks):
        await container.remove_children(shown[len(blocks):])


async def _replace(widget: Widget, replacement: Widget) -> None:
    parent = widget.parent
    if isinstance(parent, Widget):
        await parent.mount(replacement, before=widget)
    await widget.remove()
