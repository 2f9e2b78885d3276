"""The assistant's reply: Markdown streamed while it arrives."""

from __future__ import annotations

from contextlib import suppress

from textual.message import Message
from textual.widget import AwaitMount, MountError, Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from openletta.display import StreamCleaner
from openletta.markdown_text import reply_parser
from openletta.transcript import AssistantItem
from openletta.ui.steady import restyle_alone
from openletta.ui.widgets.base import ItemWidget, guarded
from openletta.ui.widgets.block_quote import BlockQuote
from openletta.ui.widgets.code_block import CodeBlock
from openletta.ui.widgets.markdown_lists import BulletList, OrderedList
from openletta.ui.widgets.paced_stream import PacedStream
from openletta.ui.widgets.paragraph import SteadyParagraph
from openletta.ui.widgets.table import ReplyTable

#: Link schemes a click may open; anything else (``file:``, ``javascript:``) is ignored.
OPENABLE_SCHEMES = ("http://", "https://", "mailto:")


#: The block classes of headings (Textual's own, by the public table of blocks).
_HEADINGS = tuple(Markdown.BLOCKS[f"h{level}"] for level in range(1, 7))


class ReplyMarkdown(Markdown):
    """Markdown whose code blocks can be focused and copied on their own, with lighter lists,
    parsed by the :func:`reply_parser`."""

    # Not a ClassVar: Markdown declares BLOCKS as an instance attribute, so mypy refuses one.
    BLOCKS: dict[str, type[MarkdownBlock]] = {  # noqa: RUF012
        **Markdown.BLOCKS, "fence": CodeBlock, "code_block": CodeBlock,
        "bullet_list_open": BulletList, "ordered_list_open": OrderedList,
        "paragraph_open": SteadyParagraph, "table_open": ReplyTable,
        "blockquote_open": BlockQuote,
    }

    def __init__(self, markdown: str | None = None, *, id: str | None = None,
                 open_links: bool = True) -> None:
        self._trailing: Widget | None = None
        #: Whether the document is whole (not streaming): its last block is marked as mounted.
        self.whole = True
        super().__init__(markdown, id=id, open_links=open_links, parser_factory=reply_parser)

    def post_message(self, message: Message) -> bool:
        """Post ``message``, unless it is a table of contents: a reply has no use for one,
        and Textual's Markdown posts it after every update (a streamed reply makes many),
        up through the chat to the app."""
        if isinstance(message, Markdown.TableOfContentsUpdated):
            return False
        return super().post_message(message)

    def mount(self, *widgets: Widget, before: int | str | Widget | None = None,
              after: int | str | Widget | None = None) -> AwaitMount:
        """Mount blocks; a heading that opens the document is marked ``-leading`` (no gap
        above it: the reply's own margin is enough), as it is made, and the last block of a
        whole document ``-trailing`` (:meth:`mark_trailing`). (Every block is mounted here:
        a streamed block that changes is removed and mounted again.)"""
        if widgets and not self.children and isinstance(widgets[0], _HEADINGS):
            widgets[0].add_class("-leading")
        if self.whole and widgets and before is None and after is None:
            self._mark_trailing(widgets[-1])
        return super().mount(*widgets, before=before, after=after)

    def mark_trailing(self, marked: bool = True) -> None:
        """Mark the last block ``-trailing`` and the document ``-whole``: the block keeps no
        gap below it, the document one line to what follows (not two, with a card's
        margin), and its height stays. Done as a whole document is mounted, and by a stream
        once it ends: a class changed as each block streams in restyles the block before
        and all inside it, at every block. ``marked=False``: unmarked, to stream again."""
        last = self.children[-1] if self.children else None
        self._mark_trailing(last if marked else None)

    def _mark_trailing(self, block: Widget | None) -> None:
        """(Only the document and the blocks marked or unmarked are styled again: Textual
        restyled each with all inside it, and the end of a reply whose last block was a
        60-item list stalled the screen for 0.1-0.3 s. The rules for these classes match
        the marked widgets themselves, never one inside them.)"""
        if block is self._trailing:
            return
        unmarked, self._trailing = self._trailing, block
        if unmarked is not None:
            unmarked.remove_class("-trailing", update=False)
        if block is not None:
            block.add_class("-trailing", update=False)
        self.set_class(block is not None, "-whole", update=False)
        restyle_alone(*(widget for widget in (self, unmarked, block) if widget is not None))


class AssistantMessage(ReplyMarkdown, ItemWidget, can_focus=True):
    """An :class:`AssistantItem`: the widget is the reply's Markdown document.

    While the item streams, :meth:`sync` schedules a write of the new suffix (made display
    text on its own, :class:`StreamCleaner`) to a :class:`PacedStream` (which joins
    fragments that arrive faster than it renders, and re-parses only from the last block).
    Once the item is done the stream writes what is left and stops; the document is not
    rendered again (before Textual 8.2.8 it had to be: a streamed code fence kept stale
    state and went blank on its next recompose, Textual issue 6518), but its code blocks are
    highlighted whole once (:meth:`CodeBlock.highlight_whole`). An item opened again (a
    dropped reply taken up) streams on from there.
    Writes run one at a time, in order, on this widget's message queue. A finished reply
    (history) is given its text when it is made, so it renders once, as it mounts.
    """

    item: AssistantItem

    def __init__(self, item: AssistantItem) -> None:
        self._cleaner = StreamCleaner()
        #: How much of the item's text has been read.
        self._read = 0
        #: Display text handed to the Markdown document so far (all of a finished reply).
        self._written: list[str] = []
        if item.done:
            self._written.append(self._cleaner.feed(item.text, final=True))
            self._read = item.text_length
        super().__init__("".join(self._written), open_links=False)
        self.item = item
        self._final = self.whole = item.done
        self._stream: PacedStream | None = None
        self._queued = False

    def sync(self) -> None:
        if self._final and not self.item.done:  # open again: a dropped reply goes on
            self._final = self.whole = False
            self.mark_trailing(False)
        if not self._final and not self._queued:
            self._queued = True
            self.call_later(self._catch_up)

    @guarded
    async def _catch_up(self) -> None:
        """Bring the Markdown widget up to the item's text (runs on the message queue)."""
        self._queued = False
        if self._final or not self.is_mounted:
            return  # done, or being removed (on_mount syncs again if it comes back)
        item = self.item
        done = item.done
        suffix = self._cleaner.feed(item.text_since(self._read), final=done)
        self._read = item.text_length
        if suffix:
            self._written.append(suffix)
        if done:
            self._final = True
            self.whole = True
            if self._stream is None:  # the whole reply came at once
                await self.update("".join(self._written))
            else:
                await self._stream.write(suffix)
                await self._stop_stream()
                for block in self.query(CodeBlock):
                    block.highlight_whole()
            self.mark_trailing()
        elif suffix:
            if self._stream is None:
                self._stream = PacedStream(self)
            await self._stream.write(suffix)

    async def _stop_stream(self) -> bool:
        """Stop the stream after it has written everything; ``True`` if there was one."""
        stream, self._stream = self._stream, None
        if stream is None:
            return False
        await stream.stop()
        return True

    async def on_unmount(self) -> None:
        with suppress(MountError):  # the last fragments have nowhere to go: that is fine
            await self._stop_stream()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.lower().startswith(OPENABLE_SCHEMES):
            self.app.open_url(event.href)
