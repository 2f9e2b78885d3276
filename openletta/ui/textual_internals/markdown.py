"""Textual's private API for Markdown: its block classes and what the parser gave a block,
for the light lists and paragraphs, a code block's highlighted code, and a table block without
its grid of cells."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets._markdown import (
    MarkdownBlockQuote,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
    MarkdownTable,
    Token,  # markdown-it's, which Textual depends on and we do not
)
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

__all__ = [
    "CellTable",
    "MarkdownBlockQuote",
    "MarkdownBullet",
    "MarkdownBulletList",
    "MarkdownListItem",
    "MarkdownOrderedList",
    "MarkdownParagraph",
    "UpdatedInPlace",
    "copy_block_context",
    "fence_highlighted_code",
    "markdown_block_content",
    "markdown_block_document",
    "markdown_block_token",
    "markdown_child_blocks",
    "set_markdown_block_content",
    "update_block",
]


# --- Markdown lists (openletta.ui.widgets.markdown_lists) -------------------------------------
#
# The light lists subclass Textual's Markdown block classes, which ``textual.widgets.markdown``
# does not export (it exports ``MarkdownBlock`` and ``MarkdownFence``, not these), and read
# what the parser gave a block before it is mounted, which Textual keeps in private attributes.
# ``MarkdownBullet``, ``MarkdownBulletList``, ``MarkdownListItem``, ``MarkdownOrderedList`` and
# ``MarkdownParagraph`` are imported from here for that reason, and ``MarkdownBlockQuote`` for
# the quote that a streamed write updates in place.


def markdown_block_document(block: MarkdownBlock) -> Markdown:
    """The Markdown document ``block`` belongs to, needed to build a block like it.

    A block's constructor takes its document; Textual keeps it as ``_markdown`` (a weak
    reference resolved by a property), and the public ``select_container`` only finds it once
    the block is mounted.
    """
    return block._markdown


def markdown_block_token(block: MarkdownBlock) -> Token:
    """The parser's token ``block`` was built from (its constructor's other argument)."""
    return block._token


def markdown_block_content(block: MarkdownBlock) -> Content:
    """The content Textual gave ``block`` (``set_content``), to give a copy of it the same.

    The public ``Static.content`` is the same object once ``set_content`` has run, but is typed
    as any visual and is ``""`` before; ``_content`` is always a ``Content``.
    """
    return block._content


def set_markdown_block_content(block: MarkdownBlock, content: Content, *,
                               layout: bool) -> None:
    """``MarkdownBlock.set_content``, with a layout only when ``layout`` is true.

    Textual's always asks for one (``Static.update``'s default). The block also keeps the
    content in ``_content``, which a later update of the document copies from it.
    """
    block._content = content
    block.update(content, layout=layout)


def markdown_child_blocks(block: MarkdownBlock) -> list[MarkdownBlock]:
    """The blocks the parser put inside ``block`` (a list's items, an item's paragraphs).

    They are not children yet: Textual's ``compose`` yields them and then clears this list,
    so this is the list itself, for a ``compose`` of our own to do the same.
    """
    return block._blocks


# --- Code blocks (openletta.ui.widgets.code_block) -------------------------------------------


def fence_highlighted_code(fence: MarkdownFence) -> Content:
    """The code of ``fence`` as highlighted when it was made, which Textual keeps in
    ``_highlighted_code`` for its ``compose`` (``set_content`` is given it later)."""
    return fence._highlighted_code


# --- Markdown tables (openletta.ui.widgets.table) --------------------------------------------


class CellTable(MarkdownTable):
    """Textual's Markdown table block, without its grid of cell widgets: a subclass draws
    the cells it is given by :meth:`cells_changed`, first as it mounts, then for every
    streamed update of the table.

    Textual reads the cells from the parser's blocks (``_get_headers_and_rows``) and, as a
    streamed table grows, updates its own grid (``_update_from_block``).
    """

    def compose(self) -> ComposeResult:
        self.cells_changed(*self._get_headers_and_rows())
        yield from ()

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        if isinstance(block, MarkdownTable):
            self.cells_changed(*block._get_headers_and_rows())
        else:
            await super()._update_from_block(block)

    def cells_changed(self, headers: list[Content], rows: list[list[Content]]) -> None:
        """The table now has ``headers`` and ``rows`` (lists of cells)."""
        raise NotImplementedError


# --- Markdown blocks updated in place (openletta.ui.widgets.markdown_lists) ------------------
#
# At every write to a streamed document, Textual parses its last block again and hands the
# new, unmounted block to the mounted one's ``_update_from_block``: a paragraph takes the new
# content, most other blocks are removed and the new one mounted, with everything inside.


if TYPE_CHECKING:
    _MixedIntoBlock = MarkdownBlock
else:  # a mixin: Textual takes default CSS only along the first widget base of a class
    _MixedIntoBlock = object


class UpdatedInPlace(_MixedIntoBlock):
    """Mixed into a Markdown block class (before it): a streamed write updates the block in
    place where :meth:`update_in_place` can (it returns ``True``), instead of replacing it by
    the block parsed again (a list, with all its items, at every word of its last item)."""

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        if not await self.update_in_place(block):
            await super()._update_from_block(block)

    async def update_in_place(self, block: MarkdownBlock) -> bool:
        """Show what ``block``, this block parsed again, holds; ``False``: replace me."""
        return False


async def update_block(shown: MarkdownBlock, block: MarkdownBlock) -> None:
    """Textual's update of the mounted ``shown`` from ``block``, the same block parsed again
    (see :class:`UpdatedInPlace`)."""
    await shown._update_from_block(block)


def copy_block_context(shown: MarkdownBlock, block: MarkdownBlock) -> None:
    """Give ``shown`` the parser's token and source lines of ``block``, as Textual does when
    it updates a paragraph from one parsed again."""
    shown._copy_context(block)
    shown.source_range = block.source_range
