"""File writes: the path, whether it creates or replaces the file (a local call's, known from
its preview), the size, and a highlighted preview."""

from __future__ import annotations

import re

from textual.content import Content

from openletta.display import counted
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    OK,
    UNMADE_STATUSES,
    ToolRenderer,
    arg,
    code_block,
    finished_output,
    one_line,
    raw_arg,
    unmade_change,
)
from openletta.ui.renderers.edit_file import patch_blocks
from openletta.ui.renderers.languages import language_for
from openletta.ui.renderers.read_file import PATH_ARGS

#: Lines of the written content shown.
PREVIEW_LINES = 20
_CONTENT_ARGS = ("content", "contents", "file_text", "text", "data")
#: How a preview of a write that makes the file begins (it is against no file).
NEW_FILE = "--- /dev/null"
_OUTCOME = re.compile(r"\b(created|overwr(?:ote|itten)|wrote)\b", re.IGNORECASE)


def size_of(content: str) -> str:
    """``"26 bytes, 1 line"``: the size of ``content`` when written as UTF-8."""
    size = len(content.encode("utf-8", "surrogatepass"))
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return f"{counted(size, 'byte')}, {counted(lines, 'line')}"


def outcome(result: str) -> str | None:
    """``created`` or ``overwritten`` when the tool's result says which."""
    match = _OUTCOME.search(result)
    if match is None or match[1].lower() == "wrote":
        return None
    return "created" if match[1].lower() == "created" else "overwritten"


@register
class WriteFileRenderer(ToolRenderer):
    """``write_file`` and its aliases."""

    names = ("write_file", "create_file", "write")
    subject_is_path = True

    def summary(self, item: ToolCallItem) -> str:
        return "".join(self.summary_parts(item))

    def summary_parts(self, item: ToolCallItem) -> tuple[str, str]:
        content = raw_arg(item, *_CONTENT_ARGS)
        path = one_line(arg(item, *PATH_ARGS) or "")
        if content is None:
            return path, ""
        return path, f" ({_fate(item)}{size_of(content)})"

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        content = raw_arg(item, *_CONTENT_ARGS) or ""
        path = arg(item, *PATH_ARGS)
        if item.status in UNMADE_STATUSES:  # the content, not a change to the file on disk
            return unmade_change(item, "Not written", "What it would have written",
                                 _content_blocks(content, path))
        blocks: list[Content] = []
        if (output := finished_output(item)) is not None:
            what = outcome(output) or "written"
            blocks.append(Content.assemble(("✓ ", OK), (what, MUTED)))
        if (change := written_change(item)) is not None and not change.startswith(NEW_FILE):
            blocks.extend(patch_blocks(change, width))  # what it changes on disk
            return blocks
        return blocks + _content_blocks(content, path)


def written_change(item: ToolCallItem) -> str | None:
    """What a local write changes on disk, as a unified diff: once it succeeded, the change
    it made (sent with its result as its output, so read back from history the same; a file
    it created has only the ``--- /dev/null`` header); before, its preview against the file
    on disk. ``None`` when neither is known."""
    sent = "".join(item.stdout)
    if item.status is ToolStatus.SUCCESS and sent.startswith("--- "):
        return sent
    return item.preview


def _fate(item: ToolCallItem) -> str:
    """``creates it: `` or ``replaces it: ``, when the change the call makes
    (:func:`written_change`) tells; else nothing."""
    if (change := written_change(item)) is None:
        return ""
    return "creates it: " if change.startswith(NEW_FILE) else "replaces it: "


def _content_blocks(content: str, path: str | None) -> list[Content]:
    """The first :data:`PREVIEW_LINES` lines of ``content`` (as the tool gets it), numbered
    and highlighted, every character shown."""
    return code_block(content, language_for(path), line_numbers=True, limit=PREVIEW_LINES,
                      literal=True)
