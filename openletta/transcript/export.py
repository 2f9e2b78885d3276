"""A transcript as a readable Markdown document (pure: no I/O).

User turns start with ``## You`` and the agent's part with ``## Agent``. The user's text
keeps its line breaks. Assistant text is kept as written (it is Markdown already), its
headings two levels down, under those of the transcript; reasoning becomes a blockquote; a
tool call gets a heading with its name and status and fenced arguments and result; errors
and events become notes. Control characters are dropped so the file is safe to ``cat``;
fences are always longer than any run of backticks they enclose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from openletta.api import json_text
from openletta.display import DisplayText
from openletta.told import seen_by_agent, told_before_note
from openletta.transcript.approval_notes import approval_note
from openletta.transcript.items import (
    NOT_RUN_NOTE,
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    UserItem,
)

_BACKTICKS = re.compile(r"`+")
#: An ATX heading's marks, and a code fence's (with what may follow them).
_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: Items that belong to the agent's part of a turn (notes do not open one).
_AGENT_ITEMS = (ReasoningItem, AssistantItem, ToolCallItem)


@dataclass(frozen=True)
class Document:
    """An export: its Markdown and how many of the items (messages) it holds."""

    markdown: str
    messages: int


def to_markdown(items: Iterable[Item], title: str, include_internal: bool = False) -> str:
    """The conversation ``items`` as Markdown under the heading ``title``."""
    return to_document(items, title, include_internal).markdown


def to_document(items: Iterable[Item], title: str, include_internal: bool = False) -> Document:
    """The conversation ``items`` as Markdown under the heading ``title``, and how many of
    them it holds (an item that renders as nothing, such as empty reasoning, is not one)."""
    blocks = [f"# {_one_line(title)}"]
    in_agent_part = False
    messages = 0
    for item in items:
        if item.internal and not include_internal:
            continue
        if isinstance(item, UserItem):
            in_agent_part = False
        elif isinstance(item, _AGENT_ITEMS) and not in_agent_part:
            blocks.append("## Agent")
            in_agent_part = True
        renderer = _RENDERERS.get(type(item))
        block = renderer(item) if renderer is not None else ""
        messages += bool(block)
        blocks.append(block)
    return Document("\n\n".join(block for block in blocks if block) + "\n", messages)

def _user(item: UserItem) -> str:
    """The user's text with its line breaks (hard breaks: a line typed alone stays so), a
    ``#`` that starts a line shown as typed, not as a heading."""
    lines = [_HEADING.sub(r"\1\\\2", line) for line in _clean(item.text).strip().split("\n")]
    return "## You\n\n" + "\n".join(
        f"{line}  " if line.strip() and following.strip() else line
        for line, following in zip(lines, [*lines[1:], ""], strict=True))


def _assistant(item: AssistantItem) -> str:
    return _demoted(_clean(item.text).strip())


def _reasoning(item: ReasoningItem) -> str:
    if item.hidden:
        return _quote(f"*Reasoning hidden ({item.state or 'not shown'})*")
    if not item.text.strip():
        return ""
    return _quote(f"**Reasoning**\n\n{_clean(item.text).strip()}")


def _tool_call(item: ToolCallItem) -> str:
    name = _code_span(_one_line(item.name) or "unnamed tool")
    parts = [f"### Tool call: {name} ({str(item.status).replace('_', ' ')})"]
    if item.needs_approval and (approval := _approval(item)):
        parts.append(approval)
    if item.edited and item.asked_arguments_text:
        parts.append("The agent asked for:\n\n" + _arguments(item.asked_arguments_text))
    if item.arguments is not None:
        label = "Arguments (as run)" if item.edited else "Arguments"
        parts.append(f"{label}:\n\n" + _arguments(item.arguments_text))
    elif item.arguments_text:
        parts.append("Arguments (incomplete):\n\n" + _fenced(item.arguments_text))
    if item.status is ToolStatus.NOT_RUN:
        parts.append(f"*{NOT_RUN_NOTE}*")
    parts.extend(_results(item))
    return "\n\n".join(parts)


def _arguments(text: str) -> str:
    """Arguments' JSON text fenced, laid out when it is JSON."""
    value = json_text.loads_or_none(text)
    if value is None:
        return _fenced(text)
    return _fenced(json.dumps(value, indent=2, ensure_ascii=False), "json")


