"""Edits: a real diff of old → new text, unified, or side by side when the card is wide."""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from textual.content import Content

from openletta.display import DisplayText
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    ADDED,
    BAD,
    MUTED,
    OK,
    REMOVED,
    UNMADE_STATUSES,
    ToolRenderer,
    arg,
    finished_output,
    one_line,
    output_block,
    unmade_change,
)
from openletta.ui.renderers.read_file import PATH_ARGS

#: Card width from which old and new are shown side by side.
SIDE_BY_SIDE_WIDTH = 110
CONTEXT_LINES = 3
_OLD_ARGS = ("old_string", "old_str", "old", "old_text", "search")
_NEW_ARGS = ("new_string", "new_str", "new", "new_text", "replace", "file_text", "content")
_PATCH_ARGS = ("patch", "input", "diff")


@dataclass(frozen=True)
class DiffLine:
    """One row of a diff: ``tag`` is ``" "``, ``"-"`` or ``"+"``; numbers are 1-based."""

    tag: str
    text: str
    old_number: int | None = None
    new_number: int | None = None


def diff_lines(old: str, new: str, context: int = CONTEXT_LINES) -> list[list[DiffLine]]:
    """Hunks of a line diff of ``old`` → ``new`` (difflib), each a list of rows."""
    before, after = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [list(_hunk_rows(group, before, after))
            for group in matcher.get_grouped_opcodes(context)]


def _hunk_rows(group: list[tuple[str, int, int, int, int]], before: list[str],
               after: list[str]) -> Iterator[DiffLine]:
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            for offset in range(i2 - i1):
                yield DiffLine(" ", before[i1 + offset], i1 + offset + 1, j1 + offset + 1)
            continue
        for index in range(i1, i2):
            yield DiffLine("-", before[index], old_number=index + 1)
        for index in range(j1, j2):
            yield DiffLine("+", after[index], new_number=index + 1)


def count_changes(hunks: list[list[DiffLine]]) -> tuple[int, int]:
    """Lines added and removed."""
    rows = [row for hunk in hunks for row in hunk]
    return sum(row.tag == "+" for row in rows), sum(row.tag == "-" for row in rows)


@register
class EditFileRenderer(ToolRenderer):
    """``edit_file``, ``str_replace`` and friends; ``apply_patch`` shows its patch coloured."""

    names = ("edit_file", "str_replace", "str_replace_editor", "str_replace_based_edit_tool",
             "edit", "apply_patch")

    subject_is_path = True

    def summary(self, item: ToolCallItem) -> str:
        return "".join(self.summary_parts(item)).strip()

    def summary_parts(self, item: ToolCallItem) -> tuple[str, str]:
        path = one_line(arg(item, *PATH_ARGS) or "")
        if (change := change_on_disk(item)) is not None and item.status not in UNMADE_STATUSES:
            added, removed = patch_counts(change)
            return path, f"  +{added} −{removed}"
        old, new = _old_new(item)
        if new is None:
            return path, ""
        added, removed = count_changes(diff_lines(old, new))
        return path, f"  +{added} −{removed}"

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        if item.status in UNMADE_STATUSES:  # not a change to the file: the one asked for,
            # as its approval prompt showed it (numbered by the file's lines) when it did
            change = change_on_disk(item)
            asked = patch_blocks(change, width) if change else _asked_blocks(item, width)
            return unmade_change(item, "Not changed", "The edit it would have made", asked)
        blocks: list[Content] = []
        if (change := change_on_disk(item)) is not None:  # numbered by the file's lines
            blocks.extend(patch_blocks(change, width))
        else:
            blocks.extend(_asked_blocks(item, width))
        if output := finished_output(item):
            blocks.extend(output_block(output, MUTED))
        return blocks


def change_on_disk(item: ToolCallItem) -> str | None:
    """The change a local call makes to the file, as a unified diff: once it succeeded, the
    one it made; once it failed, the one it would have made (each sent with its result as
    its output, so read back from history the same); before, the preview against the file
    on disk. ``None`` when none is known."""
    sent = "".join(item.stdout)
    if item.status in (ToolStatus.SUCCESS, ToolStatus.ERROR) and patch_hunks(sent) is not None:
        return sent
    return item.preview


def _asked_blocks(item: ToolCallItem, width: int) -> list[Content]:
    """The edit as its arguments ask for it: old → new text (numbered only when it is the
    whole file, with no old text), or the patch."""
    old, new = _old_new(item)
    if new is not None:
        return diff_blocks(old, new, width, numbered=not old)
    patch = arg(item, *_PATCH_ARGS)
    return patch_blocks(patch, width) if patch is not None else []


def diff_blocks(old: str, new: str, width: int, *, numbered: bool = True) -> list[Content]:
    """``old`` → ``new`` as a diff: side by side when ``width`` allows, else unified; with
    line numbers when ``numbered`` (not for a snippet, whose lines are not the file's)."""
    hunks = diff_lines(old, new)
    if not numbered:
        hunks = [[dataclasses.replace(row, old_number=None, new_number=None) for row in hunk]
                 for hunk in hunks]
    return _diff_view(hunks, width)


