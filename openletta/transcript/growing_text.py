"""A ``str`` field of a display item that grows while the item streams."""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload


class GrowingText:
    """A ``str`` field that grows while its item streams, in time linear in what arrives.

    Reading it gives a plain ``str`` (the parts are joined once, when read); :meth:`append`
    adds a part without copying what is there, so a reply of 40,000 chunks costs 40,000
    appends, not 40,000 copies of an ever longer text; :meth:`since` reads only the end.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}_parts"

    @overload
    def __get__(self, item: None, owner: type | None = None) -> str: ...
    @overload
    def __get__(self, item: object, owner: type | None = None) -> str: ...
    def __get__(self, item: object | None, owner: type | None = None) -> str:
        if item is None:
            return ""  # the field's default
        parts = self._parts(item)
        if len(parts.pieces) > 1:
            parts.pieces[:] = ["".join(parts.pieces)]
        return parts.pieces[0]

    def __set__(self, item: object, text: str) -> None:
        item.__dict__[self._slot] = _Parts([text], len(text))

    def append(self, item: object, part: str) -> None:
        """Add ``part`` at the end of ``item``'s text."""
        parts: _Parts = item.__dict__[self._slot]  # once per chunk: no call to _parts
        parts.pieces.append(part)
        parts.length += len(part)

    def length(self, item: object) -> int:
        """The length of ``item``'s text (nothing is joined)."""
        return self._parts(item).length

    def since(self, item: object, start: int) -> str:
        """``item``'s text from ``start`` on, joining only the parts that hold it."""
        parts = self._parts(item)
        needed, count = parts.length - start, 0
        while needed > 0 and count < len(parts.pieces):
            count += 1
            needed -= len(parts.pieces[-count])
        tail = "".join(parts.pieces[len(parts.pieces) - count:])
        return tail[-needed:] if needed < 0 else tail

    def _parts(self, item: object) -> _Parts:
        parts: _Parts = item.__dict__[self._slot]
        return parts


@dataclass
class _Parts:
    pieces: list[str]
    length: int
