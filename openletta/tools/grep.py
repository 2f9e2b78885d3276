"""``Grep``: searching the contents of files for a regular expression, without changing anything.

It runs ripgrep when it is installed and otherwise searches in Python, with the same
output: ``path:line:text`` lines (``-`` for context lines, ``--`` between groups), file
paths, or ``path:count`` lines; paths relative to the working directory when inside it.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import fnmatch
import os
import re
import shutil
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
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
from openletta.tools.bash import kill_group
from openletta.tools.budget import AS_MANY_AS_FIT, ReturnBudget, page_within
from openletta.tools.files import BINARY_PROBE, MAX_READ_BYTES, split_lines
from openletta.tools.safe_files import read_regular, refuse_irregular
from openletta.tools.search import (
    QUOTING_SAID,
    SKIPPED_DIRS,
    searched_path,
    shown_path,
    unambiguous,
)

#: The ripgrep file types the Python search knows (others are ignored there).
TYPE_SUFFIXES = {
    "py": (".py", ".pyi"), "js": (".js", ".mjs", ".cjs", ".jsx"),
    "ts": (".ts", ".tsx", ".mts", ".cts"), "rust": (".rs",), "go": (".go",),
    "java": (".java",), "md": (".md", ".markdown"), "json": (".json",), "toml": (".toml",),
    "yaml": (".yaml", ".yml"), "sh": (".sh", ".bash", ".zsh"),
}
DEFAULT_HEAD_LIMIT = 100
MAX_COLUMNS = 2000
OUTPUT_MODES = ("content", "files_with_matches", "count")


@dataclass(frozen=True)
class GrepQuery:
    """A Grep call's arguments, checked."""

    pattern: str
    base: Path
    mode: str
    glob: str | None
    file_type: str | None
    before: int
    after: int
    numbered: bool
    ignore_case: bool
    multiline: bool
    offset: int
    limit: int

    @classmethod
    def parse(cls, args: Mapping[str, Any], workspace: Workspace) -> GrepQuery:
        """Read and check the arguments."""
        mode = arg(args, "output_mode", str, "files_with_matches")
        if mode not in OUTPUT_MODES:
            raise ToolInputError(f"output_mode must be one of {', '.join(OUTPUT_MODES)}.")
        context = _count(args, "-C", 0)
        return cls(
            pattern=arg(args, "pattern", str), base=searched_path(args, workspace, file_ok=True),
            mode=mode, glob=arg(args, "glob", str, None) or None,
            file_type=arg(args, "type", str, None) or None,
            before=_count(args, "-B", context), after=_count(args, "-A", context),
            numbered=arg(args, "-n", bool, True), ignore_case=arg(args, "-i", bool, False),
            multiline=arg(args, "multiline", bool, False), offset=_count(args, "offset", 0),
            limit=_count(args, "head_limit", DEFAULT_HEAD_LIMIT))

    def regex(self) -> re.Pattern[str]:
        """The pattern compiled for the Python search."""
        flags = re.IGNORECASE if self.ignore_case else 0
        if self.multiline:
            flags |= re.DOTALL | re.MULTILINE
        try:
            return re.compile(self.pattern, flags)
        except re.error as error:
            raise ToolInputError(f"Invalid regular expression {self.pattern!r}: {error}.") \
                from error


def _count(args: Mapping[str, Any], name: str, default: int) -> int:
    value = arg(args, name, int, default)
    if value < 0:
        raise ToolInputError(f"Argument {name!r} must not be negative.")
    return value


@dataclass
class Page:
    """The output lines from ``offset`` on, at most ``limit`` of them (0: all), and how many
    there were in all."""

    offset: int
    limit: int
    kept: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, line: str) -> None:
        """Count the next output line, keeping it when it is on the page."""
        if self.offset <= self.total and (not self.limit
                                          or self.total < self.offset + self.limit):
            self.kept.append(line)
        self.total += 1

    def report(self, mode: str, budget: ReturnBudget) -> str:
        """The page as the agent reads it: as much of it as fits ``budget``, after a note
        saying which part of the results it is."""
        unit = "lines" if mode == "content" else "files"
        if not self.total:
            return "No matches found"
        if not self.kept:
            return f"Nothing past offset {self.offset}: {self.total:,} {unit} in all."

        def note(shown: int, fitted: bool) -> str | None:
            end = self.offset + shown
            if end == self.total and not fitted:
                return None
            why = f", {AS_MANY_AS_FIT}" if fitted else ""
            return (f"[Showing {unit} {self.offset + 1:,}–{end:,} of {self.total:,}{why}. "
                    f"Use offset={end} to see more.]")

        return page_within(self.kept, budget, note)


