"""Pydantic models of the Letta messages a client sees on the wire and in history.

Every model tolerates missing keys, ``null`` values and unknown fields. The shape variants
of different server versions (and of the prototype guide) are normalised in ``before``
validators so the rest of openletta reads one shape only:

* ``tool_calls`` is always a list of :class:`ToolCall` (token-mode deltas arrive as a
  single object; ``tool_call`` is the deprecated singular form; the prototype used
  ``tool_name`` and ``arguments`` as a dict).
* ``tool_returns`` is always a list of :class:`ToolReturn` (the deprecated top-level
  ``tool_return``/``status``/``stdout``/``stderr`` fields and the prototype's ``result``
  fill it when it is absent).
* ``content`` of user and assistant messages is always a string (text parts joined).
* ``date`` is read from what was sent (``sent_date``) when asked for, not while the
  chunks that repeat it stream in.

:func:`parse_message` turns any dict into one of these models, falling back to
:class:`UnknownMessage` for types we do not know. It never raises on a dict.
:func:`parse_known_json` is its fast path for the JSON text of a stream's chunks. Each
model is a :class:`~openletta.api.wire.WireModel` (pydantic copies mutable defaults; ruff
cannot tell that a model defined elsewhere is a pydantic model: ``noqa``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from openletta.api import json_text
from openletta.api.message_parts import ApprovalDecision, CompactionData, ToolCall, ToolReturn
from openletta.api.wire import JsonFastPath, WireModel, WireText, content_text, utc_datetime


class LettaMessage(WireModel):
    """Fields common to all message chunks and stored messages."""

    message_type: str
    id: str | None = None
    #: The date as sent (read by :attr:`date`).
    sent_date: Any = Field(default=None, alias="date")
    name: str | None = None
    otid: str | None = None
    step_id: str | None = None
    run_id: str | None = None
    #: Anything but an int (``true``, ``"5"``, ``5.0``) is not a sequence number: ``None``.
    seq_id: StrictInt | None = None
    is_err: bool | None = None

    @property
    def date(self) -> datetime | None:
        """When the message was made, by the rule of every date from the server
        (:func:`~openletta.api.wire.utc_datetime`). Read when asked: every chunk of a stream
        repeats the date, and few are asked for theirs."""
        return utc_datetime(self.sent_date)

    @property
    def group_key(self) -> str:
        """Key that groups the deltas of one logical part: ``otid``, falling back to ``id``."""
        return self.otid or self.id or ""


class _TextMessage(LettaMessage):
    content: WireText = ""


class UserMessage(_TextMessage):
    message_type: Literal["user_message"] = "user_message"


class SystemMessage(_TextMessage):
    message_type: Literal["system_message"] = "system_message"


class AssistantMessage(_TextMessage):
    message_type: Literal["assistant_message"] = "assistant_message"


class ReasoningMessage(LettaMessage):
    message_type: Literal["reasoning_message"] = "reasoning_message"
    reasoning: str = ""
    source: str | None = None
    signature: str | None = None
    fast_path_requires = ("reasoning",)

    @model_validator(mode="before")
    @classmethod
    def _prototype_content(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("reasoning") is None:
            data = dict(data)
            data["reasoning"] = content_text(data.get("content"))
        return data


class HiddenReasoningMessage(LettaMessage):
    message_type: Literal["hidden_reasoning_message"] = "hidden_reasoning_message"
    state: str | None = None
    hidden_reasoning: str | None = None


class _ToolCallCarrier(LettaMessage):
    tool_calls: list[ToolCall] = []  # noqa: RUF012
    #: True when the chunk carried a single delta object (token mode), not a complete list.
    is_delta: bool = False

    @model_validator(mode="before")
    @classmethod
    def _normalise_calls(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        calls = data.get("tool_calls")
        single = data.get("tool_call")
        if isinstance(calls, list):
            data["is_delta"] = False
        elif isinstance(calls, dict):
            data["tool_calls"], data["is_delta"] = [calls], True
        elif isinstance(single, dict):
            # The prototype sent one complete call with a dict of arguments.
            complete = isinstance(single.get("arguments"), dict) or "tool_name" in single
            data["tool_calls"], data["is_delta"] = [single], not complete
        else:
            data["tool_calls"] = []
        return data


class ToolCallMessage(_ToolCallCarrier):
    message_type: Literal["tool_call_message"] = "tool_call_message"


class ApprovalRequestMessage(_ToolCallCarrier):
    message_type: Literal["approval_request_message"] = "approval_request_message"


class ToolReturnMessage(LettaMessage):
    message_type: Literal["tool_return_message"] = "tool_return_message"
    tool_returns: list[ToolReturn] = []  # noqa: RUF012

    @model_validator(mode="before")
    @classmethod
    def _normalise_returns(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if not isinstance(data.get("tool_returns"), list) or not data["tool_returns"]:
            result = data.get("tool_return", data.get("result"))
            data["tool_returns"] = [
                {
                    "tool_call_id": data.get("tool_call_id"),
                    "status": data.get("status"),
                    "tool_return": result,
                    "stdout": data.get("stdout"),
                    "stderr": data.get("stderr"),
                }
            ]
        return data


class ApprovalResponseMessage(LettaMessage):
    message_type: Literal["approval_response_message"] = "approval_response_message"
    approvals: list[ApprovalDecision] = []  # noqa: RUF012

    @model_validator(mode="before")
    @classmethod
    def _legacy_fields(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if not isinstance(data.get("approvals"), list) or not data["approvals"]:
            if data.get("approval_request_id") is not None:
                data["approvals"] = [
                    {
                        "type": "approval",
                        "tool_call_id": data["approval_request_id"],
                        "approve": data.get("approve"),
                        "reason": data.get("reason"),
                    }
                ]
            else:
                data["approvals"] = []
        return data


class SummaryMessage(LettaMessage):
    message_type: Literal["summary_message"] = "summary_message"
    summary: str = ""
    compaction_stats: dict[str, Any] | None = None


class EventMessage(LettaMessage):
    message_type: Literal["event_message"] = "event_message"
    event_type: str | None = None
    event_data: dict[str, Any] | None = None

    @property
    def compaction(self) -> CompactionData:
        """``event_data`` read as a compaction's figures (each ``None`` when not a number)."""
        return CompactionData.model_validate(self.event_data or {})


