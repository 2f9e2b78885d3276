"""A Markdown block quote that a streamed write updates in place."""

from __future__ import annotations

from textual.widgets.markdown import MarkdownBlock

from openletta.ui.textual_internals import (
    MarkdownBlockQuote,
    UpdatedInPlace,
    copy_block_context,
    markdown_child_blocks,
)
from openletta.ui.widgets.markdown_lists import update_blocks


class BlockQuote(UpdatedInPlace, MarkdownBlockQuote):
    """A block quote whose blocks take what the quote parsed again holds, as a list's items
    do (Textual would mount the quote anew, with all inside it, at every word)."""

    async def update_in_place(self, block: MarkdownBlock) -> bool:
        """Update the quoted blocks from ``block``, this quote parsed again."""
        if type(block) is not type(self):
            return False
        copy_block_context(self, block)
        await update_blocks(self, markdown_child_blocks(block))
        return True
