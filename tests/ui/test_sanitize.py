"""Server text is shown literally: no markup, no control sequences but SGR colours."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.style import Style
from rich.text import Text

from openletta.ui.sanitize import ansi_text, clean_text, plain_text


def style_at(text: Text, offset: int) -> Style:
    """The combined style of the spans covering ``offset``."""
    styles = [Style.parse(span.style) if isinstance(span.style, str) else span.style
              for span in text.spans if span.start <= offset < span.end]
    return Style.combine(styles) if styles else Style()


HOSTILE = [
    ("\x1b]52;c;SGVsbG8=\x07copied", "copied"),                 # OSC 52: write the clipboard
    ("\x1b]52;c;SGVsbG8=\x1b\\copied", "copied"),               # ... ended by ST
    ("\x1b]0;title\x07after", "after"),                         # OSC 0: window title
    ("a\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 hyperlink
    ("\x1b[2Jcleared", "cleared"),                              # erase screen
    ("\x1b[10;10Hmoved", "moved"),                              # cursor position
    ("\x1b[?1049hfull\x1b[?25l", "full"),                       # alt screen, hide cursor
    ("\x1bPq#0;2;0;0;0\x1b\\after", "after"),                   # DCS (sixel)
    ("\x1b_apc payload\x1b\\x", "x"),                           # APC
    ("\x1b^pm\x1b\\y", "y"),                                    # PM
    ("\x1bXsos\x1b\\z", "z"),                                   # SOS
    ("\x9b2J\x9d0;t\x9cc1", "c1"),                              # 8-bit CSI and OSC
    ("\x1bcreset\x1b7\x1b(Bok", "resetok"),                     # RIS, DECSC, charset
    ("unterminated \x1b]0;title", "unterminated "),             # OSC cut off: dropped
    ("bell\x07bs\x08nul\x00del\x7fnel\x85.", "bellbsnuldelnel."),
    ("tab\there\nnext", "tab\there\nnext"),
    ("[bold red]markup[/]", "[bold red]markup[/]"),
    ("[link=file:///etc/passwd]x[/]", "[link=file:///etc/passwd]x[/]"),
    ("\x1b[1;31mred\x1b[0m plain", "red plain"),
]


@pytest.mark.parametrize(("hostile", "expected"), HOSTILE)
def test_clean_text_removes_every_escape(hostile: str, expected: str) -> None:
    assert clean_text(hostile) == expected


@pytest.mark.parametrize(("hostile", "expected"), HOSTILE)
def test_ansi_text_shows_the_same_characters(hostile: str, expected: str) -> None:
    assert ansi_text(hostile).plain == expected


def test_ansi_text_keeps_sgr_colours_and_styles() -> None:
    text = ansi_text("\x1b[1;31mred\x1b[0m plain \x1b[38;2;1;2;3mrgb\x1b[0m")
    assert text.plain == "red plain rgb"
    assert style_at(text, 0) == Style(bold=True, color="color(1)")
    assert style_at(text, 4) == Style()
    assert style_at(text, 10).color.triplet == (1, 2, 3)  # type: ignore[union-attr]


def test_ansi_text_sets_no_link() -> None:
    text = ansi_text("\x1b]8;;file:///etc/passwd\x1b\\click\x1b]8;;\x1b\\")
    assert text.plain == "click"
    assert style_at(text, 0).link is None


def test_non_sgr_csi_ending_in_m_is_dropped() -> None:
    assert ansi_text("\x1b[>4;2mx").spans == []
    assert ansi_text("\x1b[>4;2mx").plain == "x"


@pytest.mark.parametrize(("raw", "expected"), [
    ("10%\r20%\r30%", "30%"),
    ("abc\rxy", "xyc"),
    ("line\r\nnext\r\n", "line\nnext\n"),
    ("progress\r", "progress"),
    ("a\rb\nc\rd", "b\nd"),
])
def test_carriage_return_overwrites_the_line(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected
    assert ansi_text(raw).plain == expected


def test_overwritten_text_keeps_its_colour() -> None:
    text = ansi_text("\x1b[32mdownloading 10%\rdone\x1b[0m")
    assert text.plain == "doneloading 10%"
    assert style_at(text, 0) == Style(color="color(2)")


def test_plain_text_is_never_markup() -> None:
    text = plain_text("[bold]not bold[/bold] \x1b[1mnor this", style="italic")
    assert text.plain == "[bold]not bold[/bold] nor this"
    assert text.spans == []
    assert text.style == "italic"


@given(st.text(alphabet=st.sampled_from("ab\x1b[]0;m7\x07\\\x9b\x9d\x9c\r\n\x00P")))
def test_no_control_character_survives(raw: str) -> None:
    for shown in (clean_text(raw), ansi_text(raw).plain):
        assert not any(ord(char) < 32 and char not in "\n\t" for char in shown)
        assert not any(0x7F <= ord(char) <= 0x9F for char in shown)
