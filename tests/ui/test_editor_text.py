"""The display boundary of the text fields, as a property: whatever text comes in and however
(made with it, loaded, inserted, replaced, deleted, undone, redone), the document holds no
character that could act on the terminal, and the text handed on is the text as it came."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from test_editor_boundary import FORBIDDEN
from textual.widgets.text_area import Location

from openletta.display import control_pictures, field_pictures
from openletta.ui.editor_text import pasted_text, typed_text
from openletta.ui.steady import SteadyTextArea

#: Characters that test the boundary, among any others.
TRICKY = [*"ab \n\t\r\x00\x07\x0b\x0c\x1b\x1c\x7f\x85\x9b\x9c\u2028\u2029\ud800\udfff",
          *"␛␤⍰␍é中\u200d\u200b\u202e\u00a0", "👨\u200d👩", "\r\n", "\x1b[2J", "\x1b]2;x\x07"]
TEXTS = st.lists(st.sampled_from(TRICKY) | st.characters(), max_size=12).map("".join)


def offset(text: str, location: Location) -> int:
    row, column = location
    return sum(len(line) + 1 for line in text.split("\n")[:row]) + column


def location_in(data: st.DataObject, text: str) -> Location:
    lines = text.split("\n")
    row = data.draw(st.integers(0, len(lines) - 1))
    return row, data.draw(st.integers(0, len(lines[row])))


@settings(max_examples=300, deadline=None)
@given(first=TEXTS, data=st.data())
def test_a_text_field_never_holds_a_control_and_hands_on_the_text_as_it_came(
        first: str, data: st.DataObject) -> None:
    area = SteadyTextArea(first)
    raw, undone, redone = first, [], []  # the model: the text, and what undo and redo give
    for _ in range(data.draw(st.integers(1, 25))):
        action = data.draw(st.sampled_from(["replace", "insert", "delete", "undo", "redo",
                                            "load"]))
        if action == "load":
            raw, undone, redone = data.draw(TEXTS), [], []
            area.load_text(raw)
        elif action == "undo" and undone:
            redone.append(raw)
            raw = undone.pop()
            area.undo()
        elif action == "redo" and redone:
            undone.append(raw)
            raw = redone.pop()
            area.redo()
        elif action in ("replace", "insert", "delete"):
            start = location_in(data, raw)
            end = start if action == "insert" else location_in(data, raw)
            text = "" if action == "delete" else data.draw(TEXTS)
            low, high = sorted((offset(raw, start), offset(raw, end)))
            if text or low != high:  # (an edit that changes nothing is not kept for undo)
                undone, redone = [*undone, raw], []
            raw = raw[:low] + text + raw[high:]
            area.replace(text, start, end)
            area.history.checkpoint()  # one edit, one undo
        assert not FORBIDDEN.search(area.text)
        assert area.text == field_pictures(raw) and area.raw_text == raw


@given(TEXTS)
def test_each_character_is_shown_as_one_visible_character(text: str) -> None:
    shown = field_pictures(text)
    assert len(shown) == len(text) and not FORBIDDEN.search(shown)
    assert all(new == old for new, old in zip(shown, text, strict=True)
               if not FORBIDDEN.search(old) and unicodedata.category(old) != "Cf")
    assert control_pictures("\x1b[2J\x07\x7f\x9b\u2028") == "␛[2J␇␡⍰␤"
    assert field_pictures("\x1b\u202eab\u200b") == "␛⍰ab⍰"


def test_keys_type_every_character_but_controls_and_pastes_break_lines_at_newlines() -> None:
    assert [typed_text(character) for character in ("\u00a0", "\u200d", "\U0001fae8", "é")] \
        == ["\u00a0", "\u200d", "\U0001fae8", "é"]
    assert [typed_text(character) for character in (None, "", "\r", "\x1b", "\x01", "\x9b")] \
        == [None] * 6
    assert pasted_text("a\r\nb\rc\nd") == "a\nb\nc\nd"
