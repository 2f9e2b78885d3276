"""Pydantic models of the server objects the client reads: agents and their tools and
memory blocks, conversations, runs and their steps and usage, context windows, health.

Every model follows the rules of :class:`~openletta.api.wire.WireModel`. (Mutable defaults are
safe in pydantic models; ruff cannot tell that a model defined elsewhere is one: ``noqa``.)
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import field_validator

from openletta.api.messages import ApprovalRequestMessage
from openletta.api.wire import WireDatetime, WireModel


class LLMConfig(WireModel):
    model: str | None = None
    handle: str | None = None
    context_window: int | None = None
    model_endpoint_type: str | None = None
    #: Whether the agent runs every call of a step (``False``: the first one only).
    parallel_tool_calls: bool | None = None


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
    tools: list[Tool] = []  # noqa: RUF012
    blocks: list[Block] = []  # noqa: RUF012
    tool_rules: list[ToolRule] = []  # noqa: RUF012
    tags: list[str] = []  # noqa: RUF012
    created_at: WireDatetime = None
    updated_at: WireDatetime = None
    last_run_completion: WireDatetime = None
    last_stop_reason: str | None = None
    pending_approval: ApprovalRequestMessage | None = None

    APPROVAL_RULE: ClassVar[str] = "requires_approval"

    @property
    def runs_one_call_per_step(self) -> bool:
        """Whether the agent runs only the first of the calls a step makes (the server drops
        the others): ``parallel_tool_calls`` is off (so far as the server says)."""
        return self.llm_config is not None and self.llm_config.parallel_tool_calls is False

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
    in_context_message_ids: list[str] = []  # noqa: RUF012
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


class Model(WireModel):
    """A model the server can run agents on (``GET /v1/models/``)."""

    handle: str = ""
    display_name: str | None = None
    provider_name: str | None = None
    context_window: int | None = None


class Compaction(WireModel):
    """What compacting a thread did (``POST /v1/conversations/{id}/compact``)."""

    summary: str = ""
    num_messages_before: int | None = None
    num_messages_after: int | None = None


class Health(WireModel):
    version: str = ""
    status: str = ""
