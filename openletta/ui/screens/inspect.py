"""Inspectors over the chat: how the context window is spent (``/context``), and the runs of a
turn with their steps (``/run``, or Enter on a turn's footer). Read-only views, Esc closes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.messages import ApprovalRequestMessage, Message, ToolCallMessage
from openletta.api.resources import ContextWindow, Run, Step, StepMetrics
from openletta.chat.declared_tools import CHARS_PER_TOKEN, DeclaredTools
from openletta.chat.session import ChatSession
from openletta.display import DisplayText, plain_text
from openletta.ui.conversation_names import DEFAULT_THREAD_NAME, conversation_label
from openletta.ui.formatting import format_elapsed, format_tokens, short_id
from openletta.ui.hanging import hanging_content
from openletta.ui.key_bar import KeyBar
from openletta.ui.reading_scroll import ReadingScroll
from openletta.ui.status_bar import NEARLY_FULL

#: The gauges' length when the width is not known yet, and the least they keep.
BAR_CELLS = 24
LEAST_BAR_CELLS = 4
#: How often, and how far apart, the run inspector asks for step timings not recorded yet.
METRICS_TRIES = 10
METRICS_RETRY_SECONDS = 1.0
MUTED = "$text-muted"
#: Why the context's figures differ from the status bar's gauge.
ESTIMATE_NOTE = ("These are the server's estimates of what it would send now; the status bar "
                 "shows what the model counted for the last request, or this estimate, "
                 "marked ~, when the context was compacted since.")


def context_rows(window: ContextWindow) -> list[tuple[str, int]]:
    """What fills the context window, part by part (parts of 0 tokens left out)."""
    rows = [
        ("System prompt", window.num_tokens_system),
        ("Tool definitions", window.num_tokens_functions_definitions),
        ("Tool rules", window.num_tokens_tool_usage_rules),
        ("Core memory", window.num_tokens_core_memory),
        ("Files", window.num_tokens_memory_filesystem + window.num_tokens_directories),
        ("Memory summary", window.num_tokens_external_memory_summary),
        ("Conversation summary", window.num_tokens_summary_memory),
        (f"Messages ({window.num_messages:,})", window.num_tokens_messages),
    ]
    return [(label, tokens) for label, tokens in rows if tokens]


def bar(part: int, whole: int, cells: int = BAR_CELLS) -> str:
    """``▰▰▱▱…`` for ``part`` of ``whole`` (one cell at least for a part that is not 0)."""
    filled = min(cells, round(cells * part / whole)) if whole > 0 else 0
    filled = max(filled, 1 if part else 0)
    return "▰" * filled + "▱" * (cells - filled)


#: A context this full gets a word on how to make room (the status bar's gauge says so too).
FULL_SHARE = NEARLY_FULL
FULL_NOTE = ("The context is nearly full or over: the server summarises older messages when it "
             "must, and /compact does it now.")


#: The row of openletta's own tools, which the server's count leaves out.
LOCAL_TOOLS_LABEL = "Local tools (openletta)"


def local_tools_note(local: DeclaredTools) -> str:
    """What the local tools' row is, and that its figure is an estimate."""
    return (f"~ {LOCAL_TOOLS_LABEL}: {', '.join(local.names)}, declared with every request "
            "beside the agent's tools; the server does not count them. An estimate: "
            f"{local.characters:,} characters of definitions at {CHARS_PER_TOKEN} a token.")


def context_text(window: ContextWindow, width: int = 0,
                 local: DeclaredTools | None = None) -> Content:
    """The context window as a gauge per part, their sum, and the server's own total; the
    gauges as long as ``width`` cells allow (when given). ``local``: the tools this client
    declares in its requests, a part (an estimate, marked ~) the server does not count."""
    whole = window.context_window_size_max or window.context_window_size_current
    rows = [(label, tokens, "") for label, tokens in context_rows(window)]
    counted = sum(tokens for _, tokens, _ in rows)
    if local is not None:
        rows.append((LOCAL_TOOLS_LABEL, local.tokens, "~"))
    total = counted + (local.tokens if local is not None else 0)
    mark = "~" if local is not None else ""
    label_width = max((len(label) for label, _, _ in rows), default=10)
    in_use = (f"{f'{mark}{total:,}':>8} of {whole:,} tokens ({total / whole:.0%})" if whole
              else "")
    cells = max(LEAST_BAR_CELLS, width - label_width - 4 - len(in_use)) if width else BAR_CELLS
    lines = [Content.assemble((f"{label:<{label_width}}  ", "bold"), bar(tokens, whole, cells),
                              (f"  {f'{estimated}{tokens:,}':>8}", ""),
                              (f"  {tokens / whole:5.1%}" if whole else "", MUTED))
             for label, tokens, estimated in rows]
    lines.append(Content.styled(
        f"{'In use':<{label_width}}  {bar(total, whole, cells)}  {in_use}" if whole
        else f"In use: {mark}{total:,} tokens", "bold"))
    if window.context_window_size_current != counted:
        without = " (without the local tools)" if local is not None else ""
        lines.append(Content.styled(f"The server counts {window.context_window_size_current:,} "
                                    f"in all{without}.", MUTED))
    if whole and total > whole * FULL_SHARE:
        lines.append(Content.styled(FULL_NOTE, "bold"))
    if local is not None:
        lines.append(Content.styled(local_tools_note(local), MUTED))
    lines.append(Content.styled(ESTIMATE_NOTE, MUTED))
    return Content("\n").join(lines)


