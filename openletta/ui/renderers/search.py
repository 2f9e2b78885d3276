"""Listings and searches: what was looked for and where, then the paths or lines found."""

from __future__ import annotations

from textual.content import Content

from openletta.transcript import ToolCallItem
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    MUTED,
    ResultRenderer,
    arg,
    one_line,
    output_block,
)

_PATTERN_ARGS = ("pattern", "query", "regex", "glob")
_PLACE_ARGS = ("path", "directory", "dir", "cwd")


@register
class SearchRenderer(ResultRenderer):
    """``LS``, ``Glob``, ``Grep`` and their kin."""

    names = ("ls", "list_dir", "list_directory", "glob", "find_files", "grep", "search",
             "search_files")

    def summary(self, item: ToolCallItem) -> str:
        pattern = arg(item, *_PATTERN_ARGS)
        place = arg(item, *_PLACE_ARGS)
        if pattern is None:
            return one_line(place or ".")
        return one_line(f"{pattern}  in {place}" if place else pattern)

    def result(self, item: ToolCallItem, output: str, width: int) -> list[Content]:
        return output_block(output.rstrip("\n"), MUTED, literal=True) if output.strip() else [
            Content.styled("(nothing found)", MUTED)]
