"""``@path`` mentions in the prompt: the paths of the working directory they complete from,
and which of them match what is typed. No Textual here.

A mention is only text: the message says ``@src/app.py`` and the agent reads the file with
its tools, if it wants to (nothing is attached behind the user's back). A path with a space
is quoted, ``@"my notes/todo.md"``, so the agent can tell where it ends. A path with a
control or invisible character, a line break or bytes that are not UTF-8 is not offered: no
text names it as it is (the prompt and the chat show such characters as marks or not at all,
and the agent would have to write them back exactly), and such names are mostly accidents,
or traps for the terminal.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from openletta.display import has_hidden_characters
from openletta.tools.base import Workspace
from openletta.tools.search import SKIPPED_DIRS

#: The most paths listed (a huge tree is cut, the shallowest paths kept).
MAX_PATHS = 20_000
#: Seconds ``git ls-files`` may take before the directory is walked instead.
GIT_TIMEOUT = 3.0
#: How many matches the menu shows.
SHOWN = 8
#: ``@query`` or ``@"query`` (a quoted path, still open) right before the cursor, at the
#: start or after a space.
_MENTION = re.compile(r'(?:^|(?<=\s))@(?:"([^"]*)|([^\s"]*))\Z')


def project_paths(workspace: Workspace, limit: int = MAX_PATHS) -> list[str]:
    """The files and directories of the working directory, relative and with ``/``
    separators (a directory ends with ``/``), shallowest first. In a git repository, what git
    does not ignore; elsewhere all but hidden directories, version control, dependencies and
    caches. Never a path no mention can name as it is (see the module's docstring)."""
    files = _git_files(workspace)
    paths = _walked(workspace.root, limit) if files is None else _with_directories(files)
    return [path for path in paths if _mentionable(path)][:limit]


def _mentionable(path: str) -> bool:
    """Whether a mention can name ``path`` as it is (see the module's docstring)."""
    return "\n" not in path and not has_hidden_characters(path)


def _git_files(workspace: Workspace) -> list[str] | None:
    """The files git tracks or would (ignored ones left out); ``None`` outside a repository,
    or in a directory git ignores all of."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=workspace.root, env=workspace.child_environment(), capture_output=True,
            timeout=GIT_TIMEOUT, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    names = listing.stdout.decode(errors="surrogateescape")  # bytes not UTF-8: surrogates
    return [path for path in names.split("\0") if path] or None


def _with_directories(files: list[str]) -> list[str]:
    directories = {f"{parent.as_posix()}/" for file in files
                   for parent in PurePosixPath(file).parents if parent != PurePosixPath()}
    return sorted({*files, *directories}, key=lambda path: (path.rstrip("/").count("/"), path))


def _walked(root: Path, limit: int) -> list[str]:
    paths: list[str] = []
    level = [Path()]
    while level and len(paths) < limit:
        deeper: list[Path] = []
        for relative in level:
            try:
                entries = sorted(os.scandir(root / relative), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                path = (relative / entry.name).as_posix()
                if _is_directory(entry):
                    if entry.name not in SKIPPED_DIRS and not entry.name.startswith("."):
                        paths.append(f"{path}/")
                        deeper.append(relative / entry.name)
                else:
                    paths.append(path)
        level = deeper
    return paths[:limit]


@dataclass(frozen=True)
class Mention:
    """The ``@`` mention the cursor is at the end of."""

    #: Where its ``@`` is, in the text before the cursor.
    start: int
    #: The path typed so far (without the ``@`` and an opening quote).
    query: str


def mention_at(before_cursor: str) -> Mention | None:
    """The mention the cursor is at the end of, if it is at one."""
    match = _MENTION.search(before_cursor)
    if match is None:
        return None
    quoted, bare = match.groups()
    return Mention(match.start(), quoted if quoted is not None else bare)


def mention_text(path: str) -> str:
    """How ``path`` is written in a message: ``@path``, quoted when it holds a space. The
    mention of a directory stays open, for its own paths to complete it."""
    if not any(character.isspace() for character in path):
        return f"@{path}" if path.endswith("/") else f"@{path} "
    return f'@"{path}' if path.endswith("/") else f'@"{path}" '


def matching_paths(paths: Sequence[str], query: str, limit: int = SHOWN) -> list[str]:
    """The paths holding ``query`` (ignoring case), but the one it already is: those it
    starts first, then those whose name it starts, then the rest; shallower and shorter first
    in each."""
    wanted = query.lower()

    def rank(path: str) -> tuple[int, int, int, str]:
        lower = path.lower()
        name = lower.rstrip("/").rpartition("/")[2]
        start = 0 if lower.startswith(wanted) else 1 if name.startswith(wanted) else 2
        return start, path.rstrip("/").count("/"), len(path), path

    found = (path for path in paths if wanted in path.lower() and path.lower() != wanted)
    return sorted(found, key=rank)[:limit]


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
