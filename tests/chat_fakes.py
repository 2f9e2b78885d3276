"""Fakes for driving :class:`~openletta.chat.controller.ChatController` without a UI: a
client that replays recorded streams, and a listener that records what the controller says."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from openletta.api.answers import Answer
from openletta.api.errors import LettaError, NotFoundError
from openletta.api.history import HistoryPage
from openletta.api.messages import ApprovalRequestMessage, Message, parse_message
from openletta.api.resources import (
    Agent,
    Compaction,
    ContextWindow,
    Health,
    Run,
    RunUsage,
    Step,
)
from openletta.chat.turn_state import Phase, TurnState
from openletta.transcript import Change, Transcript


class FakeStream:
    """A reply stream as :class:`~openletta.api.sse.MessageStream` gives it, from a capture.

    ``refuse``: entering raises it (the server did not accept the request); ``accept``:
    entering waits for it; ``hold``: the stream stops before message ``hold_at`` until the
    event is set; ``drop``: raised after the last message (the connection broke).
    """

    def __init__(self, messages: Sequence[Message], *, refuse: LettaError | None = None,
                 accept: asyncio.Event | None = None, drop: LettaError | None = None,
                 hold: asyncio.Event | None = None, hold_at: int = 3) -> None:
        self.messages, self.refuse, self.accept, self.drop = list(messages), refuse, accept, drop
        self.hold, self.hold_at = hold, hold_at
        self.run_id: str | None = None
        self.on_accept: Callable[[], None] = lambda: None
        self.opened = self.closed = False

    async def open(self) -> None:
        if self.opened:
            return
        if self.accept is not None:
            await self.accept.wait()
        if self.refuse is not None:
            raise self.refuse
        self.opened = True
        self.on_accept()

    async def aclose(self) -> None:
        self.closed = True

    async def __aenter__(self) -> FakeStream:
        await self.open()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def _messages(self) -> AsyncIterator[Message]:
        for index, message in enumerate(self.messages):
            if self.hold is not None and index == self.hold_at:
                await self.hold.wait()
            self.run_id = getattr(message, "run_id", None) or self.run_id
            yield message
        if self.drop is not None:
            raise self.drop

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._messages()


class FakeClient:
    """The calls a chat makes, answered from queues of :class:`FakeStream`.

    Like a server, it holds the calls of a reply that stopped for approval until answers
    for them are accepted.
    """

    def __init__(self) -> None:
        self.turns: deque[FakeStream] = deque()
        self.answers: deque[FakeStream] = deque()
        self.sent: list[str] = []
        self.sent_otids: list[str | None] = []
        self.answered: list[list[Answer]] = []
        #: The message each set of answers went with (``None``: answers alone).
        self.answered_with: list[str | None] = []
        self.cancelled: list[list[str] | None] = []
        #: What :meth:`cancel` raises (``None``: the server takes it).
        self.cancel_error: LettaError | None = None
        #: The runs :meth:`cancel` says it stopped, when it was not told which.
        self.cancelled_runs: dict[str, str] = {}
        self.rules: dict[str, bool] = {}
        self.rule_error: LettaError | None = None
        self.held: ApprovalRequestMessage | None = None
        #: Streams for :meth:`resume_stream`, and the ``(run_id, starting_after)`` asked.
        self.resumes: deque[FakeStream] = deque()
        self.resumed: list[tuple[str, int]] = []
        #: The ``background`` option of each request sent, and its ``client_tools`` names.
        self.background: list[bool] = []
        self.declared: list[list[str]] = []
        #: Runs the server knows, and what each stored.
        self.runs: dict[str, Run] = {}
        self.run_messages: dict[str, list[Message]] = {}
        #: Runs that stored another message than the one sent last (their user message keeps
        #: its own otid); and the thread's newest runs, going or not, newest first.
        self.foreign_runs: set[str] = set()
        self.recent: list[Run] = []
        #: Runs going on in the conversation, newest first, and its stored history.
        self.active: list[Run] = []
        self.history: list[Message] = []
        #: What :meth:`health` raises (``None``: the server answers), and the checks made.
        self.down: LettaError | None = None
        self.health_checks = 0
        self.history_reads = 0
        #: ``time.monotonic()`` when the server last answered.
        self.last_answer: float | None = None
        self.reachability_listeners: list[Callable[[bool], None]] = []
        self._last_otid: str | None = None
        #: The agent as the server has it (``None``: not found), and how often it was read.
        self.agent: Agent | None = None
        self.agent_reads = 0
        #: The server's estimate of the context's size (``None``: it cannot say), and the
        #: history a compaction leaves (``None``: the history as it is).
        self.context_estimate: int | None = None
        self.compacted: list[Message] | None = None

    def watch_reachability(self, listener: Callable[[bool], None]) -> Callable[[], None]:
        """As the client's: ``reach(reached)`` tells the listeners."""
        listeners = self.reachability_listeners
        listeners.append(listener)

        def stop() -> None:
            if listener in listeners:
                listeners.remove(listener)

        return stop

    def reach(self, reached: bool) -> None:
        for listener in list(self.reachability_listeners):
            listener(reached)

    async def health(self) -> Health:
        """As the client's: the listeners hear whether the server was reached."""
        self.health_checks += 1
        self.reach(self.down is None)
        if self.down is not None:
            raise self.down
        return Health(version="0.16.8", status="ok")

    def send_message(self, agent_id: str, text: str, *, background: bool = False,
                     otid: str | None = None, client_tools: Sequence[Any] = (),
                     **_options: Any) -> FakeStream:
        self.sent.append(text)
        self.sent_otids.append(otid)
        self._last_otid = otid
        self.background.append(background)
        self.declared.append([tool["name"] for tool in client_tools])
        return self._held_after(self.turns.popleft())

    async def get_agent(self, agent_id: str, **_include: bool) -> Agent:
        self.agent_reads += 1
        if self.agent is None:
            raise NotFoundError(f"Not found: {agent_id}")
        return self.agent

    async def get_run(self, run_id: str) -> Run:
        if self.down is not None:
            raise self.down
        if run_id not in self.runs:
            raise NotFoundError(f"Not found: {run_id}")
        return self.runs[run_id]

    async def active_runs(self, agent_id: str, conversation_id: str | None = None
                          ) -> list[Run]:
        return [run for run in self.active if self.runs.get(run.id, run).status == "running"]

    async def list_messages(self, agent_id: str, conversation_id: str | None = None,
                            **_paging: Any) -> HistoryPage:
        """:attr:`history`; as :meth:`health`, the listeners hear whether it was reached."""
        self.history_reads += 1
        self.reach(self.down is None)
        if self.down is not None:
            raise self.down
        return HistoryPage(list(self.history), None, False)

    async def list_run_messages(self, run_id: str) -> list[Message]:
        """What the run stored; the user's message has the otid it was sent with (unless the
        run is one of :attr:`foreign_runs`)."""
        return [message.model_copy(update={"otid": self._last_otid})
                if message.message_type == "user_message" and run_id not in self.foreign_runs
                else message
                for message in self.run_messages.get(run_id, [])]

    async def recent_runs(self, agent_id: str, conversation_id: str | None = None
                          ) -> list[Run]:
        return self.recent

    async def get_context(self, agent_id: str, conversation_id: str | None = None
                          ) -> ContextWindow:
        if self.context_estimate is None:
            raise NotFoundError("no estimate")
        return ContextWindow(context_window_size_max=32_000,
                             context_window_size_current=self.context_estimate)

    async def compact(self, agent_id: str, conversation_id: str | None = None) -> Compaction:
        if self.compacted is not None:
            self.history = self.compacted
        return Compaction(summary="older talk", num_messages_before=9, num_messages_after=2)

    async def list_run_steps(self, run_id: str) -> list[Step]:
        """A run's LLM calls: none are known (a test that needs some sets its own)."""
        return []

    async def get_run_usage(self, run_id: str) -> RunUsage:
        raise NotFoundError(f"Not found: {run_id}")

    def resume_stream(self, run_id: str, starting_after: int) -> FakeStream:
        self.resumed.append((run_id, starting_after))
        return self.resumes.popleft()

    def send_approvals(self, agent_id: str, decisions: Sequence[Answer],
                       client_tools: Sequence[Any] = (), then_text: str | None = None,
                       **_options: Any) -> FakeStream:
        self.answered.append(list(decisions))
        self.answered_with.append(then_text)
        self.declared.append([tool["name"] for tool in client_tools])
        stream = self.answers.popleft()
        stream.on_accept = self._take_answers
        return self._held_after(stream)

    def _take_answers(self) -> None:
        self.held = None

    async def get_pending_approval(self, agent_id: str, conversation_id: str | None = None
                                   ) -> ApprovalRequestMessage | None:
        return self.held

    async def set_tool_approval(self, agent_id: str, tool_name: str, required: bool) -> None:
        if self.rule_error is not None:
            raise self.rule_error
        self.rules[tool_name] = required

    async def cancel(self, agent_id: str, *, conversation_id: str | None = None,
                     run_ids: Sequence[str] | None = None) -> dict[str, str]:
        if self.cancel_error is not None:
            raise self.cancel_error
        self.cancelled.append(list(run_ids) if run_ids else None)
        return {} if run_ids else dict(self.cancelled_runs)

    def _held_after(self, stream: FakeStream) -> FakeStream:
        """Hold the calls the stream's reply waits on, once it is accepted."""
        transcript = Transcript()
        transcript.feed_all(stream.messages)
        if transcript.stop_reason == "requires_approval" and stream.refuse is None:
            calls = [{"tool_call_id": call.tool_call_id, "name": call.name,
                      "arguments": call.arguments_text} for call in transcript.pending_approvals]
            self.held = parse_message({"message_type": "approval_request_message",
                                       "id": "message-held", "tool_calls": calls})
        return stream


class Listener:
    """Records what the controller reports, as the UI would show it."""

    def __init__(self) -> None:
        self.states: list[TurnState] = []
        self.changes: list[Change] = []
        self.reports: list[tuple[str, str, bool]] = []
        self.restored: list[str] = []
        self.withdrawn: list[str] = []
        self.exits = 0
        self.agents: list[Agent] = []

    def transcript_changed(self, change: Change) -> None:
        self.changes.append(change)

    def turn_state_changed(self, state: TurnState) -> None:
        self.states.append(state)

    def report(self, message: str, *, title: str, severity: str = "error",
               notice: bool = False) -> None:
        self.reports.append((message, severity, notice))

    def restore_prompt(self, text: str) -> None:
        self.restored.append(text)

    def withdraw_prompt(self, text: str) -> None:
        self.withdrawn.append(text)

    def leave_now(self) -> None:
        self.exits += 1

    def agent_changed(self, agent: Agent) -> None:
        self.agents.append(agent)

    @property
    def phases(self) -> list[Phase]:
        """The phases reported, without repeats."""
        phases: list[Phase] = []
        for state in self.states:
            if not phases or phases[-1] is not state.phase:
                phases.append(state.phase)
        return phases
