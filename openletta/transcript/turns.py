"""Per-turn figures for the footer under each turn: when it ended, how long, tokens, steps.

A turn runs from a user message to the next one. Live, the figures come from the clock and
``usage_statistics`` (one per request: a turn that paused for approval makes several); from
history, from the messages' dates and distinct ``step_id`` values (history has no usage: its
runs' tokens are read from the runs). A turn may be both: one reopened while it waited for
approval began in history and goes on live. Its figures are kept per run, so that each run
counts once, by its usage if it streamed here, else by its steps and its run's tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeGuard

from openletta.api import messages as m
from openletta.transcript.items import Item, TurnFooterItem, UserItem

_NOT_THE_AGENTS = (m.UserMessage, m.SystemMessage, m.Ping)


def _by_the_agent(message: m.Message) -> TypeGuard[m.LettaMessage]:
    """Whether ``message`` is one of the agent's (and so has a date, a step and a run)."""
    return _THE_AGENTS[type(message)]


class _AgentsKinds(dict[type, bool]):
    """Whether messages of a class are the agent's, by class. Asked of every chunk: the
    answer for each class is kept (it takes four slow isinstance(): pydantic's are ABCs)."""

    def __missing__(self, kind: type) -> bool:
        answer = issubclass(kind, m.LettaMessage) and not issubclass(kind, _NOT_THE_AGENTS)
        self[kind] = answer
        return answer


_THE_AGENTS = _AgentsKinds()


