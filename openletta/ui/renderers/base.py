"""The renderer base class and the building blocks renderers share.

Renderers are stateless: a tool call item in, one summary line and a list of
:class:`~textual.content.Content` blocks out. Every piece of server text goes through
:mod:`openletta.display` and into ``Content`` objects, never into markup. Arguments, what
the user approves, are read with :func:`arg`, which shows their control and invisible
characters instead of interpreting them. Styles name theme variables (``$text-success``),
so dark and light themes both work.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from textual.content import Content
from textual.highlight import highlight

from openletta.api import json_text
from openletta.display import (
    DisplayText,
    capped_lines,
    has_hidden_characters,
    head_lines,
    literal_text,
    pictured_text,
    terminal_text,
)
from openletta.tools.output import shown_ends
from openletta.transcript import ToolCallItem, ToolStatus

#: Lines of one text block beyond which the rest is left out (keeps rendering cheap).
MAX_LINES = 400
#: Width of a summary line before it is cut with "…".
SUMMARY_WIDTH = 80

#: What CSS calls ``$text-muted`` (in a content style that variable does not resolve: its
#: value is ``auto 60%``, and ``auto`` needs a background to contrast with).
MUTED = "$text 60%"
OK = "$text-success"
BAD = "$text-error"
WARN = "$text-warning"
ADDED = "$text-success on $success-muted"
REMOVED = "$text-error on $error-muted"

_ERROR_PREFIX = re.compile(r"^Error executing function [\w.-]+: (?:[\w.]+: )?")


class ToolRenderer:
    """Shows one kind of tool call. Subclasses set ``names`` and override what they need."""

    #: Tool names (and aliases) this renderer handles; matched case-insensitively.
    names: ClassVar[tuple[str, ...]] = ()

    #: Whether the summary's subject is a path: cut, it keeps its end (the file's name).
    subject_is_path: ClassVar[bool] = False

    def summary(self, item: ToolCallItem) -> str:
        """One line describing the call (its arguments, as far as they arrived while they
        stream); called once a key of them is whole."""
        return ""

    def summary_parts(self, item: ToolCallItem) -> tuple[str, str]:
        """The summary as its subject (a path, a command), kept longest on a narrow line,
        and details that go first (a size, lines changed; with their separator): the
        summary is the two joined."""
        return self.summary(item), ""

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        """Blocks shown under the title; ``width`` is the card's width in cells."""
        return []


class ResultRenderer(ToolRenderer):
    """A tool whose card shows its result only: nothing until it ran, the error when it
    failed, else :meth:`result`."""

    def body(self, item: ToolCallItem, width: int) -> list[Content]:
        output = finished_output(item)
        if output is None:
            return []
        if item.status is ToolStatus.ERROR:
            return failure_blocks(item, output)
        return self.result(item, output, width)

    def result(self, item: ToolCallItem, output: str, width: int) -> list[Content]:
        """Blocks for the result ``output`` of a call that ran well."""
        raise NotImplementedError


# --- reading items ------------------------------------------------------------------------


def arg(item: ToolCallItem, *names: str) -> str | None:
    """The first of the arguments ``names`` that is present, as text to show: control and
    invisible characters pictured (``␍``, ``␛``, ``⟨U+200B⟩``), so what is shown is exactly
    what the tool gets."""
    value = raw_arg(item, *names)
    return None if value is None else literal_text(value)


def raw_arg(item: ToolCallItem, *names: str) -> str | None:
    """The first of the arguments ``names`` that is present, as the tool gets it (for sizes
    and counts; show it with :func:`arg`)."""
    arguments = item.arguments or {}
    for name in names:
        value = arguments.get(name)
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return None


