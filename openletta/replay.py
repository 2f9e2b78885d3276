"""``openletta replay``: print the transcript of a recorded stream or history page.

It is the debugging tool and the contract of the accumulator: the same code path the
TUI uses (SSE parsing → message models → :class:`~openletta.transcript.Transcript`),
printed with Rich or as JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from openletta.api import json_text
from openletta.api.messages import Message, parse_message
from openletta.api.sse import parse_sse_text
from openletta.display import (
    DisplayText,
    capped_lines,
    json_for_terminal,
    literal_text,
    pictured_text,
    plain_text,
)
from openletta.tools.output import seen_note, shown_ends
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    Transcript,
    UserItem,
)
from openletta.transcript.approval_notes import approval_note, denial_reason
from openletta.transcript.items import NOT_RUN_NOTE


class ReplayError(Exception):
    """Input that cannot be replayed; the message is shown as is."""


@dataclass
class Recording:
    messages: list[Message]
    #: A one-line description of what was wrong with the input, if anything (e.g. truncated).
    problem: str | None = None
    history: bool = False


def load_recording(path: Path) -> Recording:
    """Read a ``.sse`` capture or a ``.json`` page of messages."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ReplayError(f"no such file: {path}") from None
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror or error}") from None
    text = raw.decode("utf-8", errors="replace")
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("[", "{")):
        return _load_json(path, text)
    return _load_sse(path, text)


