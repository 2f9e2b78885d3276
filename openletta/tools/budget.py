"""How much of a local call's result reaches the agent, and fitting a result to it.

Letta (0.16.8, ``letta_agent_v3.py``) cuts a client-side tool's return from its end, to
``max(5000, context window × 0.8)`` characters: the return itself before storing it, then
again, when a request to the model is built, the JSON it is wrapped in (``{"status": …,
"message": <the return>, "time": …}``, every newline, tab and quote escaped). What is over
is lost, with whatever was at the end. So a result is made to fit here, in its escaped
length and with room for the wrapping: each tool keeps what matters most, its notes first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Letta's smallest cap, in characters (also what is assumed when the window is unknown).
SERVER_MINIMUM = 5000
#: Room kept for the JSON Letta wraps a result in (87 characters for a ``Failed`` one).
WRAPPING = 200
#: What a result cut here ends with (the cut is at the end: notes come first).
CLIPPED = " [… cut to fit the context window]"
#: Said of a page of lines or entries cut to fit, in its note.
AS_MANY_AS_FIT = "as many as fit in your context window"

#: The note of a page of lines, given how many are shown and whether it was cut to fit
#: (``None``: no note, as for a page showing all there is; never for one cut to fit).
PageNote = Callable[[int, bool], "str | None"]

_ESCAPED = re.compile(r'[\x00-\x1f"\\]')


def sent_length(text: str) -> int:
    """The length of ``text`` in Letta's JSON, where ``"``, ``\\`` and controls are escaped
    (what its cut at request time measures)."""
    extra = sum(1 if character in '"\\\n\r\t\b\f' else 5
                for character in _ESCAPED.findall(text))
    return len(text) + extra


@dataclass(frozen=True)
class ReturnBudget:
    """How long (:func:`sent_length`) a result may be and still reach the agent whole."""

    chars: int

    @classmethod
    def for_window(cls, context_window: int | None) -> ReturnBudget:
        """The budget for an agent with this context window, in tokens (``None``: unknown,
        Letta's minimum), as Letta computes its cap, less room for its wrapping."""
        cap = int(context_window * 0.2 * 4) if context_window else 0
        return cls(max(SERVER_MINIMUM, cap) - WRAPPING)

    def fits(self, text: str) -> bool:
        return sent_length(text) <= self.chars

    def after(self, *prefixes: str) -> ReturnBudget:
        """What is left once ``prefixes`` are spent."""
        return ReturnBudget(max(0, self.chars - sum(map(sent_length, prefixes))))

    def clip(self, text: str) -> str:
        """``text``, or as much of its start as fits with :data:`CLIPPED` after it (the last
        resort: tools fit their results with more care)."""
        if self.fits(text):
            return text
        return prefix_within(text, self.chars - len(CLIPPED)) + CLIPPED


def prefix_within(text: str, room: int) -> str:
    """The longest start of ``text`` whose :func:`sent_length` is at most ``room``."""
    low, high = 0, min(len(text), max(room, 0))  # each character counts at least 1
    while low < high:
        middle = (low + high + 1) // 2
        if sent_length(text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def suffix_within(text: str, room: int) -> str:
    """The longest end of ``text`` whose :func:`sent_length` is at most ``room``."""
    size = len(prefix_within(text[::-1], room))
    return text[len(text) - size:]


def leading_lines(lines: Sequence[str], room: int) -> list[str]:
    """As many of ``lines`` from the first as fit in ``room`` once joined by newlines;
    when not even the first does, its start (with :data:`CLIPPED`)."""
    kept: list[str] = []
    used = -2  # no newline before the first line
    for line in lines:
        used += sent_length(line) + 2
        if used > room:
            break
        kept.append(line)
    if not kept and lines:
        kept.append(prefix_within(lines[0], room - len(CLIPPED)) + CLIPPED)
    return kept


def page_within(lines: Sequence[str], budget: ReturnBudget, note: PageNote) -> str:
    """``lines`` joined, as many from the first as fit ``budget`` after the note ``note``
    gives them, which comes first (where Letta's cut would never reach it)."""
    whole = "\n".join(lines)
    if note(len(lines), False) is None and budget.fits(whole):
        return whole
    shown = leading_lines(lines, budget.after(note(len(lines), True) or "", "\n\n").chars)
    said = note(len(shown), len(shown) < len(lines))
    body = "\n".join(shown)
    return f"{said}\n\n{body}" if said else body
