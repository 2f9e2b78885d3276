"""``Read``, ``Write`` and ``Edit``: the agent's view of files, and its changes to them.

Writing over a file needs a fresh read of it first (:meth:`Workspace.unchanged_since_read`),
and every write is atomic: a temporary file next to it, then a rename.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from openletta.display import counted
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
from openletta.tools.safe_files import read_regular, refuse_irregular, replace_file

DEFAULT_LIMIT = 2000
MAX_LINE = 2000
#: Files larger than this are not read whole.
MAX_READ_BYTES = 50 * 1024 * 1024
#: A NUL byte this early means a binary file.
BINARY_PROBE = 8192
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".ico", ".tif",
                            ".tiff"})


def _file_path(args: Mapping[str, Any], workspace: Workspace) -> Path:
    return workspace.resolve(arg(args, "file_path", str))


def check_readable(path: Path) -> None:
    """Raise :class:`ToolInputError` when ``path`` is not a file :func:`read_text` can read,
    as far as its kind tells (a directory, nothing, an image, a FIFO, a socket, a device),
    without opening it."""
    if path.is_dir():
        raise ToolInputError(f"{path} is a directory, not a file: use LS to list it.")
    if not path.exists():
        raise ToolInputError(f"{path} does not exist.")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise ToolInputError(f"{path} is an image; only text files can be read.")
    refuse_irregular(path, path.stat().st_mode)


def read_text(path: Path, errors: str = "replace", target: Path | None = None) -> str:
    """A text file's content (``errors`` as for :meth:`bytes.decode`); :class:`ToolInputError`
    for what is not one. ``target`` is where ``path`` leads (by default: resolved now)."""
    check_readable(path)
    try:
        data = read_regular(path, target or path.resolve(), MAX_READ_BYTES)
    except OSError as error:
        raise ToolInputError(f"{path} cannot be read: {error.strerror}.") from error
    if b"\0" in data[:BINARY_PROBE]:
        raise ToolInputError(f"{path} is a binary file; only text files can be read.")
    return data.decode("utf-8", errors=errors)


def split_lines(text: str) -> list[str]:
    """``text``'s lines, without their line endings (a last newline ends a line)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _numbered(path: Path, text: str, offset: int, limit: int, budget: ReturnBudget) -> str:
    """The page of ``text`` asked for, numbered as ``cat -n`` does, as much of it as fits
    ``budget``; when it does not reach the end, a note first says where to read on."""
    lines = split_lines(text)
    if offset > len(lines):
        raise ToolInputError(f"offset {offset} is past the end of {path}, which has "
                             f"{len(lines):,} lines.")
    page = [f"{number:>6}\t{_cut(line)}"
            for number, line in enumerate(lines[offset - 1:offset - 1 + limit], start=offset)]

    def note(shown: int, fitted: bool) -> str | None:
        last = offset + shown - 1
        if last == len(lines) and not fitted:
            return None
        why = f", {AS_MANY_AS_FIT}" if fitted else ""
        more = f" Use offset={last + 1} to read on." if last < len(lines) else ""
        return f"[Showing lines {offset:,}–{last:,} of {len(lines):,}{why}.{more}]"

    return page_within(page, budget, note)


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE:
        return line
    return f"{line[:MAX_LINE]} [… line cut, {len(line) - MAX_LINE:,} more characters]"


def write_atomically(path: Path, content: str, target: Path | None = None) -> int:
    """Put ``content`` in ``path`` at once, keeping an existing file's permissions; the
    number of bytes written. ``target`` is where ``path`` leads (by default: resolved now);
    a link put on the way there since is refused, not followed. Undecodable bytes kept by
    ``surrogateescape`` go back as they were."""
    try:
        data = content.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as error:
        raise ToolInputError(f"The new content of {path} is not valid Unicode: {error}.") \
            from error
    try:
        replace_file(target or path.resolve(), data)
    except OSError as error:
        raise ToolInputError(f"{path} cannot be written: {error.strerror}.") from error
    return len(data)


#: Where a diff of a new file comes from.
NO_FILE = "/dev/null"


def unified_diff(path: Path, workspace: Workspace, old: str | None, new: str) -> str:
    """The change from ``old`` (``None``: no file yet) to ``new`` as a unified diff (a new
    file has its ``--- /dev/null`` line even when it is empty)."""
    try:
        relative = path.relative_to(workspace.root)
        before, after = f"a/{relative}", f"b/{relative}"
    except ValueError:
        before = after = str(path)
    before = before if old is not None else NO_FILE
    return "".join(difflib.unified_diff((old or "").splitlines(keepends=True),
                                        new.splitlines(keepends=True), before, after)
                   ) or (f"--- {NO_FILE}\n+++ {after}\n" if old is None else "")