def calls_by_step(messages: Sequence[Message]) -> dict[str, list[str]]:
    """The tools each step called, by step id, from a run's stored messages."""
    calls: dict[str, list[str]] = {}
    for message in messages:
        if isinstance(message, ToolCallMessage | ApprovalRequestMessage) and message.step_id:
            calls.setdefault(message.step_id, []).extend(
                call.name for call in message.tool_calls if call.name)
    return calls


def run_text(run: Run, steps: Sequence[Step],
             calls: Mapping[str, Sequence[str]] | None = None,
             metrics: Mapping[str, StepMetrics] | None = None, width: int = 0) -> Content:
    """One run: its status and timing, then a line per step with its tokens (and, when known,
    how long it took and the tools it called); a step's line too long for ``width`` cells
    goes on under its text, not under its number."""
    lines = [Content.assemble(("Run ", MUTED), (DisplayText(run.id), "bold"),
                              (f"  {run.status or 'unknown'}", ""),
                              (f" · {(run.stop_reason or '').replace('_', ' ')}"
                               if run.stop_reason else "", MUTED))]
    timing = _timing(run)
    if timing:
        lines.append(Content.styled(timing, MUTED))
    if not steps:
        lines.append(Content.styled("No steps recorded.", MUTED))
    for number, step in enumerate(steps, start=1):
        tokens = [f"↑{format_tokens(step.prompt_tokens or 0)}",
                  f"↓{format_tokens(step.completion_tokens or 0)}"]
        if step.cached_input_tokens:
            tokens.append(f"cached {format_tokens(step.cached_input_tokens)}")
        if step.reasoning_tokens:
            tokens.append(f"reasoning {format_tokens(step.reasoning_tokens)}")
        lines.append(hanging_content(Content.styled(f"  step {number}  ", "bold"), Content.assemble(
            DisplayText(step.model_handle or step.model or ""), f"  {' · '.join(tokens)}",
            (f"  {(step.stop_reason or step.status or '').replace('_', ' ')}", MUTED)), width))
        if (took := _step_timing((metrics or {}).get(step.id))) is not None:
            lines.append(Content.styled(f"          {took}", MUTED))
        if called := (calls or {}).get(step.id):
            lines.append(hanging_content(Content.styled("          called ", MUTED),
                                         Content(DisplayText(", ".join(called))), width))
    return Content("\n").join(lines)


def _step_timing(metrics: StepMetrics | None) -> str | None:
    """``took 0.14s (model 0.12s, tool 0.30s)`` for a step whose metrics are known."""
    if metrics is None or not metrics.step_ns:
        return None
    parts = [f"{label} {nanoseconds / 1e9:.2f}s" for label, nanoseconds in (
        ("model", metrics.llm_request_ns), ("tool", metrics.tool_execution_ns)) if nanoseconds]
    detail = f" ({', '.join(parts)})" if parts else ""
    return f"took {metrics.step_ns / 1e9:.2f}s{detail}"


def _timing(run: Run) -> str:
    parts = []
    if run.created_at is not None:
        parts.append(f"started {run.created_at.astimezone():%H:%M:%S}")
    seconds = _seconds(run.total_duration_ns) or _between(run.created_at, run.completed_at)
    if seconds is not None:
        parts.append(f"took {format_elapsed(seconds) if seconds >= 1 else f'{seconds:.2f}s'}")
    if (first := _seconds(run.ttft_ns)) is not None:
        parts.append(f"first token after {first:.2f}s")
    return " · ".join(parts)


def _seconds(nanoseconds: int | None) -> float | None:
    return nanoseconds / 1e9 if nanoseconds else None


def _between(start: datetime | None, end: datetime | None) -> float | None:
    return (end - start).total_seconds() if start and end else None


