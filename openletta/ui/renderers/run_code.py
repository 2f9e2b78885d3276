"""Code run in a sandbox: the code highlighted, then its output, results, stderr and error.

Letta 0.16's ``run_code`` returns ``{"results": […], "logs": {"stdout": […], "stderr": […]},
"error"?: …}``; ``run_code_with_tools`` returns ``{"status": …, "func_return": …, "stdout":
[…], "stderr": […]}``. Any other result is shown as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.content import Content

from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import register
from openletta.ui.renderers.base import (
    BAD,
    MUTED,
    OK,
    ToolRenderer,
    arg,
    code_block,
    error_block,
    finished_output,
    one_line,
    output_block,
    parse_json,
    raw_arg,
    without_error_prefix,
)
from openletta.ui.renderers.conversation_search import as_text

_KEYS = frozenset({"results", "logs", "stdout", "stderr", "func_return", "error"})


@dataclass
class CodeRun:
    """What a ``run_code`` call returned, taken apart."""

    stdout: str = ""
    stderr: str = ""
    results: list[str] = field(default_factory=list)
    error: str = ""
    failed: bool = False


def parse_run(output: str) -> CodeRun | None:
    """``output`` taken apart, or ``None`` when it is not such a JSON object."""
    data = parse_json(output)
    if not isinstance(data, dict) or not _KEYS & data.keys():
        return None
    logs = data["logs"] if isinstance(data.get("logs"), dict) else data
    results = data.get("results", data.get("func_return"))
    error = data.get("error")
    if isinstance(error, dict):  # e2b's ExecutionError: name, value, traceback
        error = error.get("traceback") or f"{error.get('name', 'Error')}: {error.get('value', '')}"
    return CodeRun(_joined(logs.get("stdout")), _joined(logs.get("stderr")),
                   [as_text(result) for result in _listed(results)],
                   as_text(error) if error else "", bool(error) or data.get("status") == "error")


@register
class RunCodeRenderer(ToolRenderer):
    """``run_code``: code in a language, run on the server's sandbox."""

    names = ("run_code", "run_code_with_tools", "execute_code")

    def summary(self, item: ToolCallItem) -> str:
        return one_line(f"{arg(item, 'language') or 'python'}  {arg(item, 'code') or ''}")

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        blocks = code_block(raw_arg(item, "code") or "", arg(item, "language") or "python",
                            literal=True)
        output = finished_output(item)
        if output is None:
            return blocks
        if item.status is ToolStatus.ERROR:
            return [*blocks, error_block(without_error_prefix(output))]
        run = parse_run(output)
        if run is None:
            return [*blocks, *output_block(output.rstrip("\n") or "(no output)")]
        if run.stdout.strip():
            blocks.extend(output_block(run.stdout.rstrip("\n")))
        for result in filter(str.strip, run.results):
            blocks.append(Content.styled("result", f"bold {MUTED}"))
            blocks.extend(output_block(result.rstrip("\n")))
        if run.stderr.strip():
            blocks.append(Content.styled("stderr", f"bold {BAD}"))
            blocks.extend(output_block(run.stderr.rstrip("\n"), BAD))
        if run.error:
            blocks.append(error_block(run.error))
        blocks.append(Content.assemble(("✗", BAD), (" failed", MUTED)) if run.failed
                      else Content.assemble(("✓", OK), (" done", MUTED)))
        return blocks


def _listed(value: Any) -> list[Any]:
    """``value`` as a list: ``None`` as none, a single value as one."""
    return [] if value is None else value if isinstance(value, list) else [value]


def _joined(value: Any) -> str:
    """Streamed output (a list of chunks, or text) as one text."""
    return "".join(map(as_text, _listed(value)))
