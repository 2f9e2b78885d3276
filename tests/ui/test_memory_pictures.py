"""A memory block's text draws the same way in a memory tool's card (the text the call adds,
and the block its result gives back) as in the memory panel (F2): escapes pictured, never
applied nor dropped."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_renderers import NARROW, call

from openletta.ui.memory_block import shown_value
from openletta.ui.renderers import renderer_for

#: Text with what a hostile block may hold: escapes, bell, carriage returns, C1 controls,
#: line and paragraph separators, bidi overrides, zero-width spaces, markup.
HOSTILE = st.text(alphabet=st.sampled_from(
    ["a", "b", " ", "\n", "\t", "[", "]", "/", "\x1b", "\x07", "\r", "\x00", "\x7f", "\x85",
     "\x9b", "\u2028", "\u2029", "\u202e", "\u200b", "\ufeff", "é", "界"]), min_size=1,
    max_size=40)


def card_lines(value: str) -> list[str]:
    """The body of a ``memory_insert`` card adding ``value``, whose result is ``value``."""
    item = call("memory_insert", {"label": "human", "new_str": value}, result=value)
    return "\n".join(block.plain for block in
                     renderer_for("memory_insert").body(item, NARROW)).split("\n")


def test_an_escape_in_a_block_is_pictured_in_the_card_as_in_the_panel() -> None:
    # Before, the block the result gave back dropped the escapes ("click  $(echo)", two
    # spaces left), while the line it added and the panel showed them as ␛ and ␇.
    value = "click \x1b[2J\x1b]0;TITLE\x07 $(echo)"
    panel = shown_value(value).plain
    assert panel == "click ␛[2J␛]0;TITLE␇ $(echo)"
    assert card_lines(value) == [f"+ {panel}", panel]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(HOSTILE)
def test_a_block_draws_the_same_in_the_card_and_in_the_panel(value: str) -> None:
    panel = shown_value(value).plain.split("\n")
    lines = card_lines(value)
    added, returned = lines[:len(panel)], lines[len(panel):]
    assert added == [f"+ {line}" for line in panel]
    if value.strip() not in ("", "None", "none", "null", "OK"):  # (results that say nothing)
        # (the result's last newline ends its last line, as a command's output's does)
        assert "\n".join(returned) == "\n".join(panel).removesuffix("\n")