def _shown(text: str) -> str:
    """``text`` read with ``surrogateescape`` as it can be sent and shown (bytes that are not
    UTF-8 as "�")."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _disk_text(path: Path) -> str | None:
    """For a preview: the file's text, ``None`` when there is no readable one (a FIFO or a
    device is not opened)."""
    try:
        return read_regular(path, path.resolve(), MAX_READ_BYTES).decode("utf-8",
                                                                        errors="replace")
    except (OSError, ToolInputError):
        return None


class Read(LocalTool):
    """Shows a text file with numbered lines, a page at a time."""

    name: ClassVar[str] = "Read"
    description: ClassVar[str] = (
        "Show a text file's content with line numbers (as `cat -n` does). By default the "
        f"first {DEFAULT_LIMIT:,} lines (fewer when they would not fit in your context "
        "window: a note before them says where to read on); pass offset (the first line, "
        "counted from 1) and limit to page through longer files. Lines over "
        f"{MAX_LINE:,} characters are cut. Images, binary files and directories are refused "
        "(list directories with LS). A file must be read before Edit or Write may change it.")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=["file_path"],
        properties={
            "file_path": {"type": "string",
                          "description": "The file, absolute or relative to the working "
                                         "directory."},
            "offset": {"type": "integer", "description": "The line to start at (1 = first)."},
            "limit": {"type": "integer",
                      "description": f"How many lines to show (default {DEFAULT_LIMIT})."},
        },
    )
    access: ClassVar[Access] = Access.READ
    path_argument: ClassVar[str | None] = "file_path"

    def check(self, args: Mapping[str, Any], workspace: Workspace) -> None:
        """Refuse what is not a file to read in the directory: a directory, nothing, an image,
        a FIFO… (outside it, not even that is told before the user allows the call)."""
        path = _file_path(args, workspace)
        if workspace.inside(path):
            check_readable(path)

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """Read the file, or the page of it asked for (as much of it as fits ``budget``)."""
        path = _file_path(args, workspace)
        offset = max(arg(args, "offset", int, 1), 1)
        limit = arg(args, "limit", int, DEFAULT_LIMIT)
        if limit < 1:
            raise ToolInputError("Argument 'limit' must be at least 1.")
        text = await in_thread(read_text, path, "replace", workspace.target(path))
        result = (_numbered(path, text, offset, limit, budget) if text
                  else f"{path} is empty.")
        workspace.note_read(path)
        return ToolOutcome(result)


class Write(LocalTool):
    """Creates a file, or replaces one the agent has read."""

    name: ClassVar[str] = "Write"
    description: ClassVar[str] = (
        "Write a whole file: create it (with any missing parent directories) or replace its "
        "content. An existing file must have been read with Read first, and not changed since. "
        "To change part of a file, Edit is usually better.")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=["file_path", "content"],
        properties={
            "file_path": {"type": "string",
                          "description": "The file, absolute or relative to the working "
                                         "directory."},
            "content": {"type": "string", "description": "The file's complete new content."},
        },
    )
    access: ClassVar[Access] = Access.EDIT
    path_argument: ClassVar[str | None] = "file_path"

    def preview(self, args: Mapping[str, Any], workspace: Workspace) -> str | None:
        """The file on disk against the new content, as a unified diff."""
        try:
            path, content = _file_path(args, workspace), arg(args, "content", str)
        except ToolInputError:
            return None
        if path.is_dir():
            return None
        return unified_diff(path, workspace, _disk_text(path) if path.exists() else None,
                            content)

    def check(self, args: Mapping[str, Any], workspace: Workspace) -> None:
        """Refuse a directory, or a file not read or changed since."""
        self._target(args, workspace)

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """Write the file. Its output is the change made, as a unified diff (only its
        ``--- /dev/null`` header for a file it creates: the content is in the arguments), so
        the call read back from history shows it as its card did."""
        path, content = self._target(args, workspace)
        target = workspace.target(path)
        existed = path.exists()
        before = await in_thread(_disk_text, path) if existed else None
        size = await in_thread(write_atomically, path, content, target)
        workspace.note_read(path)
        count = len(split_lines(content)) if content else 0
        lines = counted(count, "line")
        if existed:
            change = [_shown(unified_diff(path, workspace, before, content))] \
                if before is not None else None
            return ToolOutcome(f"Wrote {size:,} bytes ({lines}) to {path}", stdout=change)
        return ToolOutcome(f"Created {path} ({size:,} bytes, {lines})",
                           stdout=[unified_diff(path, workspace, None, "")])

    @staticmethod
    def _target(args: Mapping[str, Any], workspace: Workspace) -> tuple[Path, str]:
        path = _file_path(args, workspace)
        content = arg(args, "content", str)
        if path.is_dir():
            raise ToolInputError(f"{path} is a directory.")
        if reason := workspace.unchanged_since_read(path):
            raise ToolInputError(reason)
        return path, content


def _edited(text: str, old: str, new: str, replace_all: bool) -> tuple[str, int]:
    """``text`` with the edit made, and how many places changed (a file with Windows line
    endings takes the strings' newlines as ``\\r\\n``)."""
    if old not in text and "\r\n" in text:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    count = text.count(old)
    if count == 0:
        raise ToolInputError("old_string was not found in the file. It must match exactly, "
                             "whitespace and indentation included: read the file again and "
                             "copy the text from there.")
    if count > 1 and not replace_all:
        raise ToolInputError(f"old_string occurs {count} times in the file. Give more of the "
                             "surrounding text so it matches one place only, or set "
                             "replace_all to change every one.")
    return text.replace(old, new), count


class Edit(LocalTool):
    """Replaces exact text in a file the agent has read."""

    name: ClassVar[str] = "Edit"
    description: ClassVar[str] = (
        "Change a file by replacing an exact piece of its text (old_string) with new text "
        "(new_string). The file must have been read with Read first, and not changed since. "
        "old_string must match the file exactly, whitespace included, and occur once, unless "
        "replace_all is set to replace every occurrence. Do not include Read's line-number "
        "prefixes in old_string.")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=["file_path", "old_string", "new_string"],
        properties={
            "file_path": {"type": "string",
                          "description": "The file, absolute or relative to the working "
                                         "directory."},
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {"type": "boolean",
                            "description": "Replace every occurrence (default false)."},
        },
    )
    access: ClassVar[Access] = Access.EDIT
    path_argument: ClassVar[str | None] = "file_path"
    failure_shows_preview: ClassVar[bool] = True

    def preview(self, args: Mapping[str, Any], workspace: Workspace) -> str | None:
        """The edit as a unified diff; ``None`` when it cannot be made."""
        try:
            path, old, new, replace_all = self._arguments(args, workspace)
            text = read_text(path)
            changed, _ = _edited(text, old, new, replace_all)
        except (ToolInputError, OSError):
            return None
        return unified_diff(path, workspace, text, changed)

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """Make the edit."""
        path, old, new, replace_all = self._arguments(args, workspace)
        self._may_edit(path, workspace)
        target = workspace.target(path)
        text = await in_thread(read_text, path, "surrogateescape", target)
        changed, count = _edited(text, old, new, replace_all)
        await in_thread(write_atomically, path, changed, target)
        workspace.note_read(path)
        return ToolOutcome(f"Replaced {counted(count, 'occurrence')} in {path}",
                           stdout=[_shown(unified_diff(path, workspace, text, changed))])

    def check(self, args: Mapping[str, Any], workspace: Workspace) -> None:
        """Refuse a file not read or changed since, or text that is not there once."""
        path, old, new, replace_all = self._arguments(args, workspace)
        self._may_edit(path, workspace)
        _edited(read_text(path, "surrogateescape"), old, new, replace_all)

    @staticmethod
    def _arguments(args: Mapping[str, Any],
                   workspace: Workspace) -> tuple[Path, str, str, bool]:
        path = _file_path(args, workspace)
        old, new = arg(args, "old_string", str), arg(args, "new_string", str)
        replace_all = arg(args, "replace_all", bool, False)
        if old == new:
            raise ToolInputError("old_string and new_string are the same: nothing to change.")
        if not old:
            raise ToolInputError("old_string is empty: use Write to create or replace a "
                                 "whole file.")
        return path, old, new, replace_all

    @staticmethod
    def _may_edit(path: Path, workspace: Workspace) -> None:
        if not path.exists():
            raise ToolInputError(f"{path} does not exist. Use Write to create a file.")
        if reason := workspace.unchanged_since_read(path):
            raise ToolInputError(reason)
