"""The code Python's dataclasses write at each launch, compiled once instead of every time.

A dataclass's ``__init__``, ``__repr__``, ``__eq__`` (and more, when frozen or ordered) are
written as source text and compiled with ``exec`` as the class is made: about 600 compilations
for the app's, Textual's and pydantic's dataclasses, some 40 ms of a 0.5 s launch.
:func:`compiled_code_kept` lets the ``dataclasses`` module exec code objects kept from the last
launch, found by their exact source text, and compiles only a text not seen before (as Python
would: same file name ``<string>``, no inherited ``__future__`` flags); when the app ends, the
code objects of this launch are kept for the next, in a file of the user's cache directory
(``marshal``, for this Python's bytecode only). Whatever is wrong with that file (missing,
damaged, another Python's) makes the launch compile as before.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any

from openletta.settings import cache_dir

#: The file's first bytes: the bytecode's magic number of the Python that wrote it.
MAGIC = importlib.util.MAGIC_NUMBER
#: More kept texts than this, and only those of the latest launch are kept.
MOST_KEPT = 4000


class CompiledCode:
    """Code objects by their source text: those kept, and those compiled in this process."""

    def __init__(self, kept: dict[str, CodeType]) -> None:
        self.kept = kept
        self.used: dict[str, CodeType] = {}
        self.compiled = 0

    def code(self, source: str) -> CodeType:
        """The code ``source`` compiles to (kept, or compiled now)."""
        code = self.kept.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.compiled += 1
        self.used[source] = code
        return code

    def exec(self, source: Any, globals: dict[str, Any] | None = None,
             locals: dict[str, Any] | None = None) -> None:
        """``exec`` as the dataclasses module calls it, for a source text compiled once."""
        if type(source) is str:
            source = self.code(source)
        builtins.exec(source, globals, locals)

    def to_keep(self) -> dict[str, CodeType]:
        """What the next launch should find: what was kept and used now, or this launch's
        only once there are too many."""
        merged = {**self.kept, **self.used}
        return merged if len(merged) <= MOST_KEPT else self.used


def cache_path() -> Path:
    """Where the compiled code is kept: in openletta's cache directory, one file per Python."""
    return cache_dir() / f"dataclass-code.{sys.implementation.cache_tag}.marshal"


def read_kept(path: Path) -> dict[str, CodeType]:
    """The code objects kept in ``path``; none if it is missing, damaged or another Python's."""
    try:
        data = path.read_bytes()
        if not data.startswith(MAGIC):
            return {}
        kept = marshal.loads(memoryview(data)[len(MAGIC):])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {source: code for source, code in kept.items()
            if isinstance(source, str) and isinstance(code, CodeType)}


def write_kept(path: Path, codes: dict[str, CodeType]) -> None:
    """Keep ``codes`` in ``path`` (atomically; an unwritable place is left alone)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(MAGIC + marshal.dumps(codes))
        os.replace(temporary, path)
    with contextlib.suppress(OSError):
        temporary.unlink(missing_ok=True)


@contextlib.contextmanager
def compiled_code_kept(path: Path | None = None) -> Iterator[CompiledCode]:
    """Within: dataclasses made use code kept from the last launch; after: this launch's code
    is kept for the next one (when it compiled anything new or dropped something unused)."""
    path = path or cache_path()
    compiled = CompiledCode(read_kept(path))
    module: Any = dataclasses
    module.exec = compiled.exec  # found before the builtin by the module's own calls
    try:
        yield compiled
    finally:
        del module.exec
        keep = compiled.to_keep()
        if compiled.compiled or keep.keys() != compiled.kept.keys():
            write_kept(path, keep)
