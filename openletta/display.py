"""The one place where text from outside (the server, tools, files) becomes text on screen.

:class:`DisplayText` is a ``str`` that is safe to show: constructing one is the only way text
is made so, and every widget, toast, status line and the ``openletta replay`` printer shows
server text through it (or through the helpers below, which build on it). What it does:

* removes every escape sequence (CSI, OSC such as OSC 52 clipboard writes and window titles,
  DCS, …) and every control character but newline and tab; a carriage return is a line
  break (as in Markdown) and can never overwrite what came before it on the line;
* shows the characters that reorder or hide text (bidi overrides and isolates, zero-width
  spaces, Unicode tags, …) as a visible marker such as ``⟨U+202E⟩``;
* replaces lone surrogates, which cannot be written to a terminal or a file;
* redacts secrets: the API key, ``Authorization`` values, passwords in URLs.

Nothing here is ever parsed as Rich or Textual markup. Four variants for special places:

* :func:`literal_text` for tool-call *arguments* (what the user approves): control and
  invisible characters are *shown* (``␍``, ``␛``, ``⟨U+200B⟩``), never interpreted, so what
  is shown is exactly what runs; :func:`has_hidden_characters` says when to warn;
* :func:`pictured_text` for the user's own words (a message, a memory block): each control
  character shown as the text fields show it (:func:`control_pictures`: ``␛``, one cell), so
  that what was typed or pasted reads the same in the prompt, in the chat and on exit;
* :func:`terminal_text` for tool *output*: SGR colours are kept and a carriage return
  overwrites its line, as a terminal would show the same bytes;
* :class:`StreamCleaner` for text that grows while it streams: cost linear in what arrives.

Every function here is linear in the length of its input.
"""

from __future__ import annotations

import json
import re

from rich.text import Text

from openletta.redaction import SECRET, redact, without_secrets

#: Characters that reorder or hide text and have no business in what a user reads: bidi
#: controls, zero-width spaces and joiners of words, the soft hyphen, Unicode tags. (The
#: zero-width joiner and non-joiner are left alone here: emoji and scripts need them.)
_HIDDEN = (
    "\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\ufff9-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
#: Escape sequences and control characters, for :class:`DisplayText` and
#: :func:`terminal_text`. A CSI or OSC cut off by the end of the text is removed whole.
_SPECIAL = f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff{_HIDDEN}]"
#: Whether a text holds anything :data:`_SEQUENCE` would change (most text does not).
_NEEDS_CLEANING = re.compile(_SPECIAL)
_SEQUENCE = re.compile(
    # The lookahead lets the engine skip ordinary characters fast.
    f"(?={_SPECIAL})" r"""(?:
      (?P<csi>(?:\x1b\[|\x9b)(?P<params>[0-?]*)(?P<inter>[\x20-/]*)(?P<final>[@-~]))
    | (?:\x1b\[|\x9b)[0-?]*[\x20-/]*\Z                                   # CSI cut off
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|\Z)  # OSC DCS SOS PM APC
    | \x1b[\x20-/]*[0-~]                                                  # other sequences
    | \x1b                                                                # a lone ESC
    | (?P<cr>\r)
    | [\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]                     # other controls
    | (?P<surrogate>[\ud800-\udfff])
    """ f"| (?P<hidden>[{_HIDDEN}]))",
    re.VERBOSE | re.DOTALL,
)
#: What :func:`literal_text` shows visibly: every control but newline and tab, every format
#: character (Unicode category Cf: bidi controls, zero-width characters, tags, …), line and
#: paragraph separators, surrogates and the noncharacters U+FFFE and U+FFFF.
_LITERAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff"
    "\ufeff\ufff9-\ufffb\ufffe\uffff\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
#: What :func:`control_pictures` shows a C1 control or a lone surrogate as (no Unicode
#: picture exists for them).
UNSHOWABLE = "\u2370"  # ⍰
#: What :func:`control_pictures` shows a line break but newline as (NEL, LS, PS).
LINE_BREAK = "\u2424"  # ␤
#: Each character :func:`control_pictures` shows as another: C0 controls as their Unicode
#: Control Pictures (␀ … ␟), DEL as ␡, the other line breaks as ␤, C1 controls and lone
#: surrogates as ⍰.
_PICTURES = {code: 0x2400 + code for code in range(0x20) if code not in (0x09, 0x0A)}
_PICTURES |= {0x7F: 0x2421, 0x85: ord(LINE_BREAK), 0x2028: ord(LINE_BREAK),
              0x2029: ord(LINE_BREAK)}
