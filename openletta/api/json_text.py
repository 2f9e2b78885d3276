"""The one way openletta reads JSON it did not write: bounded, total, never a crash.

Everything that decodes JSON from the server (SSE ``data:`` lines, error bodies, history
pages, tool-call arguments, tool results) goes through :func:`loads` (the start of a text still
arriving, through :func:`loads_partial`):

* nesting deeper than :data:`MAX_DEPTH` is refused with a :class:`JSONTextError` before the
  decoder runs, so a hostile ``[[[[…]]]]`` never reaches Python's recursion limit (and the
  values that come out are shallow enough for ``json.dumps``, pydantic and Rich);
* every failure (invalid JSON, too deep, a number of thousands of digits) is a
  :class:`JSONTextError`, a ``ValueError`` with a human message;
* lone UTF-16 surrogates (``"\\udfff"``, valid JSON but not encodable as UTF-8) become
  U+FFFD, so the text can be printed, written to a file or copied.

A stream's chunks are validated straight from their text by
:func:`~openletta.api.messages.parse_known_json`, which keeps these rules: it checks
:func:`too_deep` first, and leaves what pydantic's decoder refuses (lone surrogates
included) to :func:`loads`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import TypeAdapter
from pydantic_core import from_json

#: Deepest nesting of arrays and objects accepted. Letta's own payloads nest a handful of
#: levels; tool results that nest deeper than this are shown as text.
MAX_DEPTH = 64
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: pydantic's JSON decoder: the values Python's decoder gives, several times faster, but it
#: refuses lone surrogates.
_decode_fast = TypeAdapter(Any).validator.validate_json


class JSONTextError(ValueError):
    """Text that is not JSON openletta accepts; the message says why, in one line."""


def loads(text: str | bytes) -> Any:
    """``text`` decoded as JSON; :class:`JSONTextError` for anything that is not acceptable."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if too_deep(text):
        raise JSONTextError(f"JSON nested more than {MAX_DEPTH} levels deep")
    try:
        return _decode_fast(text)
    except (ValueError, TypeError):  # a lone surrogate, escaped or not (TypeError), included
        return _python_loads(text)  # which says why, or cleans the surrogates up


def _python_loads(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError as error:  # JSONDecodeError, and ints of too many digits
        raise JSONTextError(f"not valid JSON ({_first_line(error)})") from None
    except RecursionError:  # only if the stack was nearly full already
        raise JSONTextError("JSON nested too deeply") from None
    if _SURROGATE_ESCAPE.search(text):
        value = _without_lone_surrogates(value)
    return value


def loads_or_none(text: str | bytes | None) -> Any:
    """:func:`loads`, or ``None`` for empty or unacceptable text."""
    if not text:
        return None
    try:
        return loads(text)
    except JSONTextError:
        return None


def loads_partial(text: str) -> Any:
    """The value that ``text``, the start of a JSON text, begins, as far as it goes: its last
    string cut where the text stops, a number as far as it goes, a key or literal not yet
    whole left out (``'{"path": "/a/b'`` gives ``{"path": "/a/b"}``). ``None`` for empty text,
    or a start that is not acceptable JSON (by the rules of :func:`loads`; lone surrogates
    included)."""
    if not text or too_deep(text):
        return None
    try:
        return from_json(text, allow_partial="trailing-strings")
    except (ValueError, TypeError):
        return None


def too_deep(text: str) -> bool:
    """Whether arrays and objects nest more than :data:`MAX_DEPTH` deep in ``text``
    (brackets inside strings do not count).

    Linear, and nearly free for text with few brackets, which is nearly all of it.
    """
    if "[" not in text and text.find("{", 1) < 0:  # one flat object at most (most chunks)
        return False
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        if bracket[0] in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth = max(0, depth - 1)
    return False


def _without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(entry) for entry in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(key): _without_lone_surrogates(entry)
                for key, entry in value.items()}
    return value


def _first_line(error: ValueError) -> str:
    return str(error).split("\n", 1)[0][:120]
