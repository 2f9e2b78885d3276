"""How the result of a call the user edited before it ran says so: the agent reads what ran
instead, and the transcript, reading the result back (from history), shows the call as it ran.

The edited text is one line (only such text can be edited), so the note is one line too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOTE = "The user edited the {argument} before approving it; this ran instead: {value}\n\n"
_NOTED = re.compile(r"The user edited the (\w+) before approving it; this ran instead: "
                    r"([^\n]*)\n\n")


@dataclass(frozen=True)
class Edit:
    """What a noted result says: ``argument`` ran as ``value``; ``result`` is the rest."""

    argument: str
    value: str
    result: str


def with_edit_note(argument: str, value: str, result: str) -> str:
    """``result`` of a call whose ``argument`` the user edited to ``value``, saying so."""
    return _NOTE.format(argument=argument, value=value) + result


def read_edit_note(result: str) -> Edit | None:
    """The edit a result made by :func:`with_edit_note` says, if it is one."""
    noted = _NOTED.match(result)
    if noted is None:
        return None
    return Edit(noted[1], noted[2], result[noted.end():])
