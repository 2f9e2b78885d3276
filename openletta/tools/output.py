"""A command's output: captured as it comes (its two ends, when huge), shown to the user as
captured (:func:`shown_ends`: on its card and on exit), and told to the agent within its
:class:`~openletta.tools.budget.ReturnBudget`.

What the agent is told starts with what must survive (the exit code, or why the command
stopped), then, when the output did not fit whole, a note of what it gets: its first and
last lines (the end is where errors and summaries are), the middle cut.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from openletta.display import capped_ends, capped_last_lines, capped_lines
from openletta.told import NOTE as _NOTE
from openletta.told import NOTE_LINE as _NOTE_LINE
from openletta.told import seen_by_agent
from openletta.tools.budget import ReturnBudget, prefix_within, sent_length, suffix_within

#: Characters kept from each end of a huge output.
KEEP = 15_000
#: The share of the room given to the output's first lines (the rest to its last).
HEAD_SHARE = 1 / 3
_GAP = "[… {cut:,} {unit} cut …]"
#: The line :data:`_GAP` makes, in what the user is shown and what the agent is told.
_GAP_LINE = re.compile(r"^\[… ([\d,]+) (lines|characters) cut …\]$", re.MULTILINE)


class Capture:
    """A command's output as text: all of it, or its two ends when it is huge."""

    def __init__(self) -> None:
        self._head = ""
        self._tail = ""
        self.total = 0
        self._newlines = 0
        self._ends_line = True

    def add(self, text: str) -> None:
        """Take the next piece of output."""
        if not text:
            return
        self.total += len(text)
        self._newlines += text.count("\n")
        self._ends_line = text.endswith("\n")
        room = KEEP - len(self._head)
        if room > 0:
            self._head += text[:room]
            text = text[room:]
        if text:
            self._tail = (self._tail + text)[-KEEP:]

    @property
    def lines(self) -> int:
        """How many lines the whole output has (a last one without a newline counts)."""
        return self._newlines + (0 if self._ends_line else 1)

    @property
    def cut(self) -> int:
        """How many characters of the middle were not kept."""
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        """The output as kept (what the user is shown), with a line saying how much was cut
        from its middle: whole lines (the kept ends taken back to them), where it has any."""
        if self.cut <= 0:
            return self._head + self._tail
        if "\n" in self._head and "\n" in self._tail:
            head = self._head[:self._head.rindex("\n") + 1]
            tail = self._tail[self._tail.index("\n") + 1:]
            cut = self._newlines - head.count("\n") - tail.count("\n")
            return f"{head}{_GAP.format(cut=cut, unit='lines')}\n{tail}"
        return f"{self._head}\n{_GAP.format(cut=self.cut, unit='characters')}\n{self._tail}"

    def told(self, lead: str, budget: ReturnBudget) -> str:
        """What the agent is told: ``lead`` (the exit code, or why the command stopped),
        then the output, or when it does not fit in ``budget`` its two ends and a note."""
        whole = self.text()
        if not whole:
            return lead
        told = f"{lead}\n{whole}"
        if budget.fits(told):
            return told
        widest = _NOTE.format(head=self.total, tail=self.total, total=self.total,
                              unit="characters")
        gap = _GAP.format(cut=self.total, unit="characters")
        room = budget.after(lead, widest, gap, "\n\n\n\n").chars
        first, last = (self._head, self._tail) if self.cut > 0 else (whole, whole)
        head = _first_lines(first, min(sent_length(first), max(int(room * HEAD_SHARE),
                                                               room - sent_length(last))))
        tail, starts_line = _last_lines(last, room - sent_length(head), whole=self.cut <= 0)
        if head.endswith("\n") and starts_line:
            kept, total, unit = (head.count("\n"), _line_count(tail)), self.lines, "lines"
        else:
            kept, total, unit = (len(head), len(tail)), self.total, "characters"
        note = _NOTE.format(head=kept[0], tail=kept[1], total=total, unit=unit)
        gap = _GAP.format(cut=total - sum(kept), unit=unit)
        return "\n".join([lead, note, head.removesuffix("\n"), gap, tail])


def seen_note(told: str) -> str | None:
    """What the user is told when the agent got only part of an output
    (:func:`~openletta.told.seen_by_agent`); ``None`` when it got all of it."""
    seen = seen_by_agent(told)
    return f"⚠ the agent saw only the {seen} (its context window holds no more)" if seen else None


class Gap(NamedTuple):
    """An output cut in its middle: what was kept before and after the cut, and its size."""

    before: str
    after: str
    cut: int
    #: What :attr:`cut` counts: ``lines`` or ``characters``.
    unit: str


def gap_in(output: str) -> Gap | None:
    """Where :class:`Capture` (or :meth:`Capture.told`) cut ``output``, if it did; the note
    before a told output is left out (:func:`seen_by_agent` reads it)."""
    match = _GAP_LINE.search(output)
    if match is None:
        return None
    before = _NOTE_LINE.sub("", output[:match.start()], count=1)
    return Gap(before, output[match.end() + 1:], int(match[1].replace(",", "")), match[2])


class Ends(NamedTuple):
    """What is shown of an output: its first and last lines, and how many lines (and
    characters of a line too long to keep whole) are left out between them."""

    first: list[str]
    left_out: int
    cut_characters: int
    #: Empty when nothing is left out (all of it is in :attr:`first`).
    last: list[str]

    def gap(self) -> str | None:
        """``… 1,234 lines not shown …``, between the ends; ``None`` if nothing is left out."""
        if not (self.left_out or self.cut_characters):
            return None
        cut = f" (and {self.cut_characters:,} characters cut)" if self.cut_characters else ""
        return f"… {self.left_out:,} lines not shown{cut} …"


def shown_ends(output: str, limit: int) -> Ends:
    """The first and last lines of ``output`` that are shown, ``limit`` in all (the end of an
    output is where its errors and summaries are), or the ends kept where it was captured
    (:func:`gap_in`); between them the true count of the lines left out."""
    if (gap := gap_in(output)) is None:
        first, left_out, last = capped_ends(output, limit)
        return Ends(first, left_out, 0, last)
    first, before = capped_lines(gap.before, limit // 2)
    last, after = capped_last_lines(gap.after, limit - limit // 2)
    cut_lines, cut_characters = (gap.cut, 0) if gap.unit == "lines" else (0, gap.cut)
    return Ends(first, before + cut_lines + after, cut_characters, last)


def _first_lines(text: str, room: int) -> str:
    """The start of ``text`` (which goes on after it) within ``room``, back to its last
    whole line if it has one."""
    piece = prefix_within(text, room)
    if not piece.endswith("\n") and "\n" in piece:
        piece = piece[:piece.rindex("\n") + 1]
    return piece


def _last_lines(text: str, room: int, *, whole: bool) -> tuple[str, bool]:
    """The end of ``text`` within ``room``, from its first whole line if it has one, and
    whether it starts a line. ``whole``: ``text`` is all of the output (it starts a line);
    else it is what was kept of its end."""
    piece = suffix_within(text, room)
    start = len(text) - len(piece)
    if (start == 0 and whole) or (start > 0 and text[start - 1] == "\n"):
        return piece, True
    if "\n" in piece:
        return piece[piece.index("\n") + 1:], True
    return piece, False


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
