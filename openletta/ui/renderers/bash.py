"""Shell commands: what the agent says the command does, the command highlighted, how much of
the output the agent got when not all of it, the output with its colours, stderr apart, exit
status."""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual.content import Content

from openletta.tools.output import seen_note
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    BAD,
    MUTED,
    OK,
    WARN,
    ToolRenderer,
    arg,
    code_block,
    finished_output,
    one_line,
    output_block,
    parse_json,
    without_error_prefix,
)

_EXIT_CODE = re.compile(
    r"^\s*(?:exit(?:ed)?(?: with)? (?:code|status)|return ?code)\s*[:=]?\s*(-?\d+)\s*[:.]?\s?",
    re.IGNORECASE | re.MULTILINE,
)
STDERR = "$text-error"
#: The agent's description of a command the user edited (it told of the agent's command).
EDITED_DESCRIPTION = "agent: {} (before your edit)"
#: Lines of a running command's output shown (its newest).
LIVE_LINES = 12


@dataclass
class ShellResult:
    """What a shell tool returned, taken apart."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None


def parse_result(item: ToolCallItem, output: str) -> ShellResult:
    """Split a shell tool's result into stdout, stderr and the exit code when it says one.

    Understands a JSON object (``stdout``/``stderr``/``exit_code``), the tool return's own
    ``stdout``/``stderr`` lists, and text saying ``exit code N`` or ``Exit status: N``.
    """
    data = parse_json(output)
    if isinstance(data, dict) and ({"stdout", "stderr", "output"} & data.keys()):
        code = next((data[key] for key in ("exit_code", "exitCode", "returncode", "status")
                     if isinstance(data.get(key), int)), None)
        return ShellResult(str(data.get("stdout") or data.get("output") or ""),
                           str(data.get("stderr") or ""), code)
    text = without_error_prefix(output) if item.status is ToolStatus.ERROR else output
    code = None
    if match := _EXIT_CODE.search(text):
        code = int(match[1])
        if match.start() == 0:
            text = text[match.end():]
    if item.stdout or item.stderr:
        return ShellResult("".join(item.stdout) or text, "".join(item.stderr), code)
    return ShellResult(text, "", code)


@register
class BashRenderer(ToolRenderer):
    """``bash`` and its aliases."""

    names = ("bash", "shell", "run_command", "execute_command", "run_shell_command",
             "client_bash")

    def summary(self, item: ToolCallItem) -> str:
        return one_line(arg(item, "command", "cmd") or "")

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        command = arg(item, "command", "cmd") or ""
        blocks: list[Content] = []
        if (description := (arg(item, "description") or "").strip()):  # the agent's words
            blocks.append(Content.styled(
                EDITED_DESCRIPTION.format(description) if item.edited else description, MUTED))
        blocks.append(Content.assemble(("$ ", MUTED), *code_block(command, "bash")))
        if seen := seen_note(item.result or ""):
            blocks.append(Content.styled(seen, WARN))
        output = finished_output(item)
        if output is None:
            if item.status is ToolStatus.RUNNING and item.stdout:
                blocks.extend(live_tail("".join(item.stdout)))
            elif item.status is ToolStatus.CANCELLED and item.stdout:  # what it printed stays
                blocks.extend(output_block("".join(item.stdout).rstrip("\n")))
                blocks.append(Content.styled("⊘ stopped before it finished", MUTED))
            return blocks
        result = parse_result(item, output)
        if result.stdout.strip():
            blocks.extend(output_block(result.stdout.rstrip("\n")))
        if result.stderr.strip():
            blocks.append(Content.styled("stderr", f"bold {STDERR}"))
            blocks.extend(output_block(result.stderr.rstrip("\n"), STDERR))
        blocks.append(_exit_line(item, result.exit_code))
        return blocks


def live_tail(output: str) -> list[Content]:
    """The last :data:`LIVE_LINES` lines of a command's output while it runs."""
    lines = output.rstrip("\n").split("\n")
    shown = output_block("\n".join(lines[-LIVE_LINES:]))
    if len(lines) > LIVE_LINES:
        shown.insert(0, Content.styled(f"… {len(lines) - LIVE_LINES:,} lines above", MUTED))
    return shown


def _exit_line(item: ToolCallItem, code: int | None) -> Content:
    failed = item.status is ToolStatus.ERROR or (code is not None and code != 0)
    mark = ("✗", BAD) if failed else ("✓", OK)
    if code is None:
        return Content.assemble(mark, (" failed" if failed else " done", MUTED))
    return Content.assemble(mark, (f" exit {code}", MUTED))
