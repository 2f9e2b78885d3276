"""The language of a file by its name: as Pygments picks it, for every name a lexer claims."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from pygments.lexers import get_all_lexers, get_lexer_for_filename
from pygments.util import ClassNotFound

from openletta.ui.renderers.languages import PLAIN, language_for

#: A character class of a pattern (``[1-9]``, ``[bp]``): its first character stands for it.
_CLASS = re.compile(r"\[!?(.)[^\]]*\]")


def named_by(pattern: str) -> str:
    """A file name that ``pattern`` matches."""
    return _CLASS.sub(r"\1", pattern).replace("*", "x").replace("?", "a")


def pygments_language(name: str) -> str:
    try:
        lexer = get_lexer_for_filename(name)
    except ClassNotFound:
        return PLAIN
    return lexer.aliases[0] if lexer.aliases else PLAIN


def claimed_names() -> tuple[list[str], list[str]]:
    """A name for each pattern of a lexer: those several lexers claim, and the others."""
    claims = Counter(named_by(pattern) for _, _, patterns, _ in get_all_lexers(plugins=False)
                     for pattern in set(patterns))
    return ([name for name, count in claims.items() if count > 1],
            [name for name, count in claims.items() if count == 1])


SHARED, OWN = claimed_names()


def test_a_name_several_lexers_claim_gets_the_language_pygments_picks() -> None:
    assert len(SHARED) > 40
    assert {name: language_for(name) for name in SHARED} == {
        name: pygments_language(name) for name in SHARED}


def test_a_name_one_lexer_claims_gets_its_language() -> None:
    sample = OWN[::7]  # each loads its lexer's module in Pygments: all of them take seconds
    assert len(OWN) > 700
    assert {name: language_for(name) for name in sample} == {
        name: pygments_language(name) for name in sample}


@pytest.mark.parametrize("path", [
    "/home/me/project/src/app.py", "include/x.h", "lib/mod.pm", "db/q.sql", "a.tar.gz",
    "Makefile.am", ".bashrc", "docs/README", "notes.unknownext", "x.", ".py", "CMakeLists.txt",
])
def test_a_path_gets_the_language_pygments_picks_for_it(path: str) -> None:
    assert language_for(path) == pygments_language(path)


def test_no_path_is_plain_text() -> None:
    assert language_for(None) == language_for("") == PLAIN
