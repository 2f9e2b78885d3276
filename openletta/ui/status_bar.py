"""The status bar: agent, model, connection state, last turn's usage and a context gauge."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from openletta.display import pictured_line, single_line
from openletta.transcript import Usage
from openletta.transcript.handlers import SILENCE_SECONDS
from openletta.ui.conversation_names import conversation_label
from openletta.ui.formatting import format_elapsed, format_tokens
from openletta.ui.renderers.base import one_line
from openletta.ui.textual_internals import KeptComponentStyles

GAUGE_CELLS = 5
#: The share of the context window from which the gauge says it is nearly full (the server
#: summarises older messages when it must; ``/compact`` does it at once).
NEARLY_FULL = 0.9
#: The most of a conversation's name shown; on a bar too narrow for it, at first.
NAME_WIDTH, SHORT_NAME_WIDTH = 24, 10
#: The clock of :attr:`StatusInfo.busy_since` (tests replace it with a frozen one).
clock: Callable[[], float] = time.monotonic
#: Seconds without anything arriving for the request in flight before its seconds show (the
#: silence a thought's duration leaves out).
QUIET_SECONDS = SILENCE_SECONDS
#: Stop reasons not worth showing.
NORMAL_STOPS = frozenset({"end_turn", "requires_approval"})
#: The state of a request in flight whose reply has not begun to arrive.
REPLY_AWAITED = "waiting for the agent"
#: Connection states and their marker.
STATES = {
    "connecting": "◌", "connected": "●", "streaming": "◉", "reconnecting": "◌",
    "reconnected": "◉", "offline": "○", REPLY_AWAITED: "◌",
    "approval needed": "⚠", "running tools": "⚒", "stopping": "◌",
}
#: The tone of each state, a component class of the bar (``status-bar--<tone>``); a state
#: not listed is shown in the ``ok`` tone.
TONES = {
    "streaming": "active", "reconnected": "active", "offline": "failed",
    "connecting": "waiting", "reconnecting": "waiting", "approval needed": "waiting",
    REPLY_AWAITED: "active",
    "running tools": "waiting", "stopping": "waiting",
}


@dataclass(frozen=True)
class StatusInfo:
    """Everything the status bar shows; its text fields hold one line of
    :class:`~openletta.display.DisplayText` whatever they are given."""

    agent_name: str = ""
    #: The open conversation's id; empty for the agent's default thread.
    conversation: str = ""
    #: Its name, if it has one; else the user's first message in it, if known (shown
    #: instead of the id).
    conversation_name: str = ""
    first_message: str = ""
    model: str = ""
    state: str = "connecting"
    #: ``time.monotonic()`` when the request in flight began; ``None`` when none is.
    busy_since: float | None = None
    demo: bool = False
    usage: Usage | None = None
    #: The newest size of the context known (not only this turn's), for the gauge.
    context_tokens: int | None = None
    #: Whether that size is the server's estimate (after a compaction), not a model's count.
    context_estimated: bool = False
    context_window: int | None = None
    #: Why the last turn stopped; shown unless it ended normally.
    stop_reason: str | None = None
    #: How local calls are approved (empty: no local tools), and where they run.
    permission_mode: str = ""
    workspace: str = ""
    #: The mode runs everything without asking: shown as a warning.
    unguarded: bool = False

    def __post_init__(self) -> None:
        for name in ("agent_name", "conversation", "conversation_name", "first_message",
                     "model", "state",
                     "stop_reason",
                     "permission_mode", "workspace"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, single_line(value))


def context_gauge(tokens: int, window: int, *, estimated: bool = False) -> str:
    """``▰▰▱▱▱ 12.3k/32k``: how full the context window is (``~12.3k/32k`` when
    ``estimated``; ``▰▰▰▰▰ 35.7k/30k over`` past it)."""
    filled = min(GAUGE_CELLS, round(GAUGE_CELLS * tokens / window)) if window > 0 else 0
    if tokens and not filled:
        filled = 1
    bar = "▰" * filled + "▱" * (GAUGE_CELLS - filled)
    over = " over" if context_fill(tokens, window) is ContextFill.OVER else ""
    return (f"{bar} {'~' if estimated else ''}{format_tokens(tokens, window)}/"
            f"{format_tokens(window)}{over}")


class ContextFill(StrEnum):
    """How full the context window is, as the gauge's colour says (:data:`FILL_CLASSES`)."""

    ROOMY = "roomy"
    NEARLY_FULL = "nearly-full"
    OVER = "over"


