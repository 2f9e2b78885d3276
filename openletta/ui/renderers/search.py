"""Listings and searches: what was looked for and where, then the paths or lines found."""

from __future__ import annotations

from textual.content import Content

from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    ToolRenderer,
    arg,
    error_block,
    finished_output,
    one_line,
    output_block,
    without_error_prefix,
)

_PATTERN_ARGS = ("pattern", "query", "regex", "glob")
_PLACE_ARGS = ("path", "directory", "dir", "cwd")


@register
class SearchRenderer(ToolRenderer):
    """``LS``, ``Glob``, ``Grep`` and their kin."""

    names = ("ls", "list_dir", "list_directory", "glob", "find_files", "grep", "search",
             "search_files")

    def summary(self, item: ToolCallItem) -> str:
        pattern = arg(item, *_PATTERN_ARGS)
        place = arg(item, *_PLACE_ARGS)
        if pattern is None:
            return one_line(place or ".")
        return one_line(f"{pattern}  in {place}" if place else pattern)

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        output = finished_output(item)
        if output is None:
            return []
        if item.status is ToolStatus.ERROR:
            return [error_block(without_error_prefix(output))]
        return output_block(output.rstrip("\n"), MUTED) if output.strip() else [
            Content.styled("(nothing found)", MUTED)]
