"""Syntax highlighting that lexes only the new end of code that grows, as a streamed reply's
code block does.

:func:`highlight` gives what Textual's :func:`textual.highlight.highlight` gives (the same
text, the same spans, by the same lexer and theme), but it remembers the last code it
highlighted in each language and theme. Given that code with more at its end, it keeps the
tokens up to a line some lines before the old end and lexes from there on only: a streamed
block of 300 lines cost 17 ms a write, lexed whole each time.

Lexing from a line is right only where the lexer carries no state into it, which Pygments
does not tell. The line must start a top-level construct (no indent) after a newline the
lexer took as plain text (not in a string or a comment), and the lines lexed again before
the old end must come out as they did; otherwise the code is lexed whole. That is the rule
for every language, and it held for every prefix of the code tested, but it is not proof
(a C function's body, lexed from an indented line, came out the same for lines and then
differed): ``whole=True`` lexes the code whole, as a streamed block is once it is done.
"""

from __future__ import annotations

import bisect
import functools
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound
from textual.content import Content, Span
from textual.highlight import (
    ANSIDarkHighlightTheme,
    ANSILightHighlightTheme,
    HighlightTheme,
    guess_language,
)

#: Lines before the old code's last line that are lexed again, and must come out the same.
CHECKED_LINES = 4

#: Highlighted codes remembered (one per language and theme).
REMEMBERED = 8

#: A token: where it starts in the code, its type and its text.
Lexed = tuple[int, _TokenType, str]


@dataclass(frozen=True)
class _Highlighted:
    """Code as the lexer saw it (ending in a newline), its tokens and their spans."""

    text: str
    tokens: list[Lexed]
    spans: list[Span]


_recent: OrderedDict[tuple[str, type[HighlightTheme]], _Highlighted] = OrderedDict()


def highlight_theme(*, ansi: bool, dark: bool) -> type[HighlightTheme]:
    """The theme Textual highlights code in: for ANSI colours (dark or light) or its own."""
    if ansi:
        return ANSIDarkHighlightTheme if dark else ANSILightHighlightTheme
    return HighlightTheme


def highlight(code: str, *, language: str | None = None,
              theme: type[HighlightTheme] = HighlightTheme, whole: bool = False) -> Content:
    """``code`` highlighted as ``language`` (guessed when not given) in ``theme``, as
    Textual's ``highlight`` does it; lexing again only what follows the last code
    highlighted in the language and theme when ``code`` begins with it, unless ``whole``."""
    language = language or guess_language(code, None)
    code = "\n".join(code.splitlines())
    lexer = _lexer(language)
    key = (language, theme)
    earlier = _recent.pop(key, None)
    lexed = _lexed(lexer, code, None if whole else earlier, theme)
    _recent[key] = lexed
    while len(_recent) > REMEMBERED:
        _recent.popitem(last=False)
    return Content(code, spans=lexed.spans).stylize_before("$text")


@functools.lru_cache(maxsize=32)
def _lexer(language: str) -> Lexer:
    """The lexer of ``language`` (plain text for one Pygments does not know), set up as
    Textual sets it up."""
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=8)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=8)


def _lexed(lexer: Lexer, code: str, earlier: _Highlighted | None,
           theme: type[HighlightTheme]) -> _Highlighted:
    """``code`` lexed, from where ``earlier`` stops being sure when ``code`` continues it."""
    text = code if code.endswith("\n") else code + "\n"
    if earlier is not None and "\t" not in code and not code.startswith("\ufeff"):
        continued = _continued(lexer, text, earlier, theme)
        if continued is not None:
            return continued
    tokens = list(_tokens(lexer, text, 0))
    return _Highlighted(text, tokens, list(_spans(tokens, theme)))


def _continued(lexer: Lexer, text: str, earlier: _Highlighted,
               theme: type[HighlightTheme]) -> _Highlighted | None:
    """``text`` lexed from a line of ``earlier`` on, if ``text`` continues it and the lines
    lexed again come out as before; else ``None``."""
    settled = earlier.text.rfind("\n", 0, len(earlier.text) - 1) + 1  # its last line's start
    if not settled or not text.startswith(earlier.text[:settled]):
        return None
    kept, start = _restart(earlier, settled)
    if start is None:
        return None
    again = list(_tokens(lexer, text[start:], start))
    checked = [token for token in again if token[0] + len(token[2]) <= settled]
    if (not checked or checked != earlier.tokens[kept:kept + len(checked)]
            or checked[-1][0] + len(checked[-1][2]) != settled):
        return None
    spans_kept = bisect.bisect_left(earlier.spans, start, key=lambda span: span.start)
    return _Highlighted(text, earlier.tokens[:kept] + again,
                        earlier.spans[:spans_kept] + list(_spans(again, theme)))


def _restart(earlier: _Highlighted, settled: int) -> tuple[int, int | None]:
    """Where to lex again from: the last line with no indent that follows a plain newline, at
    least :data:`CHECKED_LINES` lines before ``settled`` (the index in ``earlier`` of its
    first token, and its start), or ``None`` when there is none."""
    limit = settled
    for _ in range(CHECKED_LINES):
        limit = earlier.text.rfind("\n", 0, limit - 1) + 1
        if not limit:
            return 0, None
    text, tokens = earlier.text, earlier.tokens
    for index in range(len(tokens) - 1, 0, -1):
        start, kind, value = tokens[index - 1]
        end = start + len(value)
        if (end <= limit and value.endswith("\n") and kind[:len(Token.Text)] == Token.Text
                and not text[end].isspace()):
            return index, end
    return 0, None


def _tokens(lexer: Lexer, text: str, offset: int) -> Iterator[Lexed]:
    """The tokens of ``text`` (which starts at ``offset`` of the code)."""
    position = offset
    for kind, value in lexer.get_tokens(text):
        yield position, kind, value
        position += len(value)


def _spans(tokens: list[Lexed], theme: type[HighlightTheme]) -> Iterator[Span]:
    """A span of each token the theme styles (itself or by a parent type)."""
    styles = theme.STYLES
    for start, kind, value in tokens:
        style_of: _TokenType | None = kind
        while style_of is not None:
            if style := styles.get(style_of):
                yield Span(start, start + len(value), style)
                break
            style_of = style_of.parent