_PICTURES |= {code: ord(UNSHOWABLE) for code in range(0x80, 0xA0) if code != 0x85}
_PICTURES |= {code: ord(UNSHOWABLE) for code in range(0xD800, 0xE000)}
#: A character :class:`DisplayText` shows as a marker, which a text field shows as ⍰.
_HIDDEN_CHARACTER = re.compile(f"[{_HIDDEN}]")
_PICTURED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: A carriage return right before a newline is an ordinary line ending, not worth a warning.
_CRLF_CR = re.compile("\r(?=\n)")
#: The ASCII characters :data:`_LITERAL` leaves as they are.
_SHOWN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"
_SGR_PARAMS = re.compile(r"[0-9;:]*")
_LINE_BREAKS = re.compile(r"[\n\t]+")
#: Stands for a carriage return while :func:`terminal_text` decodes (removed from input).
_CR_MARK = "\uffff"
#: Where an escape sequence may start that the end of a streamed part could cut in two.
_SEQUENCE_START = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
#: The longest unfinished escape sequence a stream holds back, waiting for its end.
_LONGEST_CUT_SEQUENCE = 4096
_COMPLETE_SEQUENCE = re.compile(
    r"""(?:\x1b\[|\x9b)[0-?]*[\x20-/]*[@-~]
      | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c)
      | \x1b[\x20-/]*[0-~](?<![\[\]PX^_])""",
    re.VERBOSE | re.DOTALL,
)

#: Characters of one line shown before the rest is left out (:func:`capped_lines`).
MAX_LINE_LENGTH = 10_000
#: Lines over a limit that are shown rather than cut: leaving out so few saves nothing.
FEW_LINES = 5


class DisplayText(str):
    """Text from outside made safe to show (see the module docstring); never markup."""

    __slots__ = ()

    def __new__(cls, text: str = "") -> DisplayText:
        if type(text) is cls:
            return text
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if _NEEDS_CLEANING.search(text):
            text = _SEQUENCE.sub(_general, text)
        return super().__new__(cls, redact(text))


def literal_text(text: str) -> DisplayText:
    """``text`` with every control or invisible character *shown*: ``\\r`` as ``␍``, ESC as
    ``␛``, a bidi override as ``⟨U+202E⟩``. For what the user approves: tool arguments.

    Nothing else is changed, but a registered secret, shown as ``⟨secret⟩``: what is shown
    is what runs."""
    return str.__new__(DisplayText, without_secrets(_LITERAL.sub(_picture, text), SECRET))


def control_pictures(text: str) -> str:
    """``text`` with each character that could act on the terminal or break a line but
    newline shown as one visible character of its own (``ESC`` as ``␛``; tab and newline
    stay): what a text field shows, so that the same number of characters keeps cursor
    columns right."""
    return text.translate(_PICTURES) if _PICTURED.search(text) else text


def field_pictures(text: str) -> str:
    """What a text field shows of ``text``: :func:`control_pictures`, and each character that
    reorders or hides text, which the chat shows as a marker (``⟨U+202E⟩``: the set
    :class:`DisplayText` marks), as :data:`UNSHOWABLE`: one visible character, so that cursor
    columns stay right and no bidi override reverses what is typed after it."""
    return _HIDDEN_CHARACTER.sub(UNSHOWABLE, control_pictures(text))


def pictured_text(text: str) -> DisplayText:
    """The user's own words (a message, a memory block) as the text fields show them: each
    control character as its picture (:func:`control_pictures`), never dropped, the rest as
    :class:`DisplayText` has it (invisible characters marked, secrets redacted)."""
    return DisplayText(control_pictures(text))


