"""The Pygments language of a file, from its name, as Pygments would pick it, at a fraction
of the cost.

Pygments finds the lexer for a file name by matching the name against the patterns of every
lexer it has, compiling each pattern (some 850) on its first lookup: a quarter of a second,
the first time a file card shows. Nearly every pattern is ``*.<extension>``: those are looked
up here in a table made from Pygments' list of lexers (no lexer loaded, nothing compiled),
the few others matched as Pygments matches them. When several lexers claim a name, they are
rated by Pygments' rule: priority, half a point for a pattern without ``*``, then the name of
the class (the last of equals wins).
"""

from __future__ import annotations

import fnmatch
import functools
import os
from collections import defaultdict
from typing import NamedTuple

from pygments.lexers import find_lexer_class, get_all_lexers

#: The language of a file no lexer claims.
PLAIN = "text"


class _Claim(NamedTuple):
    """A lexer's pattern; ``order``: its place in Pygments' list (ties go to the later)."""

    order: int
    lexer: str
    pattern: str


class _Claims:
    """Every built-in lexer's file name patterns, indexed by the extension they end with."""

    def __init__(self) -> None:
        self.by_extension: dict[str, list[_Claim]] = defaultdict(list)
        self.other: list[_Claim] = []
        self.alias: dict[str, str] = {}
        order = 0
        for lexer, aliases, patterns, _ in get_all_lexers(plugins=False):
            self.alias[lexer] = aliases[0] if aliases else PLAIN
            for pattern in patterns:
                claim = _Claim(order, lexer, pattern)
                order += 1
                if pattern.startswith("*.") and not any(c in pattern[1:] for c in "*?["):
                    self.by_extension[pattern[1:]].append(claim)
                else:
                    self.other.append(claim)

    def of(self, name: str) -> list[_Claim]:
        """The claims on the file name ``name``, in Pygments' order."""
        found = [claim for start, char in enumerate(name) if char == "."
                 for claim in self.by_extension.get(name[start:], ())]
        found += (claim for claim in self.other if fnmatch.fnmatchcase(name, claim.pattern))
        return sorted(found)


@functools.cache
def _claims() -> _Claims:
    return _Claims()


@functools.lru_cache(maxsize=128)
def language_for(path: str | None) -> str:
    """The Pygments language (a lexer's first alias) for the file at ``path``, as
    ``pygments.lexers.get_lexer_for_filename`` finds it; :data:`PLAIN` when none claims it."""
    if not path:
        return PLAIN
    claims = _claims()
    found = claims.of(os.path.basename(path))
    if len({claim.lexer for claim in found}) > 1:
        found.sort(key=_rating)  # stable: of equals, the later in Pygments' list last
    return claims.alias[found[-1].lexer] if found else PLAIN


def _rating(claim: _Claim) -> tuple[float, str]:
    bonus = 0.5 if "*" not in claim.pattern else 0
    lexer = find_lexer_class(claim.lexer)  # loads that lexer's module only
    if lexer is None:  # Pygments lists no such lexer: rated as of no priority
        return bonus, claim.lexer
    return lexer.priority + bonus, lexer.__name__
