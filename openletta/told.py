"""The note that starts a tool output cut to fit the agent's context window, saying what of
it the agent gets (:meth:`~openletta.tools.output.Capture.told` writes it); read where the
output is shown (its card) or saved (``/export``)."""

from __future__ import annotations

import re

NOTE = ("[Output too long for your context window: you get its first {head:,} and last "
        "{tail:,} of {total:,} {unit}. To see more of it, run the command again with less "
        "output (grep, head, tail) or send the output to a file and read that in parts.]")
#: The note :data:`NOTE` makes, as one line.
NOTE_LINE = re.compile(r"^\[Output too long for your context window: [^\n]*\]\n?", re.MULTILINE)
_SEEN = re.compile(r"^\[Output too long for your context window: you get its (first [\d,]+ "
                   r"and last [\d,]+ of [\d,]+ (?:lines|characters))\.", re.MULTILINE)


def seen_by_agent(told: str) -> str | None:
    """What the agent got of an output cut for it ("first 120 and last 1,870 of 300,002
    lines"); ``None`` when it got all of it."""
    match = _SEEN.search(told)
    return match[1] if match else None


def told_before_note(told: str) -> str:
    """What the agent was told ahead of the note (the exit code, or why the command
    stopped); ``""`` when there is no note."""
    match = NOTE_LINE.search(told)
    return told[:match.start()].strip() if match else ""