def _load_json(path: Path, text: str) -> Recording:
    try:
        data: Any = json_text.loads(text)
    except json_text.JSONTextError as error:
        raise ReplayError(f"{path} is not valid JSON: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]  # a non-streaming LettaResponse
    if not isinstance(data, list) or (data and not any(
            isinstance(entry, dict) and "message_type" in entry for entry in data)):
        raise ReplayError(f"{path} holds no list of messages")
    return Recording([parse_message(entry) for entry in data], history=True)


def _load_sse(path: Path, text: str) -> Recording:
    result = parse_sse_text(text)
    if not result.messages and result.ended is None:
        raise ReplayError(f"{path} is not a Letta SSE stream (no data: events found)")
    problem = None
    if result.ended is None:
        problem = f"{path}: stream ended without [DONE] or a stop reason (dropped connection)"
    return Recording(result.messages, problem=problem)


def build_transcript(recording: Recording) -> Transcript:
    transcript = Transcript()
    if recording.history:
        transcript.load_history(recording.messages)
    else:
        transcript.feed_all(recording.messages)
    return transcript


def transcript_json(transcript: Transcript, include_internal: bool = False) -> dict[str, Any]:
    """The ``--json`` shape: items, stop reason and usage."""
    return {
        "items": [item.to_json() for item in transcript.visible_items(include_internal)],
        "stop_reason": transcript.stop_reason,
        "usage": transcript.usage.to_json(),
    }


_STATUS_STYLE = {
    ToolStatus.SUCCESS: "green", ToolStatus.ERROR: "red", ToolStatus.DENIED: "red",
    ToolStatus.CANCELLED: "yellow", ToolStatus.NOT_RUN: "yellow",
    ToolStatus.AWAITING_APPROVAL: "bold yellow",
}


def render_item(item: Item, *, max_lines: int | None = None,
                call_summary: Callable[[ToolCallItem], str] | None = None) -> RenderableType:
    """A Rich renderable for one item; every piece of server text goes through
    :class:`DisplayText` (tool names and arguments through :func:`literal_text`; the user's
    own words through :func:`pictured_text`, as the chat shows them).
    ``max_lines``: lines of a user's message or of a tool's result or errors shown before the
    rest is left out; ``call_summary``: a call's arguments in one line (``$ ls``), shown in
    place of their JSON when it says anything."""
    if isinstance(item, UserItem):
        return Text.assemble(("› ", "bold cyan"), user_text(item.text, max_lines))
    if isinstance(item, ReasoningItem):
        return Text.assemble(("Thought: ", "dim bold"), plain_text(
            item.text or f"(reasoning {item.state or 'hidden'})", "dim italic"))
    if isinstance(item, AssistantItem):
        return Markdown(DisplayText(item.text), hyperlinks=False)
    if isinstance(item, ToolCallItem):
        summary = call_summary(item) if call_summary and item.arguments is not None else ""
        return _render_call(item, max_lines, summary)
    if isinstance(item, ErrorItem):
        body = plain_text(item.message, style="bold red")
        if item.detail:
            body.append("\n" + DisplayText(item.detail), style="red")
        return Panel(body, title=plain_text(item.error_type), border_style="red")
    if isinstance(item, EventItem):
        label, text = item.divider()
        return plain_text(f"── {label} ──" + (f"\n{text}" if text else ""), style="dim")
    if isinstance(item, SystemItem):
        return plain_text(f"[{item.subtype}] {item.text[:200]}", style="dim")
    return Text(item.kind)


def _render_call(item: ToolCallItem, max_lines: int | None, summary: str) -> RenderableType:
    arguments = summary or (json.dumps(item.arguments, indent=2, ensure_ascii=False)
                            if item.arguments is not None else item.arguments_text)
    parts: list[RenderableType] = [Text(literal_text(arguments))]
    if item.status is ToolStatus.NOT_RUN:
        parts.append(Text(NOT_RUN_NOTE, style="dim italic"))
    if item.status is ToolStatus.DENIED:  # in the card's words, not the server's
        if reason := denial_reason(item):
            parts.append(plain_text("reason: " + reason, style="italic"))
    elif item.result is not None:  # (a result of several lines starts on its own: columns)
        if max_lines is not None and (seen := seen_note(item.result)):
            parts.append(Text(seen, style="yellow"))  # (the note the result starts with)
        arrow = Text("→\n" if "\n" in item.result.strip("\n") else "→ ")
        parts.append(arrow + _ends(max_lines, item.result))
    if item.stderr:
        parts.append(_ends(max_lines, "".join(item.stderr), style="red"))
    title = Text.assemble((literal_text(item.name) or "tool", "bold"), "  ",
                          (item.status.label, _STATUS_STYLE.get(item.status, "cyan")),
                          (f"  {note}", "italic") if (note := approval_note(item)) else "")
    return Panel(Group(*parts), title=title, title_align="left",
                 border_style=_STATUS_STYLE.get(item.status, "cyan"))


def user_text(text: str, max_lines: int | None) -> Text:
    """The user's ``text`` as the chat shows it, cut to its first ``max_lines`` lines (if
    given) with a note of how many were left out."""
    lines, left_out = ([text], 0) if max_lines is None else capped_lines(text, max_lines)
    shown = Text(pictured_text("\n".join(lines)))
    if left_out:
        shown.append(f"\n… {left_out:,} more lines not shown", style="dim italic")
    return shown


def _ends(max_lines: int | None, output: str, style: str = "") -> Text:
    """A tool's ``output`` shown literally: its first and last lines, ``max_lines`` in all (if
    given), with the true count of the lines left out between them, as its card has them."""
    if max_lines is None:
        return plain_text(output, style)
    ends = shown_ends(output, max_lines)
    shown = plain_text("\n".join(ends.first), style)
    if (gap := ends.gap()) is not None:
        shown.append(f"\n{gap}\n", style="dim italic")
        shown.append_text(plain_text("\n".join(ends.last), style))
    return shown


def print_transcript(transcript: Transcript, console: Console, include_internal: bool) -> None:
    for item in transcript.visible_items(include_internal):
        console.print(render_item(item))
    usage = transcript.usage
    if transcript.stop_reason is not None or usage.step_count:  # (history has neither)
        console.print(plain_text(
            f"stop: {transcript.stop_reason or '—'} · tokens in {usage.prompt_tokens:,} / out "
            f"{usage.completion_tokens:,} · steps {usage.step_count}", style="dim"))


def run_replay(file: str, *, as_json: bool = False, include_internal: bool = False) -> int:
    """Entry point of ``openletta replay``; returns the exit status."""
    try:
        recording = load_recording(Path(file))
    except ReplayError as error:
        print(f"openletta replay: {error}", file=sys.stderr)
        return 2
    transcript = build_transcript(recording)
    if as_json:
        print(json_for_terminal(transcript_json(transcript, include_internal)))
    else:
        print_transcript(transcript, Console(), include_internal)
    if recording.problem:
        print(f"openletta replay: {recording.problem}", file=sys.stderr)
        return 2
    return 0
