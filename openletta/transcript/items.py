"""Display items: what the transcript is made of, independent of any UI.

Items are small mutable dataclasses. The accumulator creates them and mutates them as
chunks arrive; a UI keeps one widget per item (by ``key``) and refreshes it when the
accumulator reports the item as changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from openletta.api import json_text
from openletta.transcript.growing_text import GrowingText


class ToolStatus(StrEnum):
    """Life cycle of a tool call: ``streaming → awaiting_approval | running → final``."""

    STREAMING = "streaming"
    AWAITING_APPROVAL = "awaiting_approval"
    RUNNING = "running"
    #: Not run yet: the run stopped to wait for the approval of another call of its step.
    WAITING = "waiting"
    SUCCESS = "success"
    ERROR = "error"
    DENIED = "denied"
    #: Stopped by the user (Esc) or with the run cancelled.
    CANCELLED = "cancelled"
    #: The turn ended without running it (the agent runs one call per step, or failed).
    NOT_RUN = "not_run"

    @property
    def is_final(self) -> bool:
        return self in _FINAL_STATUSES

    @property
    def label(self) -> str:
        """The status in words, as a card's badge shows it."""
        return _STATUS_LABELS[self]


_STATUS_LABELS = {
    ToolStatus.STREAMING: "streaming…",
    ToolStatus.AWAITING_APPROVAL: "awaiting approval",
    ToolStatus.RUNNING: "running",
    ToolStatus.WAITING: "waiting",
    ToolStatus.SUCCESS: "✓ success",
    ToolStatus.ERROR: "✗ error",
    ToolStatus.DENIED: "⊘ denied",
    ToolStatus.CANCELLED: "cancelled",
    ToolStatus.NOT_RUN: "not run",
}
#: Why a call did not run, said with it wherever it shows (its card, the printout, an export).
NOT_RUN_NOTE = ("Not run: the agent runs one call at a time (or its step ended first); it "
                "may ask for it again.")
#: A call with one of these has not run, nor will it run unless the run goes on.
UNSETTLED_STATUSES = (ToolStatus.STREAMING, ToolStatus.RUNNING, ToolStatus.WAITING)
_FINAL_STATUSES = {ToolStatus.SUCCESS, ToolStatus.ERROR, ToolStatus.DENIED, ToolStatus.CANCELLED,
                   ToolStatus.NOT_RUN}


_TEXT = GrowingText()
_ARGUMENTS_TEXT = GrowingText()


@dataclass(eq=False)
class Item:
    """Base of all display items. ``key`` is unique within a transcript."""

    kind: ClassVar[str] = "item"
    key: str
    date: datetime | None = None
    #: Internal items (system prompt, login/system_alert packets) are hidden by default.
    internal: bool = False

    def to_json(self) -> dict[str, Any]:
        """The item as the JSON shape of ``openletta replay --json``."""
        return {"kind": self.kind}


@dataclass(eq=False)
class UserItem(Item):
    kind: ClassVar[str] = "user"
    text: str = ""
    otid: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text}


@dataclass(eq=False)
class SystemItem(Item):
    """The system prompt or a packed system note (login, heartbeat, system_alert)."""

    kind: ClassVar[str] = "system"
    text: str = ""
    subtype: str = "system"
    internal: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "subtype": self.subtype, "text": self.text}


@dataclass(eq=False)
class StreamedTextItem(Item):
    """An item whose text streams in: reasoning or a reply."""

    text: GrowingText = _TEXT
    #: True once no more text will come.
    done: bool = False

    def append(self, part: str) -> None:
        """Add a streamed part to the text."""
        _TEXT.append(self, part)

    def text_since(self, start: int) -> str:
        """The text from ``start`` on (cheap for what arrived since a reader last looked)."""
        return _TEXT.since(self, start)

    @property
    def text_length(self) -> int:
        return _TEXT.length(self)