def _results(item: ToolCallItem) -> list[str]:
    """What the call returned, each text once: a result holding the whole output stands for
    it; an output cut for the agent is written whole, with a line of what the agent got."""
    output, result = "".join(item.stdout), item.result
    parts = []
    if result is not None and output.strip() and (seen := seen_by_agent(result)):
        told = told_before_note(result)
        told = f"{_code_span(_one_line(told))} and " if told else ""
        parts.append(f"Output:\n\n{_fenced(output)}")
        parts.append(f"*The agent was told {told}only the {seen} of this output "
                     f"(its context window holds no more).*")
    else:
        if result is not None:
            parts.append("Result:\n\n" + _fenced(result))
        if output.strip() and (result is None or output.strip() not in result):
            parts.append("Output:\n\n" + _fenced(output))
    if item.stderr:
        parts.append("Errors:\n\n" + _fenced("".join(item.stderr)))
    return parts


def _approval(item: ToolCallItem) -> str:
    """How the call was answered, by the rule its card uses (:func:`approval_note`): a call
    run here and read back from history has no answer but its result's (an edit's note)."""
    if item.approved is False:
        reason = f" Reason: {_one_line(item.reason)}" if item.reason else ""
        return f"*Denied.{reason}*"
    note = approval_note(item)
    if item.approved is None and not note:  # a call run here was answered by running it
        return "*Waiting for approval.*" if item.status is ToolStatus.AWAITING_APPROVAL else ""
    return f"*{(note or 'approved').capitalize()}.*"


def _error(item: ErrorItem) -> str:
    text = f"**Error** ({_one_line(item.error_type)}): {_clean(item.message).strip()}"
    if item.detail:
        text += f"\n\n{_clean(item.detail).strip()}"
    return _quote(text)


def _event(item: EventItem) -> str:
    label = _one_line(item.title)
    return _quote(f"**{label}:** {_clean(item.text).strip()}")


def _system(item: SystemItem) -> str:
    return f"### System ({_one_line(item.subtype)})\n\n{_fenced(item.text)}"


_I = TypeVar("_I", bound=Item)
_Renderer = Callable[[Any], str]


def _renderer(cls: type[_I], render: Callable[[_I], str]) -> tuple[type[Item], _Renderer]:
    """One :data:`_RENDERERS` entry; checks that ``render`` takes items of class ``cls``
    (a dict's type cannot tie each value's argument to its key)."""
    return cls, render


_RENDERERS: dict[type[Item], _Renderer] = dict([
    _renderer(UserItem, _user),
    _renderer(AssistantItem, _assistant),
    _renderer(ReasoningItem, _reasoning),
    _renderer(ToolCallItem, _tool_call),
    _renderer(ErrorItem, _error),
    _renderer(EventItem, _event),
    _renderer(SystemItem, _system),
])


# --- Markdown helpers ---------------------------------------------------------------------

def _clean(text: str) -> str:
    """Text from outside as it is shown: escape sequences and controls gone whole, secrets
    hidden (:class:`~openletta.display.DisplayText`)."""
    return str(DisplayText(text))


def _one_line(text: str) -> str:
    return " ".join(_clean(text).split())


def _quote(text: str) -> str:
    """``text`` as a blockquote, every line marked (so nothing escapes it)."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _demoted(markdown: str) -> str:
    """``markdown`` with its ATX headings two levels down (at most ``######``), fenced code
    left as it is: a reply's own ``#`` does not outrank the transcript's headings."""
    lines, fence = markdown.split("\n"), ""
    for index, line in enumerate(lines):
        if (opening := _FENCE.match(line)) is not None:
            marks = opening.group(1)
            if not fence:
                fence = marks
            elif marks[0] == fence[0] and len(marks) >= len(fence) and not line.strip(
                    )[len(marks):].strip():
                fence = ""
        elif not fence and (heading := _HEADING.match(line)) is not None:
            level = min(6, len(heading.group(2)) + 2)
            lines[index] = heading.group(1) + "#" * level + line[heading.end(2):]
    return "\n".join(lines)


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def _fenced(text: str, language: str = "") -> str:
    """A fenced code block holding ``text`` exactly (after dropping control characters)."""
    body = _clean(text)
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{fence}{language}\n{body}{fence}"


def _code_span(text: str) -> str:
    ticks = "`" * (_longest_backtick_run(text) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


def default_export_name(agent_name: str, now: datetime) -> str:
    """``openletta-<agent>-<timestamp>.md`` with the agent name made file-safe."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in agent_name) or "agent"
    return f"openletta-{safe}-{now.strftime('%Y%m%d-%H%M%S')}.md"
