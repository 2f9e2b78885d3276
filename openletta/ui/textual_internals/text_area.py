"""Textual's private API for text fields: undo and redo that size the field once the cursor
is back in the text, and a theme filled in from the field's styles only when they change."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rich.style import Style
from textual.document._edit import Edit
from textual.geometry import Region
from textual.strip import Strip
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


class KeptThemeTextArea(TextArea):
    """A text area that fills in its theme from its styles only when they changed.

    Textual's text area does it at every paint (``TextAreaTheme.apply_css``): its own style
    and six component styles worked out again, half a millisecond for each key typed into
    the prompt. What they are made of: the theme, the app's theme, the field's own style,
    and its component styles, which Textual makes anew whenever it styles the field (it
    gains or loses focus, the theme changes); each is checked here before a paint.
    """

    #: What the theme was last filled in from: the objects, and the field's own style.
    _themed_from: tuple[object, ...] = ()
    _themed_style: Style | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        inputs = (self._theme, self.app.current_theme, *self._component_styles.values())
        style = self.rich_style
        if style == self._themed_style and len(inputs) == len(self._themed_from) and all(
                now is then for now, then in zip(inputs, self._themed_from, strict=True)):
            return super(TextArea, self).render_lines(crop)  # (Textual's, less apply_css)
        self._themed_from, self._themed_style = inputs, style
        return super().render_lines(crop)
