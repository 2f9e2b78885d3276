"""The parts of Letta messages (:mod:`openletta.api.messages`): a tool call, a tool's
result, an answer to an approval request, a compaction's figures. Each tolerates what a
:class:`~openletta.api.wire.WireModel` tolerates, and reads the shapes of older servers and
of the prototype guide as one.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import field_validator, model_validator

from openletta.api.wire import WireModel, content_text


def _arguments_text(arguments: Any) -> str | None:
    """Tool-call arguments as the JSON text the server sends (the prototype sent a dict)."""
    if arguments is None or isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)


class ToolCall(WireModel):
    """One tool call, complete (step mode, history) or a delta (token mode)."""

    tool_call_id: str | None = None
    name: str | None = None
    arguments: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if data.get("name") is None and data.get("tool_name") is not None:
            data["name"] = data["tool_name"]
        if data.get("tool_call_id") is None and data.get("id") is not None:
            data["tool_call_id"] = data["id"]
        data["arguments"] = _arguments_text(data.get("arguments"))
        return data


class ToolReturn(WireModel):
    """The result of one tool call."""

    tool_call_id: str | None = None
    status: str | None = None
    tool_return: str | None = None
    stdout: list[str] | None = None
    stderr: list[str] | None = None

    @field_validator("tool_return", mode="before")
    @classmethod
    def _flatten_parts(cls, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        return content_text(value) if isinstance(value, list) else json.dumps(value)

    @field_validator("stdout", "stderr", mode="before")
    @classmethod
    def _as_lines(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [value]
        return value


class ApprovalDecision(WireModel):
    """One entry of ``approval_response_message.approvals``: an approval or a tool return."""

    type: str | None = None
    tool_call_id: str | None = None
    approve: bool | None = None
    reason: str | None = None
    tool_return: str | None = None
    status: str | None = None

    @field_validator("tool_return", mode="before")
    @classmethod
    def _flatten_parts(cls, value: Any) -> Any:
        return ToolReturn._flatten_parts(value)


class CompactionData(WireModel):
    """What a compaction event says about the context window."""

    context_token_estimate: int | None = None
    context_window: int | None = None