def has_hidden_characters_in_call(item: ToolCallItem) -> bool:
    """Whether the call's name or arguments hold characters that are shown pictured: the
    call may not be what it seems at first sight."""
    if has_hidden_characters(item.name):
        return True
    if item.arguments is None:
        return has_hidden_characters(item.arguments_text)
    return any(has_hidden_characters(text) for text in _strings(item.arguments))


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, entry in value.items():
            yield key
            yield from _strings(entry)
    elif isinstance(value, list):
        for entry in value:
            yield from _strings(entry)


def finished_output(item: ToolCallItem) -> str | None:
    """The tool's result once it ran (``None`` while pending, when denied or cancelled)."""
    if item.status in (ToolStatus.SUCCESS, ToolStatus.ERROR):
        return item.result or ""
    return None


def without_error_prefix(result: str) -> str:
    """``result`` without Letta's ``Error executing function x: SomeError:`` preamble."""
    return _ERROR_PREFIX.sub("", result, count=1)


def parse_json(text: str | None) -> Any:
    """``text`` parsed as a JSON object or array, else ``None``."""
    if not text or text.lstrip()[:1] not in ("{", "["):
        return None
    return json_text.loads_or_none(text)


def one_line(text: str, width: int = SUMMARY_WIDTH) -> str:
    """The first line of ``text`` (clean), cut to ``width`` cells with "…" when longer."""
    lines = DisplayText(text).strip().split("\n")
    line = lines[0]
    if len(lines) > 1 or len(line) > width:
        line = line[: width - 1].rstrip() + "…"
    return line


# --- building blocks ----------------------------------------------------------------------


class LeftOut(Content):
    """A note that lines were left out of a card's body; :attr:`lines` says how many (the
    card's fold counts them)."""

    lines: int = 0


def more_note(count: int, what: str = "lines") -> Content:
    """A dim "… N more lines not shown" line."""
    note = Content.styled(f"… {count:,} more {what} not shown", f"italic {MUTED}")
    return _left_out(note, count) if what == "lines" else note


def _left_out(note: Content, lines: int) -> LeftOut:
    marked = LeftOut(note.plain, list(note.spans))
    marked.lines = lines
    return marked


def uncounted(blocks: list[Content]) -> list[Content]:
    """``blocks`` with each note of lines left out saying only that some are (its count is
    kept for the card's fold): while a call streams, the count would change with every
    fragment, and a body that does not change is not drawn again."""
    return [_left_out(_UNCOUNTED, block.lines) if isinstance(block, LeftOut) else block
            for block in blocks]


_UNCOUNTED = Content.styled("… more lines not shown", f"italic {MUTED}")


def lines_left_out(blocks: list[Content]) -> int:
    """How many lines the notes among ``blocks`` stand for, beyond the one each takes."""
    return sum(block.lines - 1 for block in blocks if isinstance(block, LeftOut))


def code_block(code: str, language: str, *, line_numbers: bool = False, start: int = 1,
               limit: int = MAX_LINES, literal: bool = False) -> list[Content]:
    """Syntax-highlighted code (clean of escapes), optionally with a line-number gutter.
    ``literal``: every control character shown (:func:`~openletta.display.literal_text`),
    in the lines shown only."""
    after = 0
    if literal:
        code, after = head_lines(code, limit)
    lines, left_out = capped_lines(literal_text(code) if literal else DisplayText(code), limit)
    left_out += after
    blocks = [_code_content("\n".join(lines), len(lines), language,
                            start if line_numbers else None)]
    if left_out:
        blocks.append(more_note(left_out))
    return blocks


@functools.lru_cache(maxsize=32)
def _code_content(code: str, count: int, language: str, first_number: int | None) -> Content:
    """The ``count`` lines of ``code`` highlighted as ``language``, in a gutter numbered from
    ``first_number`` (``None``: none). Made once for the same code (a streaming file's first
    lines are the same at every sync of its card; a card is drawn again)."""
    highlighted = highlight(code, language=language).split("\n")[:count]
    if first_number is not None:
        width = len(str(first_number + count - 1))
        highlighted = [Content.assemble((f"{number:>{width}} │ ", MUTED), line)
                       for number, line in enumerate(highlighted, first_number)]
    return Content("\n").join(highlighted)


