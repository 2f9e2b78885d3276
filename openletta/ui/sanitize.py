"""Make server text safe to show: never markup, and no terminal control except SGR colours.

Text from the server (replies, tool output, file contents, tool names) may hold escape
sequences that would move the cursor, clear the screen, set the window title or write the
clipboard (OSC 52) if they reached the terminal. :func:`clean_text` removes every escape
sequence and control character but newline and tab; :func:`ansi_text` keeps SGR colour and
style sequences only and turns them into a :class:`rich.text.Text`. Neither result is ever
parsed as Rich or Textual markup.

A carriage return overwrites the start of its line, as on a terminal, so progress bars
(``10%\\r20%\\r30%``) show their last state.
"""

from __future__ import annotations

import re

from rich.text import Text

_SEQUENCE = re.compile(
    r"""
      (?P<csi>(?:\x1b\[|\x9b)(?P<params>[0-?]*)(?P<inter>[\x20-/]*)(?P<final>[@-~]))
    | (?:\x1b\[|\x9b)[0-?]*[\x20-/]*\Z                            # CSI cut off at the end
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|\Z)  # OSC DCS SOS PM APC
    | \x1b[\x20-/]*[0-~]                                           # other escape sequences
    | \x1b                                                         # a lone ESC
    | [\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\uffff]                     # controls, U+FFFF
    """,
    re.VERBOSE | re.DOTALL,
)
_SGR_PARAMS = re.compile(r"[0-9;:]*")
#: Stands for a carriage return while :func:`ansi_text` decodes (never left in the input).
_CR_MARK = "\uffff"


def clean_text(text: str) -> str:
    """``text`` without any escape sequence or control character except ``\\n`` and ``\\t``."""
    return _overwrite_lines(_strip(text, keep_sgr=False))


def ansi_text(text: str, style: str = "") -> Text:
    """``text`` as a :class:`Text` keeping only its SGR colours and styles."""
    cleaned = _strip(text, keep_sgr=True)
    if "\r" not in cleaned:
        return Text.from_ansi(cleaned, style=style)
    decoded = Text.from_ansi(cleaned.replace("\r", _CR_MARK), style=style)
    lines = [_overwrite_text(line) for line in decoded.split("\n", allow_blank=True)]
    return Text("\n", style=style).join(lines)


def plain_text(text: str, style: str = "") -> Text:
    """``text`` shown literally (no markup, no escapes) as a :class:`Text`."""
    return Text(clean_text(text), style=style)


def _strip(text: str, *, keep_sgr: bool) -> str:
    text = text.replace("\r\n", "\n")

    def replace(match: re.Match[str]) -> str:
        if keep_sgr and match["csi"] and _is_sgr(match):
            return f"\x1b[{match['params']}m"
        return ""

    return _SEQUENCE.sub(replace, text)


def _is_sgr(match: re.Match[str]) -> bool:
    return (match["final"] == "m" and not match["inter"]
            and _SGR_PARAMS.fullmatch(match["params"]) is not None)


def _overwrite_lines(text: str) -> str:
    if "\r" not in text:
        return text
    return "\n".join(_overwrite(line.split("\r")) for line in text.split("\n"))


def _overwrite(parts: list[str]) -> str:
    """What a terminal shows after writing ``parts`` separated by carriage returns."""
    shown = ""
    for part in parts:
        shown = part + shown[len(part):]
    return shown


def _overwrite_text(line: Text) -> Text:
    if _CR_MARK not in line.plain:
        return line
    shown = Text()
    for part in line.split(_CR_MARK, allow_blank=True):
        shown = part + shown[len(part):]
    return shown