def context_fill(tokens: int, window: int) -> ContextFill:
    """Whether ``tokens`` leave room in ``window``, nearly fill it (past
    :data:`NEARLY_FULL` of it), or pass it."""
    if window <= 0 or tokens <= window * NEARLY_FULL:
        return ContextFill.ROOMY
    return ContextFill.OVER if tokens > window else ContextFill.NEARLY_FULL


#: The component class of the bar that colours the gauge, when the context is that full.
FILL_CLASSES = {ContextFill.NEARLY_FULL: "status-bar--nearly-full",
                ContextFill.OVER: "status-bar--over"}


@dataclass(frozen=True)
class BarStyles:
    """The styles of the bar's component classes: the state's tone, the unguarded mode's
    warning, and the gauge's by :class:`ContextFill`."""

    state: Style | str = ""
    warning: Style | str = ""
    fill: Mapping[ContextFill, Style | str] = field(default_factory=dict)


#: Not a part: where in :data:`KEEP_ORDER` the conversation's name is shortened.
NAME_IN_FULL = "name in full"
#: The parts of the status line, most important first. A bar too narrow for them all drops
#: parts from the end of this list (at :data:`NAME_IN_FULL` it shortens the conversation's
#: name instead); those it keeps stay in their places. In a side conversation, which one is
#: open matters more than all but the agent and the mode: it tells it from the default thread.
KEEP_ORDER = ("state", "agent", "mode", "conversation", "stop", "gauge", NAME_IN_FULL,
              "usage", "model", "workspace")


def status_text(info: StatusInfo, styles: BarStyles | None = None, *,
                now: float | None = None, width: int | None = None) -> Text:
    """The status line for ``info``, fitted to ``width`` cells if given (see
    :data:`KEEP_ORDER`; the state always stays). ``now`` is the :data:`clock`'s reading, for
    how long the request in flight has taken. Server text is plain text, never markup."""
    parts = status_parts(info, styles, now)
    for name in reversed(KEEP_ORDER[1:]):
        if width is None or sum(part.cell_len for part in parts.values()) <= width:
            break
        if name != NAME_IN_FULL:
            parts.pop(name, None)
        elif "conversation" in parts:
            parts["conversation"] = conversation_part(info, SHORT_NAME_WIDTH)
    return Text("").join(parts.values())


def conversation_part(info: StatusInfo, width: int = NAME_WIDTH) -> Text:
    """`` / name``: the open conversation's name (or what stands for it), cut to ``width``."""
    label = conversation_label(one_line(info.conversation_name, width), info.first_message,
                               width)
    return Text(f" / {one_line(label, width)}")


def status_parts(info: StatusInfo, styles: BarStyles | None = None,
                 now: float | None = None) -> dict[str, Text]:
    """The parts of :func:`status_text` by name, in the order they are shown, each with the
    space that leads it."""
    styles = styles or BarStyles()
    state = f"{STATES.get(info.state, '●')} {info.state}"
    if info.busy_since is not None and now is not None and now - info.busy_since >= 1:
        state += f" {format_elapsed(now - info.busy_since)}"
    parts = {"state": Text(f"{state} · demo" if info.demo else state, style=styles.state)}
    if info.agent_name:
        parts["agent"] = Text.assemble("  ", (info.agent_name, "bold"))
    if info.conversation:
        parts["conversation"] = conversation_part(info)
    if info.model:
        parts["model"] = Text(f" · {info.model}")
    usage = info.usage
    if usage is not None and (usage.total_tokens or usage.step_count):
        steps = "step" if usage.step_count == 1 else "steps"
        parts["usage"] = Text(f"   ↑{format_tokens(usage.prompt_tokens)} "
                              f"↓{format_tokens(usage.completion_tokens)} · "
                              f"{usage.step_count} {steps}")
    if info.stop_reason and info.stop_reason not in NORMAL_STOPS:
        parts["stop"] = Text(f"   stopped: {info.stop_reason.replace('_', ' ')}")
    if info.context_tokens and info.context_window:
        gauge = context_gauge(info.context_tokens, info.context_window,
                              estimated=info.context_estimated)
        fill = context_fill(info.context_tokens, info.context_window)
        parts["gauge"] = Text.assemble("   ", (gauge, styles.fill.get(fill, "")))
    if info.permission_mode:
        parts["mode"] = Text.assemble(
            "   ", (f"⚒ {info.permission_mode}", styles.warning if info.unguarded else ""))
        parts["workspace"] = Text(f" · {info.workspace}")
    return parts


