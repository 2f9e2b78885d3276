"""The demo server's data: agents, conversations, their message threads and runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from openletta.demo.catalog import MODEL_HANDLE, TOOLS, AgentSpec
from openletta.demo.chunks import Chunk
from openletta.demo.ids import new_id
from openletta.demo.runs import Run
from openletta.demo.script import ScriptedCall

#: Tokens of the system prompt and tool schemas, where every context starts.
BASE_CONTEXT_TOKENS = 2400


@dataclass(eq=False)
class Row:
    """One stored message (a database row); it expands to one or more Letta messages that
    share its id. Rows of a generated history build their messages on first use."""

    id: str
    build: Callable[[], list[Chunk]]
    _messages: list[Chunk] | None = None

    @classmethod
    def of(cls, message_id: str, messages: list[Chunk]) -> Row:
        return cls(message_id, list, messages)

    @property
    def messages(self) -> list[Chunk]:
        if self._messages is None:
            self._messages = self.build()
        return self._messages


@dataclass(eq=False)
class PendingApproval:
    """An approval request the agent is waiting on."""

    row_id: str
    step_id: str
    #: ``(tool_call_id, call)`` for every call awaiting a decision.
    calls: list[tuple[str, ScriptedCall]]
    #: The ``approval_request_message`` as history and ``pending_approval`` show it.
    message: Chunk


@dataclass(eq=False)
class Thread:
    """The messages of one conversation (or of an agent's default thread)."""

    rows: list[Row] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)
    pending: PendingApproval | None = None
    context_tokens: int = BASE_CONTEXT_TOKENS
    last_message_at: datetime | None = None
    #: The run currently producing messages here (the conversation lock).
    active_run: Run | None = None
    #: How many rows after the system prompt a compaction took out of the context window.
    summarised_rows: int = 0

    @property
    def in_context(self) -> int:
        """How many rows the context window holds."""
        return len(self.rows) - self.summarised_rows

    def extend(self, rows: Iterable[Row]) -> None:
        for row in rows:
            self.positions[row.id] = len(self.rows)
            self.rows.append(row)

    def page(self, *, before: str | None, after: str | None, limit: int,
             newest_first: bool) -> list[Row]:
        """Rows strictly between the cursors (unknown cursors are ignored), ``limit`` of
        them from the newest (``newest_first``) or the oldest end, in chronological order."""
        start = self.positions[after] + 1 if after in self.positions else 0
        end = self.positions[before] if before in self.positions else len(self.rows)
        if end <= start or limit <= 0:
            return []
        if newest_first:
            return self.rows[max(start, end - limit):end]
        return self.rows[start:min(end, start + limit)]

    @property
    def busy(self) -> bool:
        return self.active_run is not None and not self.active_run.finished


@dataclass(eq=False)
class AgentRecord:
    spec: AgentSpec
    created_at: datetime
    updated_at: datetime
    thread: Thread
    approval_tools: list[str]
    last_run_completion: datetime | None = None
    last_run_duration_ms: int | None = None
    last_stop_reason: str | None = None
    #: Core memory: label → value (starts from the spec's human and persona blocks).
    blocks: dict[str, str] = field(default_factory=dict)
    #: The handle of the model it runs on (only the scripted one answers).
    model: str = MODEL_HANDLE

    def __post_init__(self) -> None:
        self.blocks = self.blocks or {"human": self.spec.human, "persona": self.spec.persona}

    @property
    def id(self) -> str:
        return self.spec.id

    def requires_approval(self, tool_name: str) -> bool:
        return tool_name in self.approval_tools

    def set_requires_approval(self, tool_name: str, required: bool) -> None:
        if required and tool_name not in self.approval_tools:
            self.approval_tools.append(tool_name)
        elif not required and tool_name in self.approval_tools:
            self.approval_tools.remove(tool_name)


@dataclass(eq=False)
class ConversationRecord:
    id: str
    agent_id: str
    created_at: datetime
    summary: str | None
    thread: Thread


class Store:
    """All agents, conversations and runs of one demo server."""

    def __init__(self) -> None:
        self.agents: dict[str, AgentRecord] = {}
        self.conversations: dict[str, ConversationRecord] = {}
        self.runs: dict[str, Run] = {}

    def add_agent(self, spec: AgentSpec, created_at: datetime, system_row: Row) -> AgentRecord:
        thread = Thread()
        thread.extend([system_row])
        agent = AgentRecord(spec, created_at, created_at, thread,
                            [tool.name for tool in TOOLS if tool.default_requires_approval])
        self.agents[agent.id] = agent
        return agent

    def add_conversation(self, agent: AgentRecord, created_at: datetime, system_row: Row,
                         summary: str | None) -> ConversationRecord:
        thread = Thread()
        thread.extend([system_row])
        conversation = ConversationRecord(new_id("conv"), agent.id, created_at, summary, thread)
        self.conversations[conversation.id] = conversation
        return conversation

    def find_row(self, message_id: str) -> Row | None:
        """The stored message (row) with this id, in any thread."""
        threads = [agent.thread for agent in self.agents.values()]
        threads += [conversation.thread for conversation in self.conversations.values()]
        for thread in threads:
            if message_id in thread.positions:
                return thread.rows[thread.positions[message_id]]
        return None

    def agent_runs(self, agent_id: str) -> list[Run]:
        return [run for run in self.runs.values() if run.agent_id == agent_id]

    def active_runs(self, agent_id: str) -> list[Run]:
        """Unfinished runs of the agent, in any of its threads."""
        return [run for run in self.agent_runs(agent_id) if not run.finished]
