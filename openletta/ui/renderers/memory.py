"""Letta's memory tools: which block changes, and how (a diff, or the text added). A block's
text, in the call's arguments and in its result, is pictured as the memory panel pictures it
(:func:`~openletta.display.pictured_text`: ``␛`` for an escape, never applied nor dropped), so
the same stored value draws the same way in the card and in the panel."""

from __future__ import annotations

from textual.content import Content

from openletta.display import counted, pictured_text
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    ADDED,
    MUTED,
    ToolRenderer,
    arg,
    error_block,
    finished_output,
    one_line,
    output_block,
    raw_arg,
    without_error_prefix,
)
from openletta.ui.renderers.edit_file import count_changes, diff_blocks, diff_lines

_LABEL_ARGS = ("label", "block_label", "path")
_OLD_ARGS = ("old_str", "old_content", "old_string", "old_text")
_NEW_ARGS = ("new_str", "new_content", "new_string", "new_text")
_ADDED_ARGS = ("content", "new_string", "new_str", "insert_text", "file_text")
_REWRITE_ARGS = ("new_memory",)
#: Results that only say the tool ran (shown as nothing).
_QUIET_RESULTS = frozenset({"", "None", "none", "null", "OK"})


@register
class MemoryRenderer(ToolRenderer):
    """``memory_insert``, ``memory_replace``, ``memory_rethink``, ``memory``,
    ``core_memory_append`` and ``core_memory_replace``."""

    names = ("memory_insert", "memory_replace", "memory_rethink", "memory",
             "core_memory_append", "core_memory_replace", "memory_finish_edits")

    def summary(self, item: ToolCallItem) -> str:
        return "".join(self.summary_parts(item))

    def summary_parts(self, item: ToolCallItem) -> tuple[str, str]:
        label = one_line(arg(item, *_LABEL_ARGS) or "memory")
        old, new = block_text(item, *_OLD_ARGS), block_text(item, *_NEW_ARGS)
        if old is not None and new is not None:
            added, removed = count_changes(diff_lines(old, new))
            return label, f"  +{added} −{removed}"
        if (text := block_text(item, *_REWRITE_ARGS)) is not None:
            return label, f"  rewritten ({_lines(text)})"
        if (text := block_text(item, *_ADDED_ARGS)) is not None:
            return label, f"  +{_lines(text)}"
        return label, ""

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        blocks = _change(item, width)
        output = finished_output(item)
        if output is not None and item.status is ToolStatus.ERROR:
            blocks.append(error_block(without_error_prefix(output)))
        elif output is not None and output.strip() not in _QUIET_RESULTS:
            blocks.extend(output_block(output, MUTED, pictured=True))
        return blocks


def block_text(item: ToolCallItem, *names: str) -> str | None:
    """The first of the arguments ``names`` present: a block's text, pictured as the memory
    panel pictures it."""
    value = raw_arg(item, *names)
    return None if value is None else pictured_text(value)


def _change(item: ToolCallItem, width: int) -> list[Content]:
    """What the call does to the block: a diff, the whole new text, or the text added."""
    old, new = block_text(item, *_OLD_ARGS), block_text(item, *_NEW_ARGS)
    if old is not None and new is not None:
        return diff_blocks(old, new, width)
    if (text := block_text(item, *_REWRITE_ARGS)) is not None:
        return [Content.styled("the block's new value:", MUTED), Content(text)]
    if (text := block_text(item, *_ADDED_ARGS)) is not None:
        return [Content.styled(f"+ {line}", ADDED) for line in text.split("\n")]
    command = arg(item, "command")
    return [Content.styled(f"{command}", MUTED)] if command else []


def _lines(text: str) -> str:
    return counted(text.count("\n") + 1, "line")
