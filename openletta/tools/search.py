"""``Glob`` and ``LS``: finding files by name and listing directories, without changing
anything; and what every search tool shares (the directories left out, the ``path``
argument, how paths are shown). ``Grep`` is in :mod:`openletta.tools.grep`.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from openletta.tools.background import in_thread
from openletta.tools.base import (
    DEFAULT_BUDGET,
    Access,
    LocalTool,
    OnOutput,
    ToolInputError,
    ToolOutcome,
    Workspace,
    arg,
    object_schema,
)
from openletta.tools.budget import AS_MANY_AS_FIT, ReturnBudget, page_within

#: Directories not searched: version control, dependencies, caches.
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv",
                          "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"})
GLOB_CAP = 100
LS_CAP = 1000
PATH_PROPERTY = {"type": "string",
                 "description": "The directory to search, absolute or relative to the working "
                                "directory (default: the working directory)."}


def searched_path(args: Mapping[str, Any], workspace: Workspace, *, file_ok: bool = False) -> Path:
    """The ``path`` argument as an existing directory (or file, with ``file_ok``)."""
    value = arg(args, "path", str, None)
    path = workspace.resolve(value) if value else workspace.root
    if not path.exists():
        raise ToolInputError(f"{path} does not exist.")
    if not file_ok and not path.is_dir():
        raise ToolInputError(f"{path} is a file, not a directory: use Read to see it.")
    return path


#: How the listings show a name that would not read as itself.
QUOTING_SAID = ("A name holding a control or invisible character, a leading or trailing "
                "space, a leading quote or ' -> ' is shown quoted, with escapes, as a Python "
                "string literal ('a\\nb').")
_LINK = " -> "


def unambiguous(name: str) -> str:
    """``name`` as is when it reads as itself on a line of a listing, else quoted with
    escapes (``'nl\\nname.txt'``), so that no name can pass for another, or for two."""
    if (name.isprintable() and name == name.strip() and _LINK not in name
            and not name.startswith(("'", '"'))):
        return name
    return repr(name)


def shown_path(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when under it, else absolute."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


class Glob(LocalTool):
    """Finds files by name pattern, the most recently changed first."""

    name: ClassVar[str] = "Glob"
    description: ClassVar[str] = (
        "Find files whose path matches a glob pattern such as `**/*.py` or `src/**/test_*.ts` "
        "(`**` spans directories). Lists matching files, most recently modified first, up to "
        f"{GLOB_CAP}. Version control, dependency and cache directories (.git, node_modules, "
        f".venv …) are left out unless the pattern names them. A symbolic link shows where "
        f"it points (`name -> target`). {QUOTING_SAID}")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=["pattern"],
        properties={
            "pattern": {"type": "string", "description": "The glob pattern to match."},
            "path": PATH_PROPERTY,
        },
    )
    access: ClassVar[Access] = Access.READ
    path_argument: ClassVar[str | None] = "path"
    path_optional: ClassVar[bool] = True

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """List the matching files (as many as fit ``budget``)."""
        pattern = arg(args, "pattern", str)
        base = searched_path(args, workspace)
        found = await in_thread(_glob, base, pattern)
        if not found:
            return ToolOutcome("No files found")
        relative = workspace.inside(base)
        lines = [unambiguous(shown_path(path, base) if relative else str(path))
                 + link_note(path) for path in found[:GLOB_CAP]]

        def note(shown: int, fitted: bool) -> str | None:
            if shown == len(found) and not fitted:
                return None
            why = f", {AS_MANY_AS_FIT}" if fitted else ""
            return (f"[Showing the {shown:,} most recently modified of {len(found):,} files"
                    f"{why}. Narrow the pattern or the path to see others.]")

        return ToolOutcome(page_within(lines, budget, note))


def _glob(base: Path, pattern: str) -> list[Path]:
    """Files under ``base`` matching ``pattern``, newest first."""
    try:
        found = [path for path in base.glob(pattern) if path.is_file()
                 and not _skipped(path.relative_to(base), pattern)]
    except (ValueError, NotImplementedError) as error:
        raise ToolInputError(f"Cannot use the pattern {pattern!r} ({error}); give a pattern "
                             "relative to path, such as **/*.py.") from error
    stamps = {path: _mtime(path) for path in found}
    return sorted(found, key=lambda path: (-stamps[path], str(path)))


def _skipped(relative: Path, pattern: str) -> bool:
    return any(part in SKIPPED_DIRS and part not in pattern for part in relative.parts[:-1])


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


class LS(LocalTool):
    """Lists a directory."""

    name: ClassVar[str] = "LS"
    description: ClassVar[str] = (
        "List the files and subdirectories of a directory (subdirectories first, marked with "
        f"a trailing /), up to {LS_CAP:,} entries; a symbolic link shows where it points "
        f"(`name/ -> target`). {QUOTING_SAID} ignore takes glob patterns of names to leave "
        "out, such as `*.pyc`.")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=[],
        properties={
            "path": {"type": "string",
                     "description": "The directory, absolute or relative to the working "
                                    "directory (default: the working directory)."},
            "ignore": {"type": "array", "items": {"type": "string"},
                       "description": "Glob patterns of names to leave out."},
        },
    )
    access: ClassVar[Access] = Access.READ
    path_argument: ClassVar[str | None] = "path"
    path_optional: ClassVar[bool] = True

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """List the directory (as much of it as fits ``budget``)."""
        directory = searched_path(args, workspace)
        ignore = arg(args, "ignore", list, [])
        if not all(isinstance(pattern, str) for pattern in ignore):
            raise ToolInputError("Argument 'ignore' must be a list of strings.")
        names = await in_thread(_listing, directory, ignore)
        if not names:
            return ToolOutcome(f"{directory}/ is empty.")
        lines = [f"{unambiguous(str(directory))}/", *(f"  {name}" for name in names[:LS_CAP])]

        def note(shown: int, fitted: bool) -> str | None:
            entries = max(shown - 1, 0)  # the directory's own line comes first
            if entries == len(names) and not fitted:
                return None
            why = f", {AS_MANY_AS_FIT}" if fitted else ""
            return (f"[Showing the first {entries:,} of {len(names):,} entries{why}. Use Glob, "
                    "or list a subdirectory, to see others.]")

        return ToolOutcome(page_within(lines, budget, note))


def _listing(directory: Path, ignore: list[str]) -> list[str]:
    """The entries of ``directory``, subdirectories first (with a ``/``), each part sorted;
    names quoted where needed (:func:`unambiguous`), links with where they point."""
    try:
        with os.scandir(directory) as scan:
            entries = [entry for entry in scan
                       if not any(fnmatch.fnmatch(entry.name, pattern) for pattern in ignore)]
    except OSError as error:
        raise ToolInputError(f"{directory} cannot be listed: {error.strerror}.") from error
    kinds = {entry.name: _is_dir(entry) for entry in entries}
    links = {entry.name: link_note(entry) for entry in entries}
    ordered = sorted(kinds, key=lambda name: (not kinds[name], name.lower(), name))
    return [f"{unambiguous(name)}{'/' if kinds[name] else ''}{links[name]}" for name in ordered]


def link_note(path: Path | os.DirEntry[str]) -> str:
    """`` -> target`` for a symbolic link (what a listing adds to its name), else nothing."""
    try:
        return f"{_LINK}{unambiguous(os.readlink(path))}" if path.is_symlink() else ""
    except OSError:
        return f"{_LINK}?"


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