def tone_class(state: str) -> str:
    """The component class that colours ``state``: ``status-bar--waiting``."""
    return f"status-bar--{TONES.get(state, 'ok')}"


class StatusBar(Widget):
    """One line of status, updated by setting :attr:`info`; a click opens ``/context``.

    The state is coloured by its tone's component class (:func:`tone_class`), so a new state
    repaints the line without styling the widget again. While a request is in flight the
    line shows how long it has taken whenever nothing has arrived for it for
    :data:`QUIET_SECONDS` (a silent model does not look stuck; a flowing reply needs no
    counter), looking once a second; nothing ticks otherwise.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "status-bar--ok", "status-bar--active", "status-bar--failed", "status-bar--waiting",
        "status-bar--warning", *FILL_CLASSES.values()}

    info: reactive[StatusInfo] = reactive(StatusInfo)
    """What to show; replace it (it is immutable) to update the bar."""

    _ticker: Timer | None = None
    #: When something last arrived for the request in flight, and whether the line shows
    #: its seconds now.
    _last_arrival = 0.0
    _counting = False
    _styles: KeptComponentStyles | None = None

    def watch_info(self, info: StatusInfo) -> None:
        if info.busy_since is None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        elif info.busy_since is not None and self._ticker is None:
            self._last_arrival = clock()
            self._ticker = self.set_interval(1.0, self._tick)

    def show_usage(self, usage: Usage, context_tokens: int | None, *,
                   estimated: bool = False) -> None:
        """Show the newest turn's usage and the context's size, ``estimated`` or counted
        (the line is drawn again only when they changed)."""
        info = self.info
        if (usage, context_tokens, estimated) != (info.usage, info.context_tokens,
                                                  info.context_estimated):
            self.info = replace(info, usage=usage, context_tokens=context_tokens,
                                context_estimated=estimated)

    def show_first_message(self, text: str | None) -> None:
        """Show ``text``, the user's first message, for a conversation without a name (the
        line is drawn again only when it changed)."""
        line = single_line(pictured_line(text or ""))
        if line != self.info.first_message:
            self.info = replace(self.info, first_message=line)

    def note_arrival(self) -> None:
        """Something arrived for the request in flight: no counter until it is quiet again."""
        self._last_arrival = clock()

    @property
    def ticking(self) -> bool:
        """Whether the bar looks at the clock every second (a request is in flight)."""
        return self._ticker is not None

    def _quiet(self) -> bool:
        return (self.info.busy_since is not None
                and clock() - self._last_arrival >= QUIET_SECONDS)

    def _tick(self) -> None:
        if self._counting or self._quiet():
            self.refresh()

    async def on_click(self) -> None:
        """A click on the bar (its context gauge) opens the context view."""
        await self.run_action("app.context")

    def status_line(self) -> Text:
        """The line as it is shown now (:func:`status_text` fitted to the bar)."""
        self._counting = self._quiet()
        if self._styles is None:
            self._styles = KeptComponentStyles(self)
        style = self._styles.rich_style
        styles = BarStyles(style(tone_class(self.info.state)), style("status-bar--warning"),
                           {fill: style(name) for fill, name in FILL_CLASSES.items()})
        return status_text(self.info, styles, now=clock() if self._counting else None,
                           width=self.size.width)

    def render_line(self, y: int) -> Strip:
        """The line drawn straight into segments over the bar's own style: Textual's way
        from a text to a line (its content model, wrapping) took a millisecond, at each of
        the line's changes (a few a turn)."""
        width, base = self.size.width, self.rich_style
        if y:
            return Strip.blank(width, base)
        segments = Segment.apply_style(self.status_line().render(self.app.console), base)
        return Strip(segments).adjust_cell_length(width, base)