def output_block(text: str, style: str = "", *, limit: int = MAX_LINES,
                 both_ends: bool = True, literal: bool = False,
                 pictured: bool = False) -> list[Content]:
    """Tool output with its SGR colours kept and every other escape removed: its first and
    last lines when long, or cut where it was captured, with a note between them of how many
    lines that leaves out (:func:`~openletta.tools.output.shown_ends`, as on exit).
    ``both_ends=False``: an excerpt, its first lines only. ``literal``: not a terminal's
    output (paths, lines of files): every control character shown (``␛``), none applied, so
    that a name cannot pass for another. ``pictured``: a memory block's text, pictured as
    the memory panel pictures it (:func:`~openletta.display.pictured_text`)."""
    def shown(lines: list[str]) -> Content:
        if pictured:
            return Content.styled(pictured_text("\n".join(lines)), style)
        if literal:
            return Content.styled(literal_text("\n".join(lines)), style)
        return Content.from_rich_text(terminal_text("\n".join(lines))).stylize_before(style)

    if not both_ends:
        lines, left_out = capped_lines(text, limit)
        return [shown(lines), *([more_note(left_out)] if left_out else [])]
    ends = shown_ends(text, limit)
    blocks = [shown(ends.first)]
    if (gap := ends.gap()) is not None:
        note = _left_out(Content.styled(gap, f"italic {MUTED}"), ends.left_out)
        blocks.extend([note, shown(ends.last)])
    return blocks


def labelled(label: str, value: str, style: str = "") -> Content:
    """``label: value`` with a dim label; ``value`` shown literally."""
    return Content.assemble((f"{label} ", MUTED), (DisplayText(value), style))


def error_block(message: str) -> Content:
    """An error message from the tool, in the error colour."""
    return Content.styled(DisplayText(message).rstrip(), BAD)


def failure_blocks(item: ToolCallItem, output: str) -> list[Content]:
    """A failed call's error, then what it wrote to stderr (often the traceback), dim."""
    blocks = [error_block(without_error_prefix(output))]
    stderr = "".join(item.stderr).strip("\n")
    if stderr.strip() and stderr.strip() != output.strip():
        blocks.extend([Content.styled("stderr", MUTED), *output_block(stderr, MUTED)])
    return blocks


#: A call that ended with one of these changed nothing: it failed, was denied, or never ran.
UNMADE_STATUSES = frozenset({ToolStatus.ERROR, ToolStatus.DENIED, ToolStatus.NOT_RUN})


def unmade_change(item: ToolCallItem, not_made: str, intended: str,
                  change: list[Content]) -> list[Content]:
    """The change a call did not make (its status in :data:`UNMADE_STATUSES`): first its error,
    ``✗ Not written: …`` (``not_made``), then ``change`` dimmed under ``intended``; a call
    denied or not run says ``Not written.`` only (the card gives the denial below)."""
    if item.status is not ToolStatus.ERROR:  # denied or not run: the card says so below
        return [Content.styled(f"{not_made}. {intended}:", f"italic {MUTED}"),
                *(block.stylize("dim") for block in change)]
    message = DisplayText(without_error_prefix(item.result or "")).rstrip()
    blocks = [Content.assemble((f"✗ {not_made}", f"bold {BAD}"),
                               (f": {message}" if message else "", BAD))]
    if change:
        blocks.append(Content.styled(f"{intended}:", f"italic {MUTED}"))
        blocks.extend(block.stylize("dim") for block in change)
    return blocks


def json_block(value: Any) -> list[Content]:
    """A parsed JSON value pretty-printed and highlighted, every character shown literally."""
    return code_block(json.dumps(value, indent=2, ensure_ascii=False), "json", literal=True)
