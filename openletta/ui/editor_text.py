"""The display boundary of the text fields: what a field shows never holds a character that
would act on the terminal, and what it hands on is the text as it came and was typed.

A Textual text area writes its document to the terminal as it is, so a control character in
it (``ESC [2J`` clears the screen, ``ESC ]2;…`` sets the window title) would run. Every
character that could (C0 and C1 controls but newline and tab, DEL) and every one that Python
counts as a line break (so that lines break where they are shown) is shown as one visible
cell of its own (:func:`~openletta.display.control_pictures`: as the user's messages and
memory blocks are shown), and so is every one the chat shows as a marker since it reorders
or hides text (a bidi override, ``⟨U+202E⟩`` there, is ``⍰``:
:func:`~openletta.display.field_pictures`): the same number of characters, so that cursor
columns stay right.
:class:`RawLines` keeps the text as it came beside what is shown: edits are made to both at
the same places, which are the same since each character is shown as one.

Typed and pasted text is taken the same way: :func:`typed_text` is what a key types (more
than Textual's printable characters), :func:`pasted_text` the line breaks of a paste.
"""

from __future__ import annotations

import re

from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult, Location

from openletta.display import field_pictures

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_TERMINAL_LINE_BREAK = re.compile("\r\n?")


def typed_text(character: str | None) -> str | None:
    """What a key whose character is ``character`` types into a text field: the character,
    unless there is none or it is a control character (Enter, Tab, Esc, Ctrl+…: keys that
    act, not type).

    Textual types only characters that are ``str.isprintable()``, which drops the no-break
    space (Option+Space, AltGr+Space), the zero-width joiner of emoji sequences, and every
    character newer than Python's Unicode tables: here they are typed as a paste has them."""
    if not character or _CONTROL.search(character):
        return None
    return character


def pasted_text(text: str) -> str:
    """Pasted text with the terminal's line breaks as newlines: a terminal sends a line break
    in a paste as a carriage return (as Enter does), sometimes followed by a newline."""
    return _TERMINAL_LINE_BREAK.sub("\n", text) if "\r" in text else text


class RawLines:
    """The text of a text field as it came and was typed, in lines split where the shown
    text's are (at newlines only, since every other line break is shown as ``␤``)."""

    def __init__(self, text: str = "") -> None:
        self.lines = text.split("\n")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def reset(self, text: str) -> None:
        self.lines = text.split("\n")

    def replace(self, start: Location, end: Location, text: str) -> str:
        """Put ``text`` between ``start`` and ``end`` (as ``Document.replace_range``);
        returns what was there."""
        (top_row, top_column), (bottom_row, bottom_column) = sorted((start, end))
        lines = self.lines
        replaced = self.text_between((top_row, top_column), (bottom_row, bottom_column))
        before = lines[top_row][:top_column] if top_row < len(lines) else ""
        after = lines[bottom_row][bottom_column:] if bottom_row < len(lines) else ""
        inserted = text.split("\n")
        inserted[0] = before + inserted[0]
        inserted[-1] += after
        lines[top_row:bottom_row + 1] = inserted
        return replaced

    def text_between(self, top: Location, bottom: Location) -> str:
        (top_row, top_column), (bottom_row, bottom_column) = top, bottom
        if top_row == bottom_row:
            return self.lines[top_row][top_column:bottom_column] if top_row < len(self.lines) \
                else ""
        middle = self.lines[top_row:bottom_row + 1]
        middle[0] = middle[0][top_column:]
        if bottom_row < len(self.lines):
            middle[-1] = middle[-1][:bottom_column]
        return "\n".join(middle)


class RawEdit(Edit):
    """An :class:`Edit` of the shown text (``text`` pictured) that makes the same change to
    the text as it came (``raw``, in ``lines``), when done, undone and redone."""

    def __init__(self, edit: Edit, lines: RawLines) -> None:
        super().__init__(field_pictures(edit.text), edit.from_location, edit.to_location,
                         edit.maintain_selection_offset)
        self.raw = edit.text
        self.lines = lines
        #: What the edit replaced in ``lines``, and where its text ended (for the undo).
        self.raw_replaced = ""
        self.raw_end = self.top

    def do(self, text_area: TextArea, record_selection: bool = True) -> EditResult:
        result = super().do(text_area, record_selection)
        self.raw_replaced = self.lines.replace(self.top, self.bottom, self.raw)
        self.raw_end = result.end_location
        return result

    def undo(self, text_area: TextArea) -> EditResult:
        result = super().undo(text_area)
        self.lines.replace(self.top, self.raw_end, self.raw_replaced)
        return result