class Ping(LettaMessage):
    message_type: Literal["ping"] = "ping"


class StopReason(WireModel):
    message_type: Literal["stop_reason"] = "stop_reason"
    stop_reason: str = "end_turn"


class UsageStatistics(WireModel):
    message_type: Literal["usage_statistics"] = "usage_statistics"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    step_count: int = 0
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    context_tokens: int | None = None

    @field_validator(
        "prompt_tokens", "completion_tokens", "total_tokens", "step_count", mode="before"
    )
    @classmethod
    def _zero_for_null(cls, value: Any) -> Any:
        return 0 if value is None else value


class ErrorMessage(WireModel):
    """An in-stream error (``event: error``), normalised from the three server shapes."""

    message_type: Literal["error_message"] = "error_message"
    run_id: str | None = None
    error_type: str = "error"
    message: str = "The server reported an error."
    detail: str | None = None
    seq_id: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _server_level_shape(cls, data: Any) -> Any:
        # {"error": "<text>", "code": "INTERNAL_SERVER_ERROR"} and {"error": {"type", "message"}}
        if not isinstance(data, dict) or "message" in data:
            return data
        error = data.get("error")
        if isinstance(error, dict):
            return {**data, "error_type": error.get("type") or "error",
                    "message": error.get("message") or "The server reported an error.",
                    "detail": _text_or_none(error.get("detail"))}
        if error is not None:
            code = data.get("code")
            return {**data, "error_type": str(code).lower() if code else "server_error",
                    "message": str(error)}
        return data

    @field_validator("detail", mode="before")
    @classmethod
    def _detail_text(cls, value: Any) -> Any:
        return _text_or_none(value)


def _text_or_none(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


class UnknownMessage(WireModel):
    """A message type this client does not know; kept raw, never displayed as content."""

    model_config = ConfigDict(extra="allow")
    message_type: str = "unknown"
    raw: dict[str, Any] = {}  # noqa: RUF012


MESSAGE_TYPES: dict[str, type[WireModel]] = {
    model.model_fields["message_type"].default: model
    for model in (
        UserMessage, SystemMessage, AssistantMessage, ReasoningMessage, HiddenReasoningMessage,
        ToolCallMessage, ApprovalRequestMessage, ToolReturnMessage, ApprovalResponseMessage,
        SummaryMessage, EventMessage, Ping, StopReason, UsageStatistics, ErrorMessage,
    )
}

Message = (
    UserMessage | SystemMessage | AssistantMessage | ReasoningMessage | HiddenReasoningMessage
    | ToolCallMessage | ApprovalRequestMessage | ToolReturnMessage | ApprovalResponseMessage
    | SummaryMessage | EventMessage | Ping | StopReason | UsageStatistics | ErrorMessage
    | UnknownMessage
)


def parse_message(data: Any) -> Message:
    """Turn one decoded JSON object into a message model; unknown or invalid shapes become
    :class:`UnknownMessage` instead of raising."""
    if not isinstance(data, dict):
        return UnknownMessage(message_type="unknown", raw={"value": data})
    message_type = data.get("message_type")
    model = MESSAGE_TYPES.get(message_type) if isinstance(message_type, str) else None
    if model is not None:
        try:
            return model.model_validate(data)  # type: ignore[return-value]
        except ValidationError:
            pass
    kind = message_type if isinstance(message_type, str) else "unknown"
    return UnknownMessage(message_type=kind, raw=data)


#: The known types but errors (a stream reads those its own way), straight from JSON text.
_KNOWN_FROM_JSON = JsonFastPath(
    [model for model in MESSAGE_TYPES.values() if model is not ErrorMessage], "message_type")


def parse_known_json(text: str) -> Message | None:
    """``parse_message(json_text.loads(text))`` when that is a known message other than an
    error and valid as sent (as are nearly all chunks of a stream); ``None`` when it may be
    anything else: then that call decides.

    pydantic's JSON decoder refuses lone surrogates (escaped or not), which ``loads`` cleans
    up, and decodes everything else as ``loads`` does, but for nesting too deep.
    """
    nested = "[" in text or text.find("{", 1) >= 0  # too_deep's first test, without a call
    if nested and json_text.too_deep(text):
        return None
    try:
        return _KNOWN_FROM_JSON.read(text)  # type: ignore[return-value]
    except (ValueError, TypeError):  # TypeError: a lone surrogate in the text
        return None
