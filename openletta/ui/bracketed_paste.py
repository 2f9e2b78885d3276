"""Bracketed pastes taken out of the terminal's input whole, before Textual's parser reads it.

Textual's xterm parser reads a paste character by character and takes an ESC in it for the
start of a key's escape sequence: what follows is replayed as keys, ahead of the paste (a
paste ``abc ESC[31m def`` arrives as ``^[31m def`` typed, then ``abc`` pasted). Here the
text between the paste's markers goes around the parser: :meth:`PasteSplitter.feed` gives
the input in order, as text for the parser and :class:`Pasted` texts, ESC bytes and all.

The parser still reads the markers (so that it leaves no state of its own half-way), and
all of the input outside pastes as soon as it comes: a lone Esc waits for nothing more. A
marker may be cut by the end of a read: the start marker is found across reads, and the end
of a paste that might be the start of its end marker waits for the next read. As with
Textual, a NUL in a paste is left out (some terminals pad pastes with it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

PASTE_START: Final = "\x1b[200~"
PASTE_END: Final = "\x1b[201~"


@dataclass(frozen=True)
class Pasted:
    """The text of one bracketed paste."""

    text: str


class PasteSplitter:
    """Splits the terminal's input into what the parser reads and the pastes (see the module).
    """

    def __init__(self) -> None:
        self._pasting = False
        #: The end of the input the parser read last, which may begin a start marker.
        self._tail = ""
        #: The end of the paste so far, which may begin its end marker.
        self._held = ""
        self._pasted: list[str] = []

    def feed(self, data: str) -> list[str | Pasted]:
        """The parts of ``data`` (after what came before it) in order: text for the parser
        and the pastes it ends."""
        parts: list[str | Pasted] = []
        while data:
            data = self._paste(data, parts) if self._pasting else self._keys(data, parts)
        return parts

    def _keys(self, data: str, parts: list[str | Pasted]) -> str:
        """Hand ``data`` to the parser up to the end of a start marker; returns the rest."""
        seen = self._tail + data
        found = seen.find(PASTE_START)
        if found < 0:
            parts.append(data)
            self._tail = seen[-(len(PASTE_START) - 1):]
            return ""
        end = found + len(PASTE_START) - len(self._tail)
        parts.append(data[:end])
        self._tail, self._pasting = "", True
        return data[end:]

    def _paste(self, data: str, parts: list[str | Pasted]) -> str:
        """Take ``data`` into the paste up to its end marker; returns the rest."""
        seen = self._held + data
        found = seen.find(PASTE_END)
        if found < 0:
            kept = len(seen) - _marker_start(seen, PASTE_END)
            self._pasted.append(seen[:kept])
            self._held = seen[kept:]
            return ""
        self._pasted.append(seen[:found])
        parts += [PASTE_END, Pasted("".join(self._pasted).replace("\x00", ""))]
        self._held, self._pasted, self._pasting = "", [], False
        return seen[found + len(PASTE_END):]


def _marker_start(text: str, marker: str) -> int:
    """How many characters at the end of ``text`` may be the start of ``marker``."""
    for length in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-length:]):
            return length
    return 0