class Grep(LocalTool):
    """Searches file contents for a regular expression (ripgrep when installed)."""

    name: ClassVar[str] = "Grep"
    description: ClassVar[str] = (
        "Search the contents of files for a regular expression. output_mode picks what comes "
        "back: files_with_matches (the default) lists the files that match, content shows the "
        "matching lines (with line numbers, and context lines with -A, -B or -C), count gives "
        "the number of matching lines per file. Narrow the search with path, glob (such as "
        "`*.py` or `*.{ts,tsx}`) or type (such as py, js, rust). Hidden files and directories "
        f"are not searched. Output is cut after head_limit entries (default "
        f"{DEFAULT_HEAD_LIMIT}, 0 for all); offset skips entries, for paging. In the file "
        f"lists and counts: {QUOTING_SAID}")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=["pattern"],
        properties={
            "pattern": {"type": "string",
                        "description": "The regular expression to search for."},
            "path": {"type": "string",
                     "description": "The file or directory to search (default: the working "
                                    "directory)."},
            "glob": {"type": "string", "description": "Search only files matching this glob."},
            "output_mode": {"type": "string", "enum": list(OUTPUT_MODES),
                            "description": "What to return (default files_with_matches)."},
            "-B": {"type": "integer",
                   "description": "Lines of context before each match (content mode)."},
            "-A": {"type": "integer",
                   "description": "Lines of context after each match (content mode)."},
            "-C": {"type": "integer",
                   "description": "Lines of context around each match (content mode)."},
            "-n": {"type": "boolean",
                   "description": "Show line numbers (content mode; default true)."},
            "-i": {"type": "boolean", "description": "Ignore case."},
            "type": {"type": "string",
                     "description": "Search only files of this ripgrep type (py, js, rust …)."},
            "head_limit": {"type": "integer",
                           "description": "At most this many entries "
                                          f"(default {DEFAULT_HEAD_LIMIT}; 0: no limit)."},
            "offset": {"type": "integer",
                       "description": "Skip this many entries first (default 0)."},
            "multiline": {"type": "boolean",
                          "description": "Let the pattern span lines, with . matching "
                                         "newlines too (default false)."},
        },
    )
    access: ClassVar[Access] = Access.READ
    path_argument: ClassVar[str | None] = "path"
    path_optional: ClassVar[bool] = True

    def __init__(self, use_ripgrep: bool | None = None) -> None:
        """``use_ripgrep`` False always searches in Python; otherwise ripgrep is used when
        it is installed."""
        self._use_ripgrep = use_ripgrep


    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """Search, and report the page of results asked for (as much as fits ``budget``)."""
        query = GrepQuery.parse(args, workspace)
        if not query.base.is_dir():
            refuse_irregular(query.base, query.base.stat().st_mode)
        page = Page(query.offset, query.limit)
        ripgrep = shutil.which("rg") if self._use_ripgrep is not False else None
        if ripgrep:
            await _ripgrep(ripgrep, query, workspace, page)
        else:
            regex = query.regex()
            stop = threading.Event()
            try:
                await in_thread(python_grep, query, regex, workspace.root, page, stop)
            except asyncio.CancelledError:
                stop.set()
                raise
        return ToolOutcome(page.report(query.mode, budget))


def _ripgrep_argv(ripgrep: str, query: GrepQuery, target: str) -> list[str]:
    argv = [ripgrep, "--color=never", "--no-heading", "--with-filename", "--sort=path",
            f"--max-columns={MAX_COLUMNS}", "--max-columns-preview"]
    if query.mode == "files_with_matches":
        argv += ["--files-with-matches", "--null"]  # (a path ends with a NUL: no newline)
    elif query.mode == "count":
        argv += ["--count", "--null"]
    else:
        argv += ["--line-number" if query.numbered else "--no-line-number",
                 f"--before-context={query.before}", f"--after-context={query.after}"]
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.multiline:
        argv += ["--multiline", "--multiline-dotall"]
    if query.file_type:
        argv += ["--type", query.file_type]
    for name in sorted(SKIPPED_DIRS):
        argv += ["--glob", f"!{name}"]
    if query.glob:
        argv += ["--glob", query.glob]
    return [*argv, "--regexp", query.pattern, "--", target]


