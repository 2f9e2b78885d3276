"""What Python compiles at each launch from the same text, compiled once instead.

Two kinds, each the same at every launch and compiled by Python from text as modules load:

* a dataclass's ``__init__``, ``__repr__``, ``__eq__`` (and more, when frozen or ordered),
  written as source text and compiled with ``exec`` as the class is made: about 600
  compilations for the app's, Textual's and pydantic's dataclasses, some 40 ms of a 0.5 s
  launch;
* regular expressions: about 240 patterns, parsed and translated to the matcher's code by
  Python's ``re`` module (itself written in Python), some 25 ms.

:func:`compiled_code_kept` lets the ``dataclasses`` module exec code objects kept from the last
launch, found by their exact source text, and ``re`` build a pattern from the matcher's code
kept for that exact pattern and flags; a text not seen before is compiled as Python would
(a dataclass's with the file name ``<string>`` and no inherited ``__future__`` flags). When
the app ends, this launch's compilations are kept for the next, in a file of openletta's cache
directory (``marshal``, for this Python's bytecode only). Whatever is wrong with that file
(missing, damaged, another Python's) makes the launch compile as before.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType
from typing import Any

from openletta.settings import cache_dir

#: The file's first bytes: the bytecode's magic number of the Python that wrote it.
MAGIC = importlib.util.MAGIC_NUMBER
#: More kept compilations than this, and only those of the latest launch are kept.
MOST_KEPT = 8000
#: ``re``'s compiler module (``sre_compile`` before Python 3.11, not covered).
_RE_COMPILER: Any = getattr(re, "_compiler", None)


class CompiledCode:
    """Compilations by what they were compiled from: those kept, and those of this process."""

    def __init__(self, kept: dict[Any, Any]) -> None:
        self.kept = kept
        self.used: dict[Any, Any] = {}
        self.compiled = 0

    def get(self, key: Any, compile_now: Callable[[], Any]) -> Any:
        """The compilation of ``key``: kept, or ``compile_now()``'s."""
        compiled = self.kept.get(key)
        if compiled is None:
            compiled = compile_now()
            self.compiled += 1
        self.used[key] = compiled
        return compiled

    def exec(self, source: Any, globals: dict[str, Any] | None = None,
             locals: dict[str, Any] | None = None) -> None:
        """``exec`` as the dataclasses module calls it, for a source text compiled once."""
        if type(source) is str:
            text = source
            source = self.get(text, lambda: compile(text, "<string>", "exec",
                                                     dont_inherit=True))
        builtins.exec(source, globals, locals)

    def to_keep(self) -> dict[Any, Any]:
        """What the next launch should find: what was kept and used now, or this launch's
        only once there are too many."""
        merged = {**self.kept, **self.used}
        return merged if len(merged) <= MOST_KEPT else self.used


class _MatcherCode:
    """Stands for the ``_sre`` module in ``re``'s compiler: notes the arguments the compiler
    gives ``_sre.compile`` (the pattern, then its flags, code and groups), per thread."""

    def __init__(self, sre: Any) -> None:
        self.sre = sre
        self.noted = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sre, name)

    def compile(self, pattern: Any, *arguments: Any) -> Any:
        self.noted.arguments = arguments
        return self.sre.compile(pattern, *arguments)


def _regex_compiler(compiled: CompiledCode, matcher: _MatcherCode,
                    compile_pattern: Callable[..., Any]) -> Callable[..., Any]:
    """``re``'s ``_compiler.compile`` that builds a pattern from kept matcher code."""

    def compile_regex(pattern: Any, flags: int = 0) -> Any:
        if type(pattern) not in (str, bytes) or flags & re.DEBUG:
            return compile_pattern(pattern, flags)
        made: list[Any] = []

        def compile_now() -> Any:
            made.append(compile_pattern(pattern, flags))
            # (the matcher's code is ints, some of them named: kept as plain ones)
            arguments = tuple([int(value) for value in argument] if type(argument) is list
                              else argument for argument in matcher.noted.arguments)
            with contextlib.suppress(ValueError):  # kept only if marshal can keep it
                marshal.dumps(arguments)
                return arguments
            return ()

        arguments = compiled.get(("re", pattern, int(flags)), compile_now)
        if made:
            return made[0]
        if not arguments:
            return compile_pattern(pattern, flags)
        return matcher.sre.compile(pattern, *arguments)

    return compile_regex


def cache_path() -> Path:
    """Where the compilations are kept: in openletta's cache directory, one file per Python."""
    return cache_dir() / f"compiled-code.{sys.implementation.cache_tag}.marshal"


def read_kept(path: Path) -> dict[Any, Any]:
    """The compilations kept in ``path``; none if it is missing, damaged or another Python's."""
    try:
        data = path.read_bytes()
        if not data.startswith(MAGIC):
            return {}
        kept = marshal.loads(memoryview(data)[len(MAGIC):])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {key: value for key, value in kept.items() if _usable(key, value)}


def _usable(key: Any, value: Any) -> bool:
    """Whether a kept entry is one this module made: a source text and its code, or a
    pattern's key and the matcher's arguments."""
    if isinstance(key, str):
        return isinstance(value, CodeType)
    return (isinstance(key, tuple) and len(key) == 3 and key[0] == "re"
            and isinstance(value, tuple))


def write_kept(path: Path, compiled: dict[Any, Any]) -> None:
    """Keep ``compiled`` in ``path`` (atomically; an unwritable place is left alone)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(MAGIC + marshal.dumps(compiled))
        os.replace(temporary, path)
    with contextlib.suppress(OSError):
        temporary.unlink(missing_ok=True)


@contextlib.contextmanager
def compiled_code_kept(path: Path | None = None) -> Iterator[CompiledCode]:
    """Within: dataclasses and regular expressions made use what the last launch compiled;
    after: this launch's compilations are kept for the next one (when it compiled anything
    new or dropped something unused)."""
    path = path or cache_path()
    compiled = CompiledCode(read_kept(path))
    dataclasses_module: Any = dataclasses
    dataclasses_module.exec = compiled.exec  # found before the builtin by the module's calls
    regex = _RE_COMPILER is not None and hasattr(_RE_COMPILER, "_sre")
    if regex:
        compile_pattern, sre = _RE_COMPILER.compile, _RE_COMPILER._sre
        matcher = _MatcherCode(sre)
        _RE_COMPILER._sre = matcher
        _RE_COMPILER.compile = _regex_compiler(compiled, matcher, compile_pattern)
    try:
        yield compiled
    finally:
        del dataclasses_module.exec
        if regex:
            _RE_COMPILER.compile, _RE_COMPILER._sre = compile_pattern, sre
        keep = compiled.to_keep()
        if compiled.compiled or keep.keys() != compiled.kept.keys():
            write_kept(path, keep)
