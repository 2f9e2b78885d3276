"""``send_message`` (older agent types): the reply as plain text, not as JSON arguments."""

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

#: Results that only say the tool ran (shown as nothing).
QUIET_RESULTS = frozenset({"", "None", "none", "null", "OK", "Sent message successfully."})


@register
class SendMessageRenderer(ToolRenderer):
    """``send_message``: the assistant's reply, wrapped and literal."""

    names = ("send_message",)

    def summary(self, item: ToolCallItem) -> str:
        return one_line(arg(item, "message") or "")

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        message = arg(item, "message")
        blocks = [Content(message)] if message else []
        output = finished_output(item)
        if output is not None and item.status is ToolStatus.ERROR:
            blocks.append(error_block(without_error_prefix(output)))
        elif output is not None and output.strip() not in QUIET_RESULTS:
            blocks.extend(output_block(output.rstrip("\n"), MUTED))
        return blocks
