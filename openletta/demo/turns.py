"""Turns: a run that streams a scripted reply and stores it in history.

A :class:`Turn` emits chunks exactly as Letta 0.16.8 does (token deltas sharing one ``id``,
one ``otid`` per part, approval requests under ``id - 1``) and stages the history rows of the
run. Rows are committed when the run ends normally or stops for approval; a failed or
cancelled run leaves history untouched, as on the real server, but for the answers to an
approval request and the tool returns they led to: once taken, those stay (Letta 0.16.8
keeps them when the continuation is cancelled).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass

from openletta.demo import chunks
from openletta.demo.catalog import CONTEXT_WINDOW
from openletta.demo.chunks import CallRecord, Chunk, Origin, ReturnRecord
from openletta.demo.ids import (
    Clock,
    message_date,
    new_id,
    new_message_id,
    new_tool_call_id,
    part_otid,
    previous_message_id,
)
from openletta.demo.runs import Run
from openletta.demo.script import Outcome, Script, ScriptedCall, Step, denial_text
from openletta.demo.send import SendRequest
from openletta.demo.state import AgentRecord, PendingApproval, Row, Thread

CONFLICT = ("CONFLICT: Cannot send a new message: The agent is waiting for approval on a tool "
            "call. Please approve or deny the pending request before continuing.")
NO_PENDING = ("Cannot process approval response: No tool call is currently awaiting approval. "
              "Please send a regular message to interact with the agent.")
UNKNOWN_STREAM_ERROR = "An unknown error occurred with the LLM streaming request."
DENIAL_ON_CANCEL = "The user cancelled the request, so the tool call was denied."

#: Seconds (times the speed) before the first token, and for a tool to run.
FIRST_TOKEN_SECONDS = 0.15
TOOL_SECONDS = 0.3
#: With speed 0, yield to the event loop after this many deltas.
DELTAS_PER_YIELD = 64


class Pacer:
    """Realistic delays: 10–30 ms per delta, times ``speed`` (0 = no delay at all)."""

    def __init__(self, speed: float, seed: int | None = None) -> None:
        self.speed = speed
        self._random = random.Random(seed)
        self._count = 0

    async def delta(self, pace: float = 1.0) -> None:
        if self.speed > 0:
            await asyncio.sleep(self._random.uniform(0.010, 0.030) * self.speed * pace)
            return
        self._count += 1
        if self._count % DELTAS_PER_YIELD == 0:
            await asyncio.sleep(0)

    async def pause(self, seconds: float) -> None:
        await asyncio.sleep(seconds * self.speed if self.speed > 0 else 0)


class TurnCancelled(Exception):
    """The run was cancelled through the API."""


class TurnFailed(Exception):
    """The run ends with an in-stream error (``stop_reason`` + ``event: error``)."""

    def __init__(self, stop_reason: str, error_type: str, message: str, detail: str) -> None:
        super().__init__(message)
        self.stop_reason, self.error_type, self.message, self.detail = (
            stop_reason, error_type, message, detail)

    @classmethod
    def internal(cls, detail: str, message: str = UNKNOWN_STREAM_ERROR) -> TurnFailed:
        return cls("error", "internal_error", message, detail)


@dataclass
class Engine:
    """What every turn shares: the script, the pace and the clock."""

    script: Script
    pacer: Pacer
    clock: Clock

    def date(self) -> str:
        return message_date(self.clock())


class Turn:
    """One run: streams into ``run`` and stages rows for ``thread`` of ``agent``."""

    def __init__(self, engine: Engine, run: Run, agent: AgentRecord, thread: Thread,
                 request: SendRequest) -> None:
        self.engine, self.run, self.agent, self.thread, self.request = (
            engine, run, agent, thread, request)
        self.rows: list[Row] = []
        self.usage = chunks.Usage()
        self.context = thread.context_tokens
        self.pending: PendingApproval | None = None
        self.resolved = False
        self._next_step_id = new_id("step")

    async def execute(self) -> None:
        """Produce the whole run; never raises for scripted failures or cancellation."""
        self.run.status = "running"
        if self.request.include_pings:
            self.run.emit(chunks.ping(self.run.id, self.engine.date()))
        try:
            stop = await self._respond()
        except TurnFailed as failure:
            self._fail(failure)
        except TurnCancelled:
            self._cancelled()
        else:
            self.commit(stop)
            self.run.emit_frame(chunks.data_frame(chunks.stop_reason(stop)))
            self.run.emit_frame(chunks.data_frame(self.usage.chunk()))
            self.run.emit_frame(chunks.DONE_FRAME)
            self.run.finish("completed", stop, self.engine.clock())
        finally:
            if not self.run.finished:  # the task itself was cancelled (server stopping)
                self.run.finish("failed", "error", self.engine.clock())

    def commit(self, stop: str) -> None:
        """Store the staged rows and the run's effect on the thread and the agent."""
        now = self.engine.clock()
        self.thread.extend(self.rows)
        self.thread.last_message_at = now
        self.thread.context_tokens = self.context
        if self.resolved:
            self.thread.pending = None
        if self.pending is not None:
            self.thread.pending = self.pending
        self.agent.last_run_completion = self.agent.updated_at = now
        self.agent.last_run_duration_ms = int((now - self.run.created_at).total_seconds() * 1000)
        self.agent.last_stop_reason = stop

    # --- what the run does ---------------------------------------------------------------

    async def _respond(self) -> str:
        if self.request.approvals is not None:
            pending = self.thread.pending
            if pending is None:
                raise TurnFailed.internal(NO_PENDING)
            answered_only = not self.request.user_messages
            stop = await self._continue(pending, list(self.request.approvals), answered_only)
            if stop != "end_turn" or answered_only:
                return stop
        elif self.thread.pending is not None:
            raise TurnFailed.internal(CONFLICT, message=CONFLICT)
        for message in self.request.user_messages:
            origin = self._origin(new_message_id(), message.otid, self._next_step_id)
            self.rows.append(Row.of(origin.id, [chunks.user(origin, message.content)]))
            self.context += chunks.token_estimate(message.text) + 8
        reply = self.engine.script.reply(self.request.user_messages[-1].text,
                                         self.request.client_tools, model=self.agent.model)
        if reply.error is not None:
            await self._tick(self.engine.pacer.pause(FIRST_TOKEN_SECONDS))
            error = reply.error
            raise TurnFailed(error.stop_reason, error.error_type, error.message, error.detail)
        return await self._steps(reply.first, reply.pace)

    async def _continue(self, pending: PendingApproval, entries: list[Chunk],
                        follow_up: bool) -> str:
        """Record the answers; the agent follows up on the results unless a message of the
        user's came with them (it answers that instead, as Letta does)."""
        expected = [call_id for call_id, _ in pending.calls]
        received = [entry["tool_call_id"] for entry in entries]
        if received == [pending.row_id] and len(expected) == 1:  # legacy: the request's id
            entries = [{**entries[0], "tool_call_id": expected[0]}]
        elif set(received) != set(expected):
            raise TurnFailed.internal(
                f"Invalid tool call IDs. Expected '{expected}', but received '{received}'.")
        outcomes = self.record_decisions(pending, entries)
        self._store_decisions()
        if any(entry["type"] == "approval" and entry["approve"] for entry in entries):
            await self._tick(self.engine.pacer.pause(TOOL_SECONDS))
        if not follow_up:
            return "end_turn"
        return await self._steps(self.engine.script.follow_up(outcomes), 1.0)

    def _store_decisions(self) -> None:
        """Store the answers and their tool returns at once, as Letta does: they stay when
        the rest of the run is cancelled, and nothing waits for approval any more."""
        self.thread.extend(self.rows)
        self.rows = []
        self.thread.pending = None

    def record_decisions(self, pending: PendingApproval, entries: list[Chunk]) -> list[Outcome]:
        """Stage the approval response and the tool returns it leads to: approved calls run
        (their returns stream), denied ones get Letta's denial text, client returns are kept
        as sent. Entries must cover exactly the pending calls."""
        origin = self._origin(new_message_id(), None, None)
        self.rows.append(Row.of(origin.id, [chunks.approval_response(origin, entries)]))
        by_id = {entry["tool_call_id"]: entry for entry in entries}
        outcomes = []
        for call_id, call in pending.calls:
            entry = by_id[call_id]
            if entry["type"] == "tool":
                outcomes.append(Outcome(call, call_id, "client", entry["status"],
                                        str(entry["tool_return"]), entry["stdout"],
                                        entry["stderr"]))
            elif entry["approve"]:
                outcomes.append(_executed(call, call_id))
            else:
                outcomes.append(Outcome(call, call_id, "denied", "error",
                                        denial_text(entry["reason"]), reason=entry["reason"]))
        self._store_returns(pending.step_id, outcomes)
        self.resolved = True
        return outcomes

    async def _steps(self, step: Step, pace: float) -> str:
        for _ in range(self.request.max_steps):
            pairs = await self._stream_step(step, pace)
            if self.pending is not None:
                return "requires_approval"
            if not pairs:
                return "end_turn"
            await self._tick(self.engine.pacer.pause(TOOL_SECONDS))
            outcomes = [_executed(call, call_id) for call_id, call in pairs]
            for outcome in outcomes:
                _change_memory(self.agent, outcome.call)
            self._store_returns(self._last_step_id, outcomes)
            if all(call.ends_turn for _, call in pairs):
                return "end_turn"
            step = self.engine.script.follow_up(outcomes)
        return "max_steps"

    async def _stream_step(self, step: Step, pace: float) -> list[tuple[str, ScriptedCall]]:
        """Stream one LLM response and stage its row; return its ``(tool_call_id, call)``s.

        Deltas stream under the response's id; a row that asks for approval is stored under
        that id minus one, and so are its approval request deltas (with ``otid == id``).
        """
        message_id, step_id = new_message_id(), self._next_step_id
        self._last_step_id, self._next_step_id = step_id, new_id("step")
        ask = any(call.always_ask or self.agent.requires_approval(call.name)
                  for call in step.calls)
        row_id = previous_message_id(message_id) if ask else message_id
        pairs = [(new_tool_call_id(), call) for call in step.calls]
        parts: list[Chunk] = []
        prompt, completion, reasoning_tokens = self._prompt_tokens(), 0, 0
        await self._tick(self.engine.pacer.pause(FIRST_TOKEN_SECONDS))
        for build, text in ((chunks.reasoning, step.reasoning), (chunks.assistant, step.text)):
            if text:
                count = await self._deliver_text(build, text, parts, message_id, row_id,
                                                 step_id, pace)
                completion += count
                reasoning_tokens += count if build is chunks.reasoning else 0
        if pairs:
            records = [CallRecord(call.name, call.arguments_json, call_id)
                       for call_id, call in pairs]
            kind = "approval_request_message" if ask else "tool_call_message"
            otid = row_id if ask else part_otid(row_id, len(parts))
            parts.append(chunks.tool_calls_message(kind, self._origin(row_id, otid, step_id),
                                                   records))
            if ask:
                self.pending = PendingApproval(row_id, step_id, pairs, parts[-1])
            completion += await self._deliver_calls(parts[-1], records, pace)
        self.rows.append(Row.of(row_id, parts))
        self.usage.add_step(prompt, completion + 4, reasoning_tokens)
        self.run.steps.append(chunks.step_json(step_id, self.run.id, prompt, completion + 4,
                                               reasoning_tokens, self.agent.model))
        self.context = prompt + completion + 4
        return pairs

    def _prompt_tokens(self) -> int:
        """The context a step starts from. Past three quarters of the window the agent
        compacts its history (as Letta would) down to a third of the window."""
        if self.context > CONTEXT_WINDOW * 3 // 4:
            self.context = CONTEXT_WINDOW // 3
        return self.context

    async def _deliver_text(self, build: Callable[[Origin, str], Chunk], text: str,
                            parts: list[Chunk], message_id: str, row_id: str, step_id: str,
                            pace: float) -> int:
        """Stream a reasoning or assistant part word by word; stage it whole in ``parts``."""
        index = len(parts)
        parts.append(build(self._origin(row_id, part_otid(row_id, index), step_id), text))
        pieces = chunks.text_tokens(text)
        otid = part_otid(message_id, index)
        await self._deliver(parts[-1], (build(self._origin(message_id, otid, step_id), piece)
                                        for piece in pieces), pace)
        return len(pieces)

    async def _deliver_calls(self, full: Chunk, records: list[CallRecord], pace: float) -> int:
        """Stream tool calls (per call its name first, then argument fragments); return how
        many deltas that was."""
        build = (chunks.approval_delta if full["message_type"] == "approval_request_message"
                 else chunks.tool_call_delta)
        fragments = [chunks.json_fragments(record.arguments) for record in records]

        def deltas() -> Iterator[Chunk]:
            for record, pieces in zip(records, fragments, strict=True):
                yield build(self._origin(full["id"], full["otid"], full["step_id"]),
                            record.tool_call_id, name=record.name)
                for piece in pieces:
                    yield build(self._origin(full["id"], full["otid"], full["step_id"]),
                                record.tool_call_id, arguments=piece)

        await self._deliver(full, deltas(), pace)
        return sum(1 + len(pieces) for pieces in fragments)

    def _store_returns(self, step_id: str, outcomes: list[Outcome]) -> None:
        """Stage the tool return row; stream the returns of calls the server ran."""
        message_id = new_message_id()
        executed = [outcome for outcome in outcomes if outcome.kind == "executed"]
        name = executed[0].call.name if executed else None
        origin = self._origin(message_id, part_otid(message_id, 0), step_id, name)
        self.rows.append(Row.of(message_id, [chunks.tool_return(origin, _records(outcomes))]))
        if executed:
            self._send(chunks.tool_return(origin, _records(executed)))
        self.context += sum(chunks.token_estimate(outcome.tool_return) for outcome in outcomes)

    # --- emitting --------------------------------------------------------------------------

    async def _deliver(self, full: Chunk, deltas: Iterable[Chunk], pace: float) -> None:
        """Send ``deltas`` one by one (token mode) or ``full`` once (step mode)."""
        if not self.request.stream_tokens:
            self._send(full)
            await self._tick(self.engine.pacer.delta(pace))
            return
        for delta in deltas:
            self._send(delta)
            await self._tick(self.engine.pacer.delta(pace))

    def _send(self, chunk: Chunk) -> None:
        types = self.request.return_types
        if types is None or chunk["message_type"] in types:
            self.run.emit(chunk)

    async def _tick(self, delay: Awaitable[None]) -> None:
        await delay
        if self.run.cancel_requested:
            raise TurnCancelled

    def _origin(self, message_id: str, otid: str | None, step_id: str | None,
                name: str | None = None) -> Origin:
        return Origin(message_id, self.engine.date(), otid, step_id, self.run.id, name)

    def _fail(self, failure: TurnFailed) -> None:
        self.run.emit_frame(chunks.data_frame(chunks.stop_reason(failure.stop_reason)))
        self.run.emit_frame(chunks.error_frame(chunks.error_message(
            self.run.id, failure.error_type, failure.message, failure.detail)))
        self.run.emit_frame(chunks.DONE_FRAME)
        self.agent.last_stop_reason = failure.stop_reason
        self.run.finish("failed", failure.stop_reason, self.engine.clock())

    def _cancelled(self) -> None:
        self.run.emit_frame(chunks.CANCELLED_FRAME)
        if self.run.background:
            self.run.emit_frame(chunks.DONE_FRAME)
        self.agent.last_stop_reason = "cancelled"
        self.run.finish("cancelled", "cancelled", self.engine.clock())


def _change_memory(agent: AgentRecord, call: ScriptedCall) -> None:
    """A memory tool the server ran changes the agent's block, as Letta's do."""
    args, label = call.arguments, call.arguments.get("label")
    if label not in agent.blocks:
        return
    value = agent.blocks[label]
    if call.name in ("memory_insert", "core_memory_append"):
        added = str(args.get("new_string", args.get("content", "")))
        agent.blocks[label] = f"{value.rstrip()}\n{added}" if value else added
    elif call.name in ("memory_replace", "core_memory_replace"):
        old = str(args.get("old_string", args.get("old_content", "")))
        new = str(args.get("new_string", args.get("new_content", "")))
        agent.blocks[label] = value.replace(old, new, 1)
    elif call.name == "memory_rethink":
        agent.blocks[label] = str(args.get("new_memory", value))


def _executed(call: ScriptedCall, call_id: str) -> Outcome:
    return Outcome(call, call_id, "executed", call.status, call.output, [], list(call.stderr))


def _records(outcomes: list[Outcome]) -> list[ReturnRecord]:
    return [ReturnRecord(outcome.tool_call_id, outcome.status, outcome.tool_return,
                         outcome.stdout, outcome.stderr) for outcome in outcomes]
