"""The app's styles, parsed once instead of at every launch (Textual's private stylesheet).

Textual parses the app's ``.tcss`` files and each widget class's ``DEFAULT_CSS`` when an app
starts: some 25 ms of a 0.5 s launch, the same rules every time. :func:`parsed_css_kept` lets
``Stylesheet._parse_rules`` (private: the one place a source's text becomes rule sets, which
Textual itself caches per stylesheet) take the rule sets of an identical source, with the same
theme variables and the same Textual version, from a file kept in the user's cache directory
by the last launch (``pickle``, like the bytecode Python keeps next to the code, the user's
own); a source or theme not seen before is parsed as usual, and what this launch parsed is
kept when the app ends. A file that is missing, damaged or another version's means parsing.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

#: More kept sources than this, and only those of the latest launch are kept.
MOST_KEPT = 400
#: What a source is found by: the theme's variables, then ``_parse_rules``' own cache key
#: (its text, where it was read from, whether it is a widget's defaults, the tie breaker and
#: its scope).
Key = tuple[Any, ...]
ParseRules = Callable[..., list[RuleSet]]


class ParsedCss:
    """Rule sets by source: those kept (pickled, each read when first asked for), and those
    found or parsed in this process."""

    def __init__(self, kept: dict[Key, bytes]) -> None:
        self.kept = kept
        self.used: dict[Key, bytes] = {}
        self.parsed = 0
        #: Each theme's variables as one object, which the file then holds once.
        self._variables = {key[0]: key[0] for key in kept}

    def parse_rules(self, parse: ParseRules) -> ParseRules:
        """``Stylesheet._parse_rules`` that takes kept rule sets before parsing."""

        def parse_rules(stylesheet: Stylesheet, css: str, read_from: Any,
                        is_default_rules: bool = False, tie_breaker: int = 0,
                        scope: str = "") -> list[RuleSet]:
            source = (css, read_from, is_default_rules, tie_breaker, scope)
            if source in stylesheet._parse_cache:  # already this stylesheet's
                return parse(stylesheet, *source)
            variables = tuple(sorted(stylesheet._variables.items()))
            key = (self._variables.setdefault(variables, variables), *source)
            pickled = self.used.get(key) or self.kept.get(key)
            rules = _unpickled(pickled) if pickled is not None else None
            if rules is None:
                rules = parse(stylesheet, *source)
                self.parsed += 1
                pickled = _pickled(rules)
            else:
                stylesheet._parse_cache[source] = rules
            if pickled is not None:
                self.used[key] = pickled
            return rules

        return parse_rules

    def to_keep(self) -> dict[Key, bytes]:
        """What the next launch should find: what was kept and used now, or this launch's
        only once there are too many."""
        merged = {**self.kept, **self.used}
        return merged if len(merged) <= MOST_KEPT else self.used


def _pickled(rules: list[RuleSet]) -> bytes | None:
    """``rules`` as kept (none if they cannot be)."""
    try:
        return pickle.dumps(rules, pickle.HIGHEST_PROTOCOL)
    except Exception:  # (whatever a value of a rule that cannot be pickled raises)
        return None


def _unpickled(pickled: bytes) -> list[RuleSet] | None:
    """The rule sets kept as ``pickled`` (none if they are damaged)."""
    try:
        rules = pickle.loads(pickled)
    except Exception:  # whatever damaged bytes raise
        return None
    return rules if isinstance(rules, list) else None


def read_kept(path: Path) -> dict[Key, bytes]:
    """The rule sets kept in ``path`` by this Textual version; none if the file is missing,
    damaged or another version's."""
    try:
        with path.open("rb") as file:
            version, kept = pickle.load(file)
    except Exception:  # whatever a damaged file raises
        return {}
    return kept if version == textual.__version__ and isinstance(kept, dict) else {}


def write_kept(path: Path, kept: dict[Key, bytes]) -> None:
    """Keep ``kept`` in ``path`` (atomically; an unwritable place is left alone)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(pickle.dumps((textual.__version__, kept),
                                           pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, path)
    with contextlib.suppress(OSError):
        temporary.unlink(missing_ok=True)


@contextlib.contextmanager
def parsed_css_kept(path: Path) -> Iterator[ParsedCss]:
    """Within: stylesheets take the rule sets kept in ``path`` by the last launch; after:
    this launch's are kept there for the next (when it parsed anything new)."""
    parsed = ParsedCss(read_kept(path))
    stylesheet: Any = Stylesheet
    parse = Stylesheet._parse_rules
    stylesheet._parse_rules = parsed.parse_rules(parse)
    try:
        yield parsed
    finally:
        stylesheet._parse_rules = parse
        keep = parsed.to_keep()
        if parsed.parsed or keep.keys() != parsed.kept.keys():
            write_kept(path, keep)
