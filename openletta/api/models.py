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

:func:`parse_message` turns any dict into one of these models, falling back to
:class:`UnknownMessage` for types we do not know. It never raises on a dict.

Two rules hold for every model read from the server (:class:`WireModel`):

* a field whose value has the wrong type (a string of tokens, a list for a name) gets its
  default, "unknown", instead of failing the whole model;
* every date (:data:`WireDatetime`) is an aware datetime in UTC, or ``None`` when the
  value is not a date, so dates from anywhere can be compared.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ModelWrapValidatorHandler,
    ValidationError,
    field_validator,
    model_validator,
)


def content_text(content: Any) -> str:
    """Join the text of ``content`` given as a string or a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif part.get("type") == "image":
                    texts.append("[image]")
        return "".join(texts)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return content["text"]
    return str(content)


def _arguments_text(arguments: Any) -> str | None:
    """Tool-call arguments as the JSON text the server sends (the prototype sent a dict)."""
    if arguments is None or isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)


def utc_datetime(value: Any) -> datetime | None:
    """A date from the wire as an aware UTC datetime: ISO text (with or without an offset;
    none means UTC), epoch seconds, or a datetime. ``None`` for anything else."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, datetime):
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 moved past the calendar's end
        return None


#: A date field of a wire model (see :func:`utc_datetime`).
WireDatetime = Annotated[datetime | None, BeforeValidator(utc_datetime)]


class WireModel(BaseModel):
    """Base for everything read from the server: unknown keys ignored, ``None`` tolerated,
    a value of the wrong type replaced by the field's default."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @model_validator(mode="wrap")
    @classmethod
    def _defaults_for_bad_fields(cls, data: Any, handler: ModelWrapValidatorHandler[Self]
                                 ) -> Self:
        try:
            return handler(data)
        except ValidationError as error:
            if not isinstance(data, dict):
                raise
            bad = {problem["loc"][0] for problem in error.errors() if problem["loc"]}
            if not bad or any(cls.model_fields[name].is_required()
                              for name in bad if name in cls.model_fields):
                raise
            return handler({key: value for key, value in data.items() if key not in bad})


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


class LettaMessage(WireModel):
    """Fields common to all message chunks and stored messages."""

    message_type: str
    id: str | None = None
    date: WireDatetime = None
    name: str | None = None
    otid: str | None = None
    step_id: str | None = None
    run_id: str | None = None
    seq_id: int | None = None
    is_err: bool | None = None

    @field_validator("seq_id", mode="before")
    @classmethod
    def _lenient_seq(cls, value: Any) -> Any:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def group_key(self) -> str:
        """Key that groups the deltas of one logical part: ``otid``, falling back to ``id``."""
        return self.otid or self.id or ""


class _TextMessage(LettaMessage):
    content: str = ""

    @model_validator(mode="before")
    @classmethod
    def _join_content(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            data["content"] = content_text(data.get("content"))
        return data


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
    tool_calls: list[ToolCall] = []
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
    tool_returns: list[ToolReturn] = []

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
    approvals: list[ApprovalDecision] = []

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


class CompactionData(WireModel):
    """What a compaction event says about the context window."""

    context_token_estimate: int | None = None
    context_window: int | None = None


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
    raw: dict[str, Any] = {}


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


# --- Server objects the client reads (agents, conversations, runs) -----------------------


class LLMConfig(WireModel):
    model: str | None = None
    handle: str | None = None
    context_window: int | None = None
    model_endpoint_type: str | None = None


class Tool(WireModel):
    id: str | None = None
    name: str = ""
    description: str | None = None
    tool_type: str | None = None
    default_requires_approval: bool | None = None


class Block(WireModel):
    id: str | None = None
    label: str = ""
    value: str = ""
    limit: int | None = None
    description: str | None = None
    read_only: bool | None = None


class ToolRule(WireModel):
    type: str | None = None
    tool_name: str | None = None


class Agent(WireModel):
    """An agent as returned by ``GET /v1/agents/`` and ``GET /v1/agents/{id}``."""

    id: str
    name: str = ""
    description: str | None = None
    agent_type: str | None = None
    model: str | None = None
    llm_config: LLMConfig | None = None
    tools: list[Tool] = []
    blocks: list[Block] = []
    tool_rules: list[ToolRule] = []
    tags: list[str] = []
    created_at: WireDatetime = None
    updated_at: WireDatetime = None
    last_run_completion: WireDatetime = None
    last_stop_reason: str | None = None
    pending_approval: ApprovalRequestMessage | None = None

    APPROVAL_RULE: ClassVar[str] = "requires_approval"

    @field_validator("tools", "blocks", "tool_rules", "tags", mode="before")
    @classmethod
    def _null_list(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("pending_approval", mode="before")
    @classmethod
    def _only_approval_requests(cls, value: Any) -> Any:
        if isinstance(value, dict) and value.get("message_type") != "approval_request_message":
            return None
        return value

    @property
    def model_name(self) -> str:
        """The model handle, for display."""
        if self.llm_config is not None:
            return self.llm_config.handle or self.llm_config.model or self.model or ""
        return self.model or ""

    @property
    def context_window(self) -> int | None:
        return self.llm_config.context_window if self.llm_config else None

    @property
    def tools_requiring_approval(self) -> set[str]:
        """Names of tools that the agent's rules mark as requiring approval."""
        return {
            rule.tool_name for rule in self.tool_rules
            if rule.type == self.APPROVAL_RULE and rule.tool_name
        }


class Conversation(WireModel):
    id: str
    agent_id: str | None = None
    summary: str | None = None
    description: str | None = None
    in_context_message_ids: list[str] = []
    last_message_at: WireDatetime = None
    created_at: WireDatetime = None

    @field_validator("in_context_message_ids", mode="before")
    @classmethod
    def _null_list(cls, value: Any) -> Any:
        return [] if value is None else value


class Run(WireModel):
    id: str
    agent_id: str | None = None
    conversation_id: str | None = None
    status: str | None = None
    stop_reason: str | None = None
    background: bool | None = None
    metadata: dict[str, Any] | None = None
    created_at: WireDatetime = None
    completed_at: WireDatetime = None
    #: Time to the first token, and the whole run, in nanoseconds.
    ttft_ns: int | None = None
    total_duration_ns: int | None = None


class RunUsage(WireModel):
    """Tokens a run used (``GET /v1/runs/{id}/usage``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class Step(WireModel):
    """One LLM call of a run (``GET /v1/runs/{id}/steps``)."""

    id: str = ""
    model: str | None = None
    model_handle: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    stop_reason: str | None = None
    status: str | None = None


class StepMetrics(WireModel):
    """How long a step took (``GET /v1/steps/{id}/metrics``), in nanoseconds."""

    step_ns: int | None = None
    llm_request_ns: int | None = None
    tool_execution_ns: int | None = None


class ContextWindow(WireModel):
    """How an agent's context window is spent (``GET /v1/agents/{id}/context``)."""

    context_window_size_max: int = 0
    context_window_size_current: int = 0
    num_tokens_system: int = 0
    num_tokens_core_memory: int = 0
    num_tokens_functions_definitions: int = 0
    num_tokens_tool_usage_rules: int = 0
    num_tokens_memory_filesystem: int = 0
    num_tokens_directories: int = 0
    num_tokens_external_memory_summary: int = 0
    num_tokens_summary_memory: int = 0
    num_tokens_messages: int = 0
    num_messages: int = 0


class Health(WireModel):
    version: str = ""
    status: str = ""