async def _ripgrep(ripgrep: str, query: GrepQuery, workspace: Workspace, page: Page) -> None:
    """Search with ripgrep, in a process group of its own, into ``page``."""
    target = shown_path(query.base, workspace.root)
    environment = workspace.child_environment()
    environment.pop("RIPGREP_CONFIG_PATH", None)
    process = await asyncio.create_subprocess_exec(
        *_ripgrep_argv(ripgrep, query, target), cwd=workspace.root, env=environment,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True, limit=1 << 20)
    assert process.stdout is not None and process.stderr is not None
    stdout, stderr = process.stdout, process.stderr

    def relative(raw: bytes) -> str:
        text = raw.decode("utf-8", errors="replace")
        return text.removeprefix("./") if target == "." else text

    async def collect() -> None:
        if query.mode == "content":
            async for raw in stdout:
                page.add(relative(raw.rstrip(b"\n")))
            return
        with contextlib.suppress(asyncio.IncompleteReadError):  # (at the end of the output)
            while raw := (await stdout.readuntil(b"\0"))[:-1]:
                if query.mode == "count":  # ``path NUL count``
                    count = (await stdout.readline()).decode("ascii", errors="replace").strip()
                    page.add(f"{unambiguous(relative(raw))}:{count}")
                else:
                    page.add(unambiguous(relative(raw)))

    try:
        _, errors = await asyncio.gather(collect(), stderr.read())
        code = await process.wait()
    except BaseException:
        await kill_group(process)
        raise
    if code == 2 and not page.total:
        message = errors.decode("utf-8", errors="replace").strip()
        raise ToolInputError(f"ripgrep failed: {message or 'exit code 2'}")


def python_grep(query: GrepQuery, regex: re.Pattern[str], root: Path, page: Page,
                stop: threading.Event) -> None:
    """Search in Python (ripgrep's output, without it), into ``page``; ends early once
    ``stop`` is set."""
    for path in _walk(query.base, stop):
        if not _selected(path, query):
            continue
        text = _text(path)
        if text is None:
            continue
        lines = split_lines(text)
        hits = _matching_lines(regex, text, lines, query.multiline)
        if not hits:
            continue
        shown = shown_path(path, root)
        if query.mode == "files_with_matches":
            page.add(unambiguous(shown))
        elif query.mode == "count":
            page.add(f"{unambiguous(shown)}:{len(hits)}")
        else:
            _add_content(page, shown, lines, hits, query)


def _walk(base: Path, stop: threading.Event) -> Iterator[Path]:
    """Files under ``base``, by name at each level; hidden and skipped ones left out."""
    if not base.is_dir():
        yield base
        return
    if stop.is_set():
        return
    try:
        with os.scandir(base) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(Path(entry.path), stop)
        elif entry.is_file(follow_symlinks=False):
            yield Path(entry.path)


def _selected(path: Path, query: GrepQuery) -> bool:
    if query.file_type in TYPE_SUFFIXES and path.suffix not in TYPE_SUFFIXES[query.file_type]:
        return False
    if not query.glob:
        return True
    relative = shown_path(path, query.base)
    return any(fnmatch.fnmatch(path.name, glob) or fnmatch.fnmatch(relative, glob)
               for glob in _expand_braces(query.glob))


def _expand_braces(glob: str) -> list[str]:
    """``*.{ts,tsx}`` as ``*.ts`` and ``*.tsx`` (fnmatch has no braces)."""
    match = re.search(r"\{([^{}]*)\}", glob)
    if match is None:
        return [glob]
    return [expanded for choice in match[1].split(",")
            for expanded in _expand_braces(glob[:match.start()] + choice + glob[match.end():])]


def _text(path: Path) -> str | None:
    """A text file's content; ``None`` for binary, huge, unreadable or irregular files."""
    try:
        data = read_regular(path, path.resolve(), MAX_READ_BYTES)
    except (OSError, ToolInputError):
        return None
    if b"\0" in data[:BINARY_PROBE]:
        return None
    return data.decode("utf-8", errors="replace")


def _matching_lines(regex: re.Pattern[str], text: str, lines: list[str],
                    multiline: bool) -> list[int]:
    """The indexes of the lines with a match (in multiline mode: that a match spans)."""
    if not multiline:
        return [index for index, line in enumerate(lines) if regex.search(line)]
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    hits: set[int] = set()
    for match in regex.finditer(text):
        first = bisect.bisect_right(starts, match.start()) - 1
        last = bisect.bisect_right(starts, max(match.end() - 1, match.start())) - 1
        hits.update(range(first, min(last, len(lines) - 1) + 1))
    return sorted(hits)


def _add_content(page: Page, shown: str, lines: list[str], hits: list[int],
                 query: GrepQuery) -> None:
    """The matching lines of one file, with their context, as ripgrep prints them."""
    wanted = set(hits)
    groups: list[list[int]] = []
    for hit in hits:
        first, last = max(hit - query.before, 0), min(hit + query.after, len(lines) - 1)
        if groups and first <= groups[-1][1] + 1:
            groups[-1][1] = max(groups[-1][1], last)
        else:
            groups.append([first, last])
    for first, last in groups:
        if (query.before or query.after) and page.total:
            page.add("--")
        for index in range(first, last + 1):
            mark = ":" if index in wanted else "-"
            number = f"{index + 1}{mark}" if query.numbered else ""
            page.add(f"{shown}{mark}{number}{_cut(lines[index])}")


def _cut(line: str) -> str:
    if len(line) <= MAX_COLUMNS:
        return line
    return f"{line[:MAX_COLUMNS]} [... omitted end of long line]"
