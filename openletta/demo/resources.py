"""JSON views of agents, tools, blocks, conversations and runs, in the captures' key order."""

from __future__ import annotations

from typing import Any

from openletta.demo import catalog
from openletta.demo.catalog import CONTEXT_WINDOW, USER_ID, ToolSpec
from openletta.demo.ids import naive_time, record_time, stable_id
from openletta.demo.runs import Run
from openletta.demo.state import AgentRecord, ConversationRecord, Thread

AGENT_TYPE = "letta_v1_agent"
COMPACTION_PROMPT = ("The following messages are being evicted from the BEGINNING of your "
                     "context window. Write a detailed summary of them.")


def agent_json(agent: AgentRecord, *, include: set[str]) -> dict[str, Any]:
    """``AgentState``; relationships (``agent.blocks``, ``agent.tools``, ``agent.tags``,
    ``agent.pending_approval``) only when named in ``include``."""
    spec = agent.spec
    blocks = blocks_json(agent) if "agent.blocks" in include else []
    pending = agent.thread.pending
    system_message = agent.thread.rows[0].messages[0]["content"]
    return {
        "created_by_id": USER_ID, "last_updated_by_id": USER_ID,
        "created_at": record_time(agent.created_at), "updated_at": record_time(agent.updated_at),
        "id": agent.id, "name": spec.name,
        "tool_rules": [{"tool_name": name, "type": "requires_approval", "prompt_template": None}
                       for name in agent.approval_tools],
        "message_ids": [row.id for row in agent.thread.rows],
        "system": system_message, "agent_type": AGENT_TYPE,
        "llm_config": catalog.llm_config(agent.model),
        "embedding_config": catalog.embedding_config(), "model": agent.model,
        "embedding": "openai/text-embedding-3-small",
        "model_settings": catalog.model_settings(),
        "compaction_settings": {"model": catalog.MODEL_HANDLE, "model_settings": None,
                                "prompt": COMPACTION_PROMPT, "prompt_acknowledgement": False,
                                "clip_chars": 50000, "mode": "sliding_window",
                                "sliding_window_percentage": 0.3},
        "response_format": None, "description": spec.description, "metadata": None,
        "memory": {"agent_type": AGENT_TYPE, "git_enabled": False, "blocks": blocks,
                   "file_blocks": [], "prompt_template": ""},
        "blocks": blocks,
        "tools": ([tool_json(tool) for tool in catalog.TOOLS]
                  if "agent.tools" in include else []),
        "sources": [],
        "tags": list(spec.tags) if include & {"agent.tags", "agent.blocks"} else [],
        "tool_exec_environment_variables": [], "secrets": [], "project_id": None,
        "template_id": None, "base_template_id": None, "deployment_id": None,
        "entity_id": None, "identity_ids": [], "identities": [],
        "pending_approval": (pending.message if pending and "agent.pending_approval" in include
                             else None),
        "message_buffer_autoclear": False, "enable_sleeptime": None,
        "multi_agent_group": None, "managed_group": None,
        "last_run_completion": (record_time(agent.last_run_completion)
                                if agent.last_run_completion else None),
        "last_run_duration_ms": agent.last_run_duration_ms,
        "last_stop_reason": agent.last_stop_reason, "timezone": "UTC", "max_files_open": 5,
        "per_file_view_window_char_limit": 15000, "hidden": None,
    }


BLOCK_DESCRIPTIONS = {
    "human": "The human block: Stores key details about the person you are conversing with.",
    "persona": "The persona block: Stores details about your current persona.",
}


def blocks_json(agent: AgentRecord) -> list[dict[str, Any]]:
    return [block_json(agent, label) for label in agent.blocks]


def block_json(agent: AgentRecord, label: str) -> dict[str, Any]:
    """One core memory block of ``agent`` (``label`` must be one of its blocks)."""
    return _block(agent, label, agent.blocks[label], BLOCK_DESCRIPTIONS.get(label, ""))


def _block(agent: AgentRecord, label: str, value: str, description: str) -> dict[str, Any]:
    return {"value": value, "limit": 100000, "project_id": None, "template_name": None,
            "is_template": False, "template_id": None, "base_template_id": None,
            "deployment_id": None, "entity_id": None, "preserve_on_migration": False,
            "label": label, "read_only": False, "description": description, "metadata": {},
            "hidden": None, "id": stable_id("block", f"{agent.spec.name}/{label}"),
            "created_by_id": None, "last_updated_by_id": None, "tags": []}


def tool_json(tool: ToolSpec) -> dict[str, Any]:
    custom = tool.tool_type == "custom"
    return {"id": tool.id, "tool_type": tool.tool_type, "description": tool.description,
            "source_type": "python" if custom else "json", "name": tool.name,
            "tags": ["demo"] if custom else [], "source_code": tool.source_code(),
            "json_schema": tool.json_schema(), "args_json_schema": {} if custom else None,
            "return_char_limit": 50000, "pip_requirements": None, "npm_requirements": None,
            "default_requires_approval": tool.default_requires_approval,
            "enable_parallel_execution": False, "created_by_id": USER_ID,
            "last_updated_by_id": USER_ID, "metadata_": {}, "project_id": None}


def conversation_json(conversation: ConversationRecord) -> dict[str, Any]:
    created = record_time(conversation.created_at)
    last = conversation.thread.last_message_at
    return {"created_by_id": USER_ID, "last_updated_by_id": USER_ID, "created_at": created,
            "updated_at": record_time(last) if last else created, "id": conversation.id,
            "agent_id": conversation.agent_id, "summary": conversation.summary,
            "in_context_message_ids": [row.id for row in conversation.thread.rows],
            "isolated_block_ids": [], "model": None, "model_settings": None,
            "last_message_at": record_time(last) if last else None}


def run_json(run: Run) -> dict[str, Any]:
    return {"id": run.id, "status": run.status, "created_at": record_time(run.created_at),
            "completed_at": naive_time(run.completed_at) if run.completed_at else None,
            "agent_id": run.agent_id, "conversation_id": run.conversation_id,
            "base_template_id": None, "background": run.background,
            "metadata": {"run_type": "send_message_streaming"},
            "request_config": {"use_assistant_message": True,
                               "assistant_message_tool_name": "send_message",
                               "assistant_message_tool_kwarg": "message",
                               "include_return_message_types": None},
            "stop_reason": run.stop_reason, "callback_url": None, "callback_sent_at": None,
            "callback_status_code": None, "callback_error": None, "ttft_ns": None,
            "total_duration_ns": None}


#: How the demo splits the tokens every context starts with.
SYSTEM_TOKENS, TOOL_TOKENS = 900, 1500


def context_json(agent: AgentRecord, thread: Thread) -> dict[str, Any]:
    """``ContextWindowOverview`` of one of the agent's threads, in round figures."""
    memory = sum(len(value) for value in agent.blocks.values()) // 4
    messages = max(0, thread.context_tokens - SYSTEM_TOKENS - TOOL_TOKENS - memory)
    return {"context_window_size_max": CONTEXT_WINDOW,
            "context_window_size_current": SYSTEM_TOKENS + TOOL_TOKENS + memory + messages,
            "num_messages": thread.in_context, "num_tokens_system": SYSTEM_TOKENS,
            "num_tokens_core_memory": memory, "num_tokens_functions_definitions": TOOL_TOKENS,
            "num_tokens_messages": messages, "num_tokens_summary_memory": 0,
            "num_tokens_external_memory_summary": 0}
