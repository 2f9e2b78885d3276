"""The fallback renderer: pretty JSON arguments and result, for any tool (memory tools too)."""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content

from openletta.display import literal_text
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers.base import (
    MUTED,
    ToolRenderer,
    failure_blocks,
    finished_output,
    json_block,
    one_line,
    output_block,
    parse_json,
)

#: Characters of one argument value in the summary line.
_VALUE_WIDTH = 40


class GenericRenderer(ToolRenderer):
    """``name(key=value, …)`` summary; arguments and result as highlighted JSON or text."""

    def summary(self, item: ToolCallItem) -> str:
        arguments = item.arguments or {}
        return one_line(", ".join(f"{literal_text(key)}={_short(value)}"
                                  for key, value in arguments.items()))

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        blocks: list[Content] = []
        if item.arguments:
            blocks.append(Content.styled("arguments", MUTED))
            blocks.extend(json_block(item.arguments))
        output = finished_output(item)
        if output is None:
            return blocks
        blocks.append(Content.styled("result", MUTED))
        if item.status is ToolStatus.ERROR:
            blocks.extend(failure_blocks(item, output))
        elif (value := parse_json(output)) is not None:
            blocks.extend(json_block(value))
        else:
            blocks.extend(output_block(output or "(empty)"))
        return blocks


def _short(value: Any) -> str:
    text = " ".join(literal_text(
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)).split())
    if len(text) > _VALUE_WIDTH:
        text = text[: _VALUE_WIDTH - 1] + "…"
    return json.dumps(text, ensure_ascii=False) if isinstance(value, str) else text