def pictured_line(text: str) -> str:
    """The user's words on one line, for a title made from them (a conversation's label, what
    a reply answers): each control character as its picture (:func:`control_pictures`, as
    the prompt shows it), every run of spaces, tabs and newlines one space."""
    return " ".join(control_pictures(text).split())


def has_hidden_characters(text: str) -> bool:
    """Whether :func:`literal_text` has to show anything in ``text`` (a CRLF line ending
    aside): a reason to warn that the text is not what it may seem.

    Linear, and for ASCII text (most code and commands, asked of at every fragment of a file
    being written) a byte copy: twenty times quicker than the search."""
    if text.isascii():
        hidden = text.encode("ascii").translate(None, _SHOWN_ASCII)
        if b"\r" not in hidden:
            return bool(hidden)
    return _LITERAL.search(_CRLF_CR.sub("", text) if "\r" in text else text) is not None


def counted(count: int, noun: str) -> str:
    """``"1 line"``, ``"1,024 lines"``: ``count`` and ``noun``, in the plural unless one."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def single_line(text: str) -> DisplayText:
    """:class:`DisplayText` for a place that has one line: line breaks and tabs are spaces."""
    return str.__new__(DisplayText, _LINE_BREAKS.sub(" ", DisplayText(text)))


def capped_lines(text: str, limit: int) -> tuple[list[str], int]:
    """The first ``limit`` lines of ``text`` (split at newlines only: a carriage return stays
    in its line), each cut at :data:`MAX_LINE_LENGTH`, and how many lines were left out:
    none when that would be :data:`FEW_LINES` or fewer (cutting so little saves nothing)."""
    lines = _lines(text)
    if len(lines) <= limit + FEW_LINES:
        limit = len(lines)
    return [_capped_line(line) for line in lines[:limit]], len(lines) - limit


def head_lines(text: str, limit: int) -> tuple[str, int]:
    """The start of ``text`` whose lines :func:`capped_lines` shows (its first ``limit``
    lines, or all of it when that would leave out :data:`FEW_LINES` or fewer), and how many
    lines that leaves out: a long text need not be made display text whole to show its
    first lines (a file being written, at every fragment)."""
    total = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if total <= limit + FEW_LINES:
        return text, 0
    end = -1
    for _ in range(limit):
        end = text.find("\n", end + 1)
    return text[:end + 1], total - limit  # (with its newline: an empty last line counts)


def capped_last_lines(text: str, limit: int) -> tuple[list[str], int]:
    """Like :func:`capped_lines`, but the last ``limit`` lines of ``text``."""
    lines = _lines(text)
    if len(lines) <= limit + FEW_LINES:
        limit = len(lines)
    return [_capped_line(line) for line in lines[len(lines) - limit:]], len(lines) - limit


def capped_ends(text: str, limit: int) -> tuple[list[str], int, list[str]]:
    """Like :func:`capped_lines`, but keeping both ends of ``text`` (the end of an output is
    where its errors and summaries are): its first and last lines, ``limit`` in all, and how
    many lines between them were left out."""
    lines, left_out = capped_lines(text, limit)
    if not left_out:
        return lines, 0, []
    last, _ = capped_last_lines(text, limit - limit // 2)
    return lines[:limit // 2], left_out, last


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if not lines[-1]:  # a final newline ends the last line
        lines.pop()
    return lines


def _capped_line(line: str) -> str:
    if len(line) <= MAX_LINE_LENGTH:
        return line
    return f"{line[:MAX_LINE_LENGTH]} … ({len(line) - MAX_LINE_LENGTH:,} more characters)"


def plain_text(text: str, style: str = "") -> Text:
    """``text`` shown literally (no markup, no escapes) as a Rich :class:`Text`."""
    return Text(DisplayText(text), style=style)


def terminal_text(text: str, style: str = "") -> Text:
    """Tool output as a terminal would show it: SGR colours and styles kept, every other
    sequence removed, a carriage return overwriting its line (``10%\\r20%`` shows ``20%``)."""
    text = text.replace("\r\n", "\n")
    if _NEEDS_CLEANING.search(text):
        text = _SEQUENCE.sub(_keep_sgr, text)
    text = redact(text)
    if _CR_MARK not in text:
        return Text.from_ansi(text, style=style)
    decoded = Text.from_ansi(text, style=style)
    lines = [_overwritten(line) for line in decoded.split("\n", allow_blank=True)]
    return Text("\n", style=style).join(lines)


def overwritten(line: str) -> str:
    """What a terminal shows after writing ``line``, whose carriage returns move back to
    its start: each part overwrites the start of what is there. Linear in ``line``."""
    return "".join(line[start:end] for start, end in _visible_ranges(line.split("\r")))


class StreamCleaner:
    """Display text of a text that arrives in parts, made in time linear in what arrives.

    :meth:`feed` takes the next part and returns its display text. An escape sequence or a
    CRLF cut in two by the end of a part waits for the rest (``final=True`` takes all).
    """

    def __init__(self) -> None:
        #: The end of the parts so far that waits for what follows.
        self._held = ""

    def feed(self, part: str, *, final: bool = False) -> DisplayText:
        """The display text of ``part`` (and of what was held back before it)."""
        text = self._held + part if self._held else part
        end = len(text) if final else _safe_end(text)
        self._held = text[end:]
        return DisplayText(text[:end] if self._held else text)


def json_for_terminal(value: object) -> str:
    """``value`` as indented JSON that is safe to print: readable text, with every character
    :func:`literal_text` would picture written as a ``\\uXXXX`` escape."""
    return _LITERAL.sub(_json_escape, json.dumps(value, indent=2, ensure_ascii=False))


# --- replacements ----------------------------------------------------------------------------


def _general(match: re.Match[str]) -> str:
    if match["surrogate"]:
        return "\ufffd"
    if match["hidden"]:
        return _marker(match[0])
    return ""


def _keep_sgr(match: re.Match[str]) -> str:
    if match["csi"] and match["final"] == "m" and not match["inter"] \
            and _SGR_PARAMS.fullmatch(match["params"]):
        return f"\x1b[{match['params']}m"
    if match["cr"]:
        return _CR_MARK
    return _general(match)


def _picture(match: re.Match[str]) -> str:
    character = match[0]
    if character < "\x20" or character == "\x7f":  # as control_pictures: ␀ … ␟, ␡
        return character.translate(_PICTURES)
    return _marker(character)


def _json_escape(match: re.Match[str]) -> str:
    return json.dumps(match[0])[1:-1]  # ensure_ascii: \\u escapes, pairs beyond the BMP


def _marker(character: str) -> str:
    return f"⟨U+{ord(character):04X}⟩"


def _overwritten(line: Text) -> Text:
    """:func:`overwritten` for a line with styles (carriage returns as :data:`_CR_MARK`)."""
    if _CR_MARK not in line.plain:
        return line
    ranges = _visible_ranges(line.plain.split(_CR_MARK))
    return Text("").join(line[start:end] for start, end in ranges)


def _visible_ranges(parts: list[str]) -> list[tuple[int, int]]:
    """Where in a line (``parts`` joined by a one-character carriage return) the pieces a
    terminal shows are, in the order it shows them: all of the last part, then the end of
    each earlier part that reaches further than every later one."""
    starts, offset = [], 0
    for part in parts:
        starts.append(offset)
        offset += len(part) + 1
    shown = [(starts[-1], starts[-1] + len(parts[-1]))]
    covered = len(parts[-1])
    for start, part in zip(reversed(starts[:-1]), reversed(parts[:-1]), strict=True):
        if len(part) > covered:
            shown.append((start + covered, start + len(part)))
            covered = len(part)
    return shown


def _safe_end(text: str) -> int:
    """Where ``text`` can be cut: before a trailing carriage return or an escape sequence
    that the end cuts in two (one held back longer than :data:`_LONGEST_CUT_SEQUENCE` is
    let go: it is dropped up to the end, as a whole text's would be)."""
    end = len(text)
    if text.endswith("\r"):
        end -= 1
    position = 0
    while (found := _SEQUENCE_START.search(text, position, end)) is not None:
        complete = _COMPLETE_SEQUENCE.match(text, found.start(), end)
        if complete is None:
            return found.start() if end - found.start() <= _LONGEST_CUT_SEQUENCE else end
        position = complete.end()
    return end