def patch_blocks(patch: str, width: int) -> list[Content]:
    """A unified diff (a patch) shown as :func:`diff_blocks` shows a change, numbered by the
    file's lines; coloured line by line if it is not one."""
    hunks = patch_hunks(patch)
    return _diff_view(hunks, width) if hunks else [patch_block(patch)]


_HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def patch_hunks(patch: str) -> list[list[DiffLine]] | None:
    """The hunks of a unified diff, numbered by its ``@@`` lines (``None``: not a diff)."""
    hunks: list[list[DiffLine]] = []
    old = new = 0
    for line in patch.splitlines():
        if header := _HUNK_HEADER.match(line):
            hunks.append([])
            old, new = int(header[1]), int(header[2])
        elif not hunks or line.startswith("\\"):  # file names; "\ No newline at end of file"
            continue
        elif line[:1] in (" ", ""):
            hunks[-1].append(DiffLine(" ", line[1:], old, new))
            old, new = old + 1, new + 1
        elif line[0] == "-":
            hunks[-1].append(DiffLine("-", line[1:], old_number=old))
            old += 1
        elif line[0] == "+":
            hunks[-1].append(DiffLine("+", line[1:], new_number=new))
            new += 1
        else:
            return None
    return hunks or None


def _diff_view(hunks: list[list[DiffLine]], width: int) -> list[Content]:
    return _side_by_side(hunks, width) if width >= SIDE_BY_SIDE_WIDTH else _unified(hunks)


def patch_counts(patch: str) -> tuple[int, int]:
    """Lines a unified diff adds and removes."""
    lines = patch.splitlines()
    added = sum(line.startswith("+") and not line.startswith("+++") for line in lines)
    removed = sum(line.startswith("-") and not line.startswith("---") for line in lines)
    return added, removed


def _old_new(item: ToolCallItem) -> tuple[str, str | None]:
    return arg(item, *_OLD_ARGS) or "", arg(item, *_NEW_ARGS)


def _number(value: int | None, width: int) -> str:
    return f"{value:>{width}}" if value is not None else " " * width


def _gutter_width(hunks: list[list[DiffLine]]) -> int:
    """The width of the line numbers (0 without any)."""
    numbers = [n for hunk in hunks for row in hunk for n in (row.old_number, row.new_number) if n]
    return len(str(max(numbers))) if numbers else 0


def _row_style(tag: str) -> str:
    return {"-": REMOVED, "+": ADDED}.get(tag, "")


def _unified(hunks: list[list[DiffLine]]) -> list[Content]:
    width = _gutter_width(hunks)
    lines: list[Content] = []
    for index, hunk in enumerate(hunks):
        if index:
            lines.append(Content.styled("⋯", MUTED))
        for row in hunk:
            gutter = (f"{_number(row.old_number, width)} {_number(row.new_number, width)} "
                      if width else "")
            lines.append(Content.assemble(
                (gutter, MUTED), (f"{row.tag} {DisplayText(row.text)}", _row_style(row.tag))))
    return [Content("\n").join(lines)] if lines else [Content.styled("(no change)", MUTED)]


def _side_by_side(hunks: list[list[DiffLine]], width: int) -> list[Content]:
    number_width = _gutter_width(hunks)
    column = (width - 3) // 2 - (number_width + 1 if number_width else 0)
    lines: list[Content] = []
    for index, hunk in enumerate(hunks):
        if index:
            lines.append(Content.styled("⋯", MUTED))
        for left, right in _pair_rows(hunk):
            lines.append(Content.assemble(
                _half(left, left.old_number if left else None, number_width, column),
                (" │ ", MUTED),
                _half(right, right.new_number if right else None, number_width, column),
            ))
    return [Content("\n").join(lines)] if lines else [Content.styled("(no change)", MUTED)]


def _pair_rows(hunk: list[DiffLine]) -> Iterator[tuple[DiffLine | None, DiffLine | None]]:
    """Rows of a hunk as (old, new) pairs: removals beside the additions that replace them."""
    removed: list[DiffLine] = []
    added: list[DiffLine] = []

    def flush() -> Iterator[tuple[DiffLine | None, DiffLine | None]]:
        for offset in range(max(len(removed), len(added))):
            yield (removed[offset] if offset < len(removed) else None,
                   added[offset] if offset < len(added) else None)
        removed.clear()
        added.clear()

    for row in hunk:
        if row.tag == " ":
            yield from flush()
            yield row, row
        else:
            (removed if row.tag == "-" else added).append(row)
    yield from flush()


def _half(row: DiffLine | None, number: int | None, number_width: int, column: int) -> Content:
    if row is None:
        return Content(" " * ((number_width + 1 if number_width else 0) + column))
    text = Content.styled(DisplayText(row.text).expandtabs(), _row_style(row.tag))
    gutter = f"{_number(number, number_width)} " if number_width else ""
    return Content.assemble((gutter, MUTED), text.truncate(column, ellipsis=True, pad=True))


def patch_block(patch: str) -> Content:
    """A unified diff (or patch), its added, removed and hunk lines coloured."""
    styles = {"+": OK, "-": BAD, "@": MUTED}
    lines = [Content.styled(line, styles.get(line[:1], ""))
             for line in DisplayText(patch).splitlines()]
    return Content("\n").join(lines)