@dataclass
class TurnStats:
    """What is known about one turn so far."""

    #: Date of the user's message, when it came from history.
    started: datetime | None = None
    #: Monotonic clock reading when the user sent the message live.
    live_started: float | None = None
    live_seconds: float | None = None
    #: When the turn ended live, by the wall clock: its end when none of its messages has a
    #: date (an error that came before any token).
    live_ended: datetime | None = None
    #: The runs of the turn, in the order they were seen (a turn paused for approval has
    #: several).
    run_ids: list[str] = field(default_factory=list)
    #: Whether the turn has an answer or an end: a message of the agent's, an error, or a
    #: stop (Esc, a broken stream). Only then does it get a footer.
    answered: bool = False
    #: Read from history: the turn ended when the user stopped its local calls, a moment
    #: the server did not record (its calls' results are dated when the agent was told).
    interrupted: bool = False
    footer: TurnFooterItem | None = None
    #: Per run (``None``: messages without one): its steps and its latest message's date,
    #: so that a run found to be the next turn's can be left out (:meth:`disown`).
    run_steps: dict[str | None, set[str]] = field(default_factory=dict)
    run_ended: dict[str | None, datetime] = field(default_factory=dict)
    #: Per run (``None``: usage that came before any message named its run): the tokens
    #: counted, from the usage it streamed here or read from the run afterwards.
    run_tokens: dict[str | None, int] = field(default_factory=dict)
    #: Per run read from the server: when it began and ended, to the microsecond (the
    #: messages' dates are whole seconds).
    run_spans: dict[str, tuple[datetime, datetime]] = field(default_factory=dict)
    #: Its runs the server could not tell of: their tokens are not waited for (the turn's
    #: count stays unknown).
    unreadable: set[str] = field(default_factory=set)
    #: Per run that streamed here: the steps its usage counted.
    usage_steps: dict[str | None, int] = field(default_factory=dict)
    #: The run streaming now: the usage at the end of its stream is its.
    streaming: str | None = None
    #: The run, step and date :meth:`observe` took last (all of them counted since).
    _last_seen: tuple[str | None, str | None, Any] | None = field(
        default=None, repr=False, compare=False)

    def observe(self, message: m.Message, *, live: bool = False) -> None:
        """Take the date and step of a message of the agent's that belongs to this turn
        (``live``: it streamed here, so its run's usage will too)."""
        if not _by_the_agent(message):
            return
        # Asked of every chunk of a reply: few lookups, nothing built when nothing is new.
        self.answered = True
        run = message.run_id or None
        if live and run:
            self.streaming = run
        # A call's result is filed under the step that asked for the call: not a step of its.
        step = None if type(message) is m.ToolReturnMessage else message.step_id
        seen = (run, step, message.sent_date)  # the date as sent: not read yet
        if seen == self._last_seen:  # as the chunk before said (nearly every chunk)
            return
        self._last_seen = seen
        if (date := message.date) is not None:
            last = self.run_ended.get(run)
            if last is None or date > last:
                self.run_ended[run] = date
        if step:
            if (steps := self.run_steps.get(run)) is None:
                self.run_steps[run] = {step}
            else:
                steps.add(step)
        if run and run not in self.run_ids:
            self.run_ids.append(run)

    def disown(self, run_id: str | None) -> None:
        """Leave out ``run_id``: it is the next turn's (its user message says so), though the
        server filed some of its messages before that message (the result of a call
        interrupted here, sent with the next message)."""
        if not run_id or run_id not in self.run_ids:
            return
        self.run_ids.remove(run_id)
        self._last_seen = None
        for per_run in (self.run_steps, self.run_ended, self.run_tokens, self.usage_steps,
                        self.run_spans):
            per_run.pop(run_id, None)

    def observe_end(self, run_id: str | None) -> None:
        """An error or a stop ended the turn (maybe before any token): it is an answer (the
        turn gets a footer) from ``run_id``."""
        self.answered = True
        if run_id and run_id not in self.run_ids:
            self.run_ids.append(run_id)

    def add_usage(self, usage: m.UsageStatistics) -> None:
        """Count the usage of the run streaming (one request of the turn)."""
        run = self.streaming
        self.run_tokens[run] = self.run_tokens.get(run, 0) + usage.total_tokens
        self.usage_steps[run] = self.usage_steps.get(run, 0) + usage.step_count

    def add_run_tokens(self, tokens: Mapping[str, int]) -> list[str]:
        """Count the tokens read from runs of the turn whose usage it lacks; returns the
        runs counted (a run counted already, or not the turn's, is left)."""
        counted = [run for run in self.unread_runs if run in tokens]
        for run in counted:
            self.run_tokens[run] = tokens[run]
        return counted

    @property
    def unread_runs(self) -> list[str]:
        """The turn's runs whose tokens are not counted (they did not stream here)."""
        return [run for run in self.run_ids
                if run not in self.run_tokens and run not in self.unreadable]

    @property
    def tokens(self) -> int | None:
        """The turn's tokens, once every run's are counted."""
        if self.unread_runs or not self.run_tokens or self.unreadable.intersection(self.run_ids):
            return None
        return sum(self.run_tokens.values())

    @property
    def steps(self) -> int | None:
        """The steps the usage of runs that streamed here counted, and the distinct steps of
        the other runs' messages."""
        others = [run for run in self.run_steps if run not in self.usage_steps]
        return sum(self.usage_steps.values()) + self.steps_of(others) or None

    def steps_of(self, runs: Iterable[str | None]) -> int:
        """How many distinct steps the messages of ``runs`` name."""
        return len(set().union(*(self.run_steps.get(run, set()) for run in runs)))

    def absorb_earlier(self, earlier: TurnStats) -> None:
        """Join the start of this turn, found on an older history page."""
        self.started = earlier.started or self.started
        self.run_ids = [*earlier.run_ids,
                        *(run for run in self.run_ids if run not in earlier.run_ids)]
        self.answered = self.answered or earlier.answered
        self.interrupted = self.interrupted or earlier.interrupted
        for run, steps in earlier.run_steps.items():
            self.run_steps.setdefault(run, set()).update(steps)
        for run, date in earlier.run_ended.items():
            self.run_ended[run] = max(date, self.run_ended.get(run, date))
        for run, tokens in earlier.run_tokens.items():
            self.run_tokens.setdefault(run, tokens)
        self.run_spans = {**earlier.run_spans, **self.run_spans}
        self.unreadable |= earlier.unreadable

    @property
    def ended(self) -> datetime | None:
        """Date of the turn's latest message (without one: when it ended live, if it did)."""
        return max(self.run_ended.values(), default=self.live_ended)

    @property
    def duration(self) -> float | None:
        if self.live_seconds is not None:
            return self.live_seconds
        if self.interrupted:
            return None  # (its end is not known)
        if self.run_ids and all(run in self.run_spans for run in self.run_ids):
            spans = [self.run_spans[run] for run in self.run_ids]
            begun, ended = min(span[0] for span in spans), max(span[1] for span in spans)
            return max(0.0, (ended - begun).total_seconds())
        if self.started is not None and self.ended is not None:
            return max(0.0, (self.ended - self.started).total_seconds())
        return None

    def fill(self, footer: TurnFooterItem) -> None:
        """Write the figures into the turn's footer item."""
        footer.date = self.ended
        footer.duration = self.duration
        footer.tokens = self.tokens
        footer.steps = self.steps
        footer.run_ids = tuple(self.run_ids)
        footer.unread_runs = tuple(self.unread_runs)


def opening_prompt(items: Sequence[Item], run_id: str) -> str | None:
    """The message in the bubble that starts the turn whose footer names ``run_id`` first."""
    footer = next((index for index in range(len(items) - 1, -1, -1)
                   if isinstance(item := items[index], TurnFooterItem)
                   and item.run_ids[:1] == (run_id,)), None)
    for item in reversed(items[:footer] if footer is not None else ()):
        if isinstance(item, (TurnFooterItem, UserItem)):
            return item.text if isinstance(item, UserItem) else None
    return None
