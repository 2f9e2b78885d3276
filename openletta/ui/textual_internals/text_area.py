"""Textual's private API for text fields: undo and redo that size the field once the cursor
is back in the text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from textual.document._edit import Edit
from textual.widgets import TextArea

# --- text areas (openletta.ui.steady) ---------------------------------------------------------


class OrderedUndoTextArea(TextArea):
    """A text area whose undo and redo cannot fail on a cursor left outside the text.

    Textual 8's ``_undo_batch`` and ``_redo_batch`` change the text, then size the field
    (``_refresh_size``), and only then move the cursor where the edits leave it
    (``Edit.after``). Sizing the field can show or hide its scrollbar, whose watcher scrolls
    to the cursor: undoing a paste of more lines than the field shows (or redoing the
    deletion of such lines) has the cursor on a line the text no longer has, and
    ``WrappedDocument`` raises ``ValueError``. (``edit`` moves the cursor first.) Here the
    sizing waits until the cursor has moved: Textual's order, as ``edit`` has it, is kept.
    Textual issue #6686.
    """

    #: Inside an undo or redo: whether it asked for the field to be sized (it waits).
    _size_held: bool | None = None

    def _refresh_size(self) -> None:
        if self._size_held is None:
            super()._refresh_size()
        else:
            self._size_held = True

    def _undo_batch(self, edits: Sequence[Edit]) -> None:
        with self._sized_at_the_end():
            super()._undo_batch(edits)

    def _redo_batch(self, edits: Sequence[Edit]) -> None:
        with self._sized_at_the_end():
            super()._redo_batch(edits)

    @contextmanager
    def _sized_at_the_end(self) -> Iterator[None]:
        """Hold the sizing asked for inside, and size the field at the end if it was."""
        self._size_held = False
        try:
            yield
        finally:
            asked, self._size_held = self._size_held, None
            if asked:
                super()._refresh_size()