class InspectScreen(ModalScreen[None]):
    """A read-only view loaded from the server when it opens."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Close")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title
        self._body = Static("Loading…", classes="inspect-body")

    def compose(self) -> ComposeResult:
        with ReadingScroll(classes="inspect-box"):
            yield Static(plain_text(self._title), classes="inspect-title")
            yield self._body
            yield Static("Esc closes", classes="inspect-hint")
        yield KeyBar()

    def show(self, content: Content | str) -> None:
        self._body.update(content)


class ContextScreen(InspectScreen):
    """``/context``: how the agent's context window is spent in the open conversation."""

    def __init__(self, client: LettaClient, agent_id: str, agent_name: str,
                 conversation_id: str | None = None, conversation_name: str | None = None,
                 window_seen: Callable[[int], None] | None = None,
                 local: DeclaredTools | None = None) -> None:
        """``conversation_name``: how the conversation is called (else its id is shown);
        ``window_seen``: told the size of the window the server says the agent has;
        ``local``: the tools the chat's requests declare (shown as a part of their own)."""
        conversation = conversation_name or (short_id(conversation_id) if conversation_id
                                             else None)
        where = f" in {conversation}" if conversation else ""
        super().__init__(f"Context window of {agent_name}{where}")
        self.client, self.agent_id, self.conversation_id = client, agent_id, conversation_id
        self._window: ContextWindow | None = None
        self._window_seen = window_seen
        self._local = local

    @classmethod
    def of(cls, session: ChatSession, window_seen: Callable[[int], None] | None = None
           ) -> ContextScreen:
        """The context window of the conversation ``session`` has open."""
        agent, conversation = session.agent, session.conversation_id
        name = session.conversation_name
        where = (f"the {DEFAULT_THREAD_NAME}" if conversation is None else f"“{name}”" if name
                 else conversation_label(None, session.first_message))  # (that one is quoted)
        local = DeclaredTools.of(session.client.declarable(session.client_tools))
        return cls(session.client, agent.id, agent.name or agent.id, conversation, where,
                   window_seen, local)

    def on_mount(self) -> None:
        self.load()

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_window)

    @work(exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        try:
            self._window = await self.client.get_context(self.agent_id, self.conversation_id)
        except LettaError as error:
            self.show(Content(DisplayText(f"The server did not say: {error.message}")))
            return
        self._show_window()
        if self._window_seen is not None and self._window.context_window_size_max:
            self._window_seen(self._window.context_window_size_max)

    def _show_window(self) -> None:
        """The context window, its gauges as wide as the view."""
        if self._window is not None:
            self.show(context_text(self._window, self._body.content_region.width, self._local))


class RunScreen(InspectScreen):
    """The runs of a turn and their steps (``/run``, Enter on a turn's footer)."""

    def __init__(self, client: LettaClient, run_ids: Sequence[str],
                 model_seen: Callable[[str | None], object] = lambda _model: None) -> None:
        """``model_seen``: told the model the newest step read ran on."""
        super().__init__("Runs of this turn" if len(run_ids) > 1 else "Run of this turn")
        self.client, self.run_ids = client, list(run_ids)
        self._model_seen = model_seen
        #: Each run read (or why it could not be), and the steps' timings read so far.
        self._runs: list[Content | tuple[Run, list[Step], dict[str, list[str]]]] = []
        self._metrics: dict[str, StepMetrics] = {}

    def on_mount(self) -> None:
        self.load()

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_runs)

    def _show_runs(self) -> None:
        """The runs read, their steps' lines wrapped at the view's width."""
        if self._runs:
            width = self._body.content_region.width
            self.show(Content("\n\n").join(
                entry if isinstance(entry, Content) else run_text(*entry, self._metrics, width)
                for entry in self._runs))

    @work(exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        """Show the runs, then their steps' timings; Letta records a step's timing a moment
        after the step, so timings missing just after a turn are asked for again."""
        if not self.run_ids:
            self.show("No run is known for this turn.")
            return
        runs = self._runs
        for run_id in self.run_ids:
            try:
                run = await self.client.get_run(run_id)
                steps = await self.client.list_run_steps(run_id)
                messages = await self.client.list_run_messages(run_id)
            except LettaError as error:
                runs.append(Content(DisplayText(f"Run {run_id}: {error.message}")))
                continue
            runs.append((run, steps, calls_by_step(messages)))
        steps = [step for entry in runs if isinstance(entry, tuple) for step in entry[1]]
        if steps:
            self._model_seen(steps[-1].model_handle or steps[-1].model)
        metrics = self._metrics
        for attempt in range(METRICS_TRIES):
            if attempt:
                await asyncio.sleep(METRICS_RETRY_SECONDS)
            metrics.update(await self._read_metrics(
                [step for step in steps if _step_timing(metrics.get(step.id)) is None]))
            self._show_runs()
            if not metrics or all(_step_timing(metrics.get(step.id)) for step in steps):
                return  # no timings from this server, or all of them

    async def _read_metrics(self, steps: Sequence[Step]) -> dict[str, StepMetrics]:
        """Each step's timing; none once the server cannot say (older servers, the demo)."""
        found: dict[str, StepMetrics] = {}
        for step in steps:
            try:
                found[step.id] = await self.client.get_step_metrics(step.id)
            except LettaError:
                break
        return found