@dataclass(eq=False)
class ReasoningItem(StreamedTextItem):
    kind: ClassVar[str] = "reasoning"
    hidden: bool = False
    #: ``redacted`` or ``omitted`` for hidden reasoning.
    state: str | None = None
    #: Seconds the thought streamed, when live: from its first chunk to its last, less each
    #: silence between two chunks long enough to read as waiting (``SILENCE_SECONDS``).
    duration: float | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "text": self.text, "hidden": self.hidden}
        if self.state:
            data["state"] = self.state
        return data


@dataclass(eq=False)
class AssistantItem(StreamedTextItem):
    kind: ClassVar[str] = "assistant"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text}


@dataclass(eq=False)
class ToolCallItem(Item):
    kind: ClassVar[str] = "tool_call"
    tool_call_id: str = ""
    name: str = ""
    arguments_text: GrowingText = _ARGUMENTS_TEXT
    status: ToolStatus = ToolStatus.STREAMING
    #: Whether the server asked for approval of this call.
    needs_approval: bool = False
    result: str | None = None
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    #: ``True`` approved, ``False`` denied, ``None`` not decided (or no approval needed).
    approved: bool | None = None
    reason: str | None = None
    #: Set when the client approved the call on its own (a "don't ask again" rule).
    auto_approved: bool = False
    #: The user edited the arguments before approving the call (they are what ran).
    edited: bool = False
    #: The arguments the agent asked for, when the user edited them before the call ran.
    asked_arguments_text: str | None = None
    #: The call is of a tool this client runs, on this machine (not on the server).
    runs_here: bool = False
    #: A client sent the call's result (it ran on a client's machine, not on the server).
    client_result: bool = False
    #: That client was this machine's openletta (in this run or before).
    ran_here: bool = False
    #: What the call would change, shown before it is approved (a unified diff).
    preview: str | None = None
    _parsed: Any = field(default=None, repr=False)
    _parsed_from: str | None = field(default=None, repr=False)
    _begun: ToolCallItem | None = field(default=None, repr=False)
    _begun_from: str | None = field(default=None, repr=False)

    def append_arguments(self, part: str) -> None:
        """Add a streamed fragment to the arguments' JSON text."""
        _ARGUMENTS_TEXT.append(self, part)

    @property
    def arguments(self) -> dict[str, Any] | None:
        """The arguments once they form a valid JSON object, else ``None`` (still streaming)."""
        if self._parsed_from != (text := self.arguments_text):
            self._parsed_from = text
            # Text still streaming seldom ends as an object does: not read (twice, to fail).
            value = json_text.loads_or_none(text) if text.rstrip().endswith("}") else None
            self._parsed = value if isinstance(value, dict) else None
        return self._parsed

    def so_far(self) -> ToolCallItem:
        """The call as far as its arguments have arrived: while they stream, a copy whose
        ``arguments`` are the object they begin (its last string cut where the text stops,
        :func:`~openletta.api.json_text.loads_partial`); else the call itself, as also while
        not even a key of them is whole."""
        if self.status is not ToolStatus.STREAMING or self.arguments is not None:
            return self
        if self._begun_from != (text := self.arguments_text):  # asked for by title and body
            begun = json_text.loads_partial(text)
            self._begun_from, self._begun = text, (
                replace(self, _parsed=begun, _parsed_from=text, _begun=None)
                if isinstance(begun, dict) and begun else None)
        return self._begun or self

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "arguments": self.arguments,
            "status": str(self.status),
            "result": self.result,
            "stdout": list(self.stdout),
            "stderr": list(self.stderr),
        }
        if self.arguments is None and self.arguments_text:
            data["arguments_text"] = self.arguments_text
        if self.needs_approval:
            data["approved"] = self.approved
            data["reason"] = self.reason
        if self.edited:
            data["edited"] = True
        return data


@dataclass(eq=False)
class ErrorItem(Item):
    kind: ClassVar[str] = "error"
    error_type: str = "error"
    message: str = ""
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "error_type": self.error_type, "message": self.message,
                "detail": self.detail}


