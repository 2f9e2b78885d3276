"""Every use of Textual's private API, in one place, each with its reason.

Checked with the Textual version pinned in ``pyproject.toml``: a Textual upgrade starts by
reading this module. ``tests/ui/test_textual_internals.py`` fails if another module under
``openletta/`` imports a private Textual module or reaches for a private Textual attribute.

Not here, because they are public or documented, though they look private or low-level:

* ``Widget.arrange`` (overridden by :class:`~openletta.ui.chat_scroll.ChatScroll` to keep a
  widget in place) and ``DOMNode.set_reactive`` (which moves its scroll without watchers) are
  public methods; ``arrange`` is documented as "best left alone" unless you know what it does.
* ``TextArea._on_key``, which :class:`~openletta.ui.prompt.Prompt` overrides to act on keys
  before the text area inserts them: Textual's TextArea guide ("Extending TextArea") says to
  override ``_on_key`` for exactly that.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Iterable, Sequence
from typing import Any

from textual._compositor import Compositor, ReflowResult
from textual._xterm_parser import XTermParser
from textual.app import App, ComposeResult
from textual.await_remove import AwaitRemove
from textual.content import Content
from textual.drivers.linux_driver import LinuxDriver
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import Screen, ScreenResultType
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer, Markdown
from textual.widgets._footer import FooterKey
from textual.widgets._markdown import (
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
    MarkdownTable,
    Token,  # markdown-it's, which Textual depends on and we do not
)
from textual.widgets.markdown import MarkdownBlock

from openletta.ui.repaint import moved_regions

__all__ = [
    "CellTable",
    "FooterKey",
    "FrugalCompositor",
    "FrugalScreen",
    "MarkdownBullet",
    "MarkdownBulletList",
    "MarkdownListItem",
    "MarkdownOrderedList",
    "MarkdownParagraph",
    "QuietLinuxDriver",
    "footer_keys",
    "markdown_block_content",
    "markdown_block_document",
    "markdown_block_token",
    "markdown_child_blocks",
    "preset_footer_key",
    "remove_hidden",
    "set_footer_key_enabled",
    "set_markdown_block_content",
    "start_with_theme",
    "write_to_terminal",
]

# --- theme (openletta.ui.app) -------------------------------------------------------------------


def start_with_theme(app: App[Any], name: str) -> None:
    """Make ``name`` the theme of ``app`` before it starts, as setting ``app.theme`` does,
    but without the ``refresh_css`` that Textual's ``_watch_theme`` defers to the next message.

    That refresh parses every CSS source again from scratch, after the first screen has
    parsed them, and empties the parse cache, so that the sources are parsed a third time
    as the next screens add theirs: about 30 ms of a launch for CSS that did not change.
    Before the start the stylesheet has parsed nothing: setting its variables is enough.
    The rest is what ``_watch_theme`` does.
    """
    app.set_reactive(App.theme, name)
    app.stylesheet.set_variables(app.get_css_variables())
    theme = app.current_theme
    classes = {name: False for name in app.classes if name.startswith("-theme-")}
    classes |= {f"-theme-{theme.name}": True, "-dark-mode": theme.dark,
                "-light-mode": not theme.dark}
    app.update_classes(classes, update=False)
    app._refresh_truecolor_filter(app.ansi_theme)


# --- footer (openletta.ui.key_bar) ------------------------------------------------------------


def footer_keys(footer: Footer) -> list[FooterKey]:
    """The key widgets a footer shows (Textual does not export ``FooterKey``)."""
    return list(footer.query(FooterKey))


def preset_footer_key(widget: Widget, compact: bool) -> None:
    """Give ``widget``, if it is a footer's key for a binding, about to mount, its footer's
    ``compact``.

    A key's ``compact`` starts as ``True`` and its watcher (run as the key mounts) adds the
    ``-compact`` class; then the footer's value, bound to it, takes the class away again:
    two restyles of every key each time a footer is built, for nothing. (The command palette
    key is not bound to the footer's value: it stays compact.)
    """
    if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
        widget.set_reactive(FooterKey.compact, compact)


def set_footer_key_enabled(key: FooterKey, enabled: bool) -> None:
    """Enable or disable one footer key in place.

    Textual only sets a key's state when it builds the footer's keys (``_disabled`` decides
    what a click does; the ``-disabled`` class how it looks), and builds them all again on
    every change of a screen's bindings.
    """
    key._disabled = not enabled
    key.set_class(not enabled, "-disabled")


# --- layout (openletta.ui.widgets.base) -------------------------------------------------------


def size_without_relayout() -> Reactive[Size]:
    """A ``virtual_size`` reactive that asks for no layout of the screen when it changes.

    Textual sets every widget's virtual size *during* a screen layout (``_size_updated``) and
    its ``virtual_size`` reactive then asks for another layout of the whole screen, which
    finds what the first found, whenever a widget's size changed. A widget that does not scroll
    has nothing to update then; one that scrolls vertically has its scroll bar updated by
    ``_size_updated`` itself (``_scroll_update``), its anchor kept by the compositor, and a
    scroll bar that appears or goes asks for its own layout (``show_vertical_scrollbar``).
    Nor does it repaint the widget: the layout that set the size painted what it moved, and a
    repaint of the chat's scroller renders every widget in view a second time.
    """
    return Reactive(Size(0, 0), layout=False, repaint=False)


class FrugalCompositor(Compositor):
    """Textual's compositor, minus three kinds of work a frame does for nothing.

    * **A second arrangement.** ``reflow`` arranges every widget (the full map) but leaves
      the map marked stale when a new or off-screen widget was refreshed before it
      (``update_widgets``); the first question about a widget's region after the layout
      (asked while the frame is painted) then arranged the whole screen again.
    * **Repainting what a layout did not move** (:func:`~openletta.ui.repaint.moved_regions`).
    * **Painting what did not change.** For a partial update, ``_get_renders`` rendered every
      widget whose *clip* overlaps the changed region, all of its visible lines: a word added
      to a paragraph rendered every widget in the chat (their clip is the whole scroller).
      Here only the widgets whose visible part meets the changed region are rendered, and
      only its rows. Textual writes only the changed spans, and every widget that covers a
      cell of them is still rendered for its rows (``tests/ui/test_frugal_compositor.py``
      compares the two, frame by frame).
    """

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        dirty, old_map = set(self._dirty_regions), self._full_map
        result = super().reflow(parent, size)
        self._full_map_invalidated = False  # the map just made covers every widget
        if size.region not in self._dirty_regions:
            self._dirty_regions = dirty | moved_regions(old_map, self._full_map)
        return result

    def _get_renders(self, crop: Region | None = None
                     ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None or crop == self.size.region:
            yield from super()._get_renders(crop)
            return
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region.intersection(clip)
            changed = visible.intersection(crop)
            if not changed:
                continue
            rows = Region(visible.x, changed.y, visible.width, changed.height)
            lines = rows.translate(-region.offset)
            yield region, rows, widget.render_lines(lines)


_VIRTUAL_SIZE: Reactive[Size] = Widget.virtual_size


class FrugalScreen(Screen[ScreenResultType]):
    """A screen drawn by a :class:`FrugalCompositor`, whose layouts ask for no second layout.

    Textual's layout sets the virtual size of every widget it resized, and Textual's
    ``virtual_size`` reactive then asks for a layout of the whole screen in the next frame,
    which finds what the first one found. Every widget of a new reply (each heading, table
    cell, code block and list) asked for it, so each reply was laid out twice: about 200 ms
    more for a long one in a full chat. Here the virtual sizes the layout itself sets ask for
    no layout; anything else that changes one still does. A widget that scrolls has its
    scroll bars placed by ``_size_updated``, and one that appears or goes asks for its own
    layout (``show_vertical_scrollbar``).
    """

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name, id, classes)
        self._compositor = FrugalCompositor()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        asks_for_layout, _VIRTUAL_SIZE._layout = _VIRTUAL_SIZE._layout, False
        try:
            super()._refresh_layout(size, scroll)
        finally:
            _VIRTUAL_SIZE._layout = asks_for_layout


# --- scrolling (openletta.ui.chat_scroll) -----------------------------------------------------


def anchor_holds(widget: Widget) -> bool:
    """Whether ``widget`` is anchored and the user has not scrolled away from its bottom.

    Such a widget shows its newest line at every layout; between two layouts its content may
    already have grown while its scroll has not moved yet. Textual keeps "the user scrolled
    away" (which ends the anchor's hold until the bottom is reached again) in a private flag.
    """
    return widget.is_anchored and not widget._anchor_released


def remove_hidden(widgets: Sequence[Widget]) -> AwaitRemove:
    """Remove ``widgets``, each hidden, without ``remove_children``'s layout and repaint of
    all of their parent (every widget in the chat's view), though nothing on screen changes.
    The parent is arranged again when next needed (its arrangement is kept per children)."""
    return widgets[0].app._prune(*widgets, parent=None) if widgets else AwaitRemove([])


# --- terminal (openletta.ui.app) --------------------------------------------------------------


def write_to_terminal(app: App[Any], text: str) -> None:
    """Write ``text`` (an escape sequence, such as the window title's) to the terminal.

    Textual has no public way to send the terminal a sequence of our own; it writes its own
    (the clipboard's OSC 52, the bell) through the app's driver, as this does. Nothing is
    written when the app has no driver (not running).
    """
    driver = app._driver
    if driver is not None:
        driver.write(text)


# --- Markdown lists (openletta.ui.widgets.markdown_lists) -------------------------------------
#
# The light lists subclass Textual's Markdown block classes, which ``textual.widgets.markdown``
# does not export (it exports ``MarkdownBlock`` and ``MarkdownFence``, not these), and read
# what the parser gave a block before it is mounted, which Textual keeps in private attributes.
# ``MarkdownBullet``, ``MarkdownBulletList``, ``MarkdownListItem``, ``MarkdownOrderedList`` and
# ``MarkdownParagraph`` are imported from here for that reason.


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


# --- input thread (openletta.ui.app) ----------------------------------------------------------

#: Seconds after input during which the input thread polls for the parser's timeouts (a lone
#: Esc is reported once no more bytes follow it).
INPUT_GRACE = 1.0
#: How often it polls then, as Textual's does.
POLL_SECONDS = 0.1


class _WakingEvent(threading.Event):
    """An event that also wakes a thread sleeping in ``select`` on ``wake_fd``'s pipe."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        super().set()
        with contextlib.suppress(OSError):
            os.write(self._wake_fd, b".")


class QuietLinuxDriver(LinuxDriver):
    """Textual's Linux driver with an input thread that sleeps while nothing happens.

    Textual's input thread wakes ten times a second (``select`` with a 0.1 s timeout) to see
    whether the app is stopping and whether a lone Esc has waited long enough: 0.1 % of a CPU
    for a chat nobody touches. This one polls like that only for :data:`INPUT_GRACE` seconds
    after input (the parser's own timeouts are shorter), and otherwise sleeps until input
    comes or :attr:`exit_event` is set, which writes to a pipe it also waits on. It reads and
    parses input exactly as Textual does, with Textual's ``XTermParser``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_read, self._wake_write = os.pipe()
        self.exit_event = _WakingEvent(self._wake_write)

    def run_input_thread(self) -> None:
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        last_input = -INPUT_GRACE
        with selectors.DefaultSelector() as selector:
            selector.register(self.fileno, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while not self.exit_event.is_set():
                recent = time.monotonic() - last_input < INPUT_GRACE
                for key, _mask in selector.select(POLL_SECONDS if recent else None):
                    if key.fd == self._wake_read:
                        os.read(self._wake_read, 512)
                        continue
                    data = os.read(self.fileno, 4096)
                    if not data:  # end of input (stdin is not a terminal)
                        selector.unregister(self.fileno)
                        continue
                    last_input = time.monotonic()
                    for event in parser.feed(decode(data)):
                        self.process_message(event)
                for event in parser.tick():
                    self.process_message(event)

    def close(self) -> None:
        super().close()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)