#: The ``event_type`` of the summary a compaction stored in the thread (read from history).
COMPACTION_SUMMARY = "compaction_summary"
#: The ``event_type`` of the divider above a reply that was going when this client followed it.
FOLLOWING_EVENT = "following"
#: Titles of the event types named for the code, not for the user (any other type is
#: titled by its name in words: :func:`event_title`).
EVENT_TITLES = {FOLLOWING_EVENT: "Reply already started"}


def event_title(event_type: str) -> str:
    """What a user reads as the name of an event of ``event_type``: "Compaction summary"."""
    return EVENT_TITLES.get(event_type) or event_type.replace("_", " ").strip().capitalize() \
        or "Event"


#: Longest note that goes on an event's divider itself; longer text goes below it.
DIVIDER_LABEL_WIDTH = 60


@dataclass(eq=False)
class EventItem(Item):
    """A compaction event or a summary: shown as a thin divider."""

    kind: ClassVar[str] = "event"
    event_type: str = "compaction"
    text: str = ""

    @property
    def is_summary(self) -> bool:
        """Whether the text is a summary of the conversation (not a note about the event)."""
        return self.event_type in ("summary", COMPACTION_SUMMARY)

    def divider(self) -> tuple[str, str]:
        """What its divider says on the line, and under it: a short note goes on the line;
        a summary (or a long text) under a line that names the event."""
        text = self.text.strip()
        if not self.is_summary and "\n" not in text and len(text) <= DIVIDER_LABEL_WIDTH:
            return text or self.title, ""
        return self.title, text

    @property
    def title(self) -> str:
        """The event's name: "Compaction summary" (:func:`event_title`)."""
        return event_title(self.event_type)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "event_type": self.event_type, "text": self.text}


@dataclass
class Usage:
    """Token usage of one turn, summed over its requests (a turn that paused for approval
    makes several); ``context_tokens`` is the newest snapshot."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    step_count: int = 0
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    context_tokens: int | None = None

    def plus(self, request: Usage) -> Usage:
        """This usage and one more request's."""
        return Usage(
            prompt_tokens=self.prompt_tokens + request.prompt_tokens,
            completion_tokens=self.completion_tokens + request.completion_tokens,
            total_tokens=self.total_tokens + request.total_tokens,
            step_count=self.step_count + request.step_count,
            reasoning_tokens=_sum_known(self.reasoning_tokens, request.reasoning_tokens),
            cached_input_tokens=_sum_known(self.cached_input_tokens,
                                           request.cached_input_tokens),
            context_tokens=(self.context_tokens if request.context_tokens is None
                            else request.context_tokens),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "step_count": self.step_count,
            "context_tokens": self.context_tokens or 0,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_input_tokens": self.cached_input_tokens,
        }


def _sum_known(first: int | None, second: int | None) -> int | None:
    """The sum of two counts a server may leave out (``None`` when both are)."""
    return None if first is None and second is None else (first or 0) + (second or 0)


@dataclass(eq=False)
class TurnFooterItem(Item):
    """The quiet line under a finished turn; ``date`` is when the turn's last message came."""

    kind: ClassVar[str] = "footer"
    #: Seconds from the user's message to the end of the turn, when known.
    duration: float | None = None
    tokens: int | None = None
    steps: int | None = None
    #: The runs of the turn (its inspector shows them).
    run_ids: tuple[str, ...] = ()
    #: Its runs whose tokens are still to be read from them (history has no usage): until
    #: they are, ``tokens`` is ``None``.
    unread_runs: tuple[str, ...] = ()
    #: The server kept nothing of the turn, the user's message included (Letta drops a
    #: cancelled or failed run whole): the agent will not see it.
    unkept: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "duration": self.duration, "tokens": self.tokens,
                "steps": self.steps, "unkept": self.unkept}
