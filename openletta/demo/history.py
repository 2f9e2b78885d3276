"""Rows that exist before anyone chats: the system prompt and generated histories.

A generated history of N rows repeats a ten-row cycle (user messages, answers with and
without reasoning, Markdown, a bash call and its return), aligned on the newest row so that
every page boundary at a multiple of ten rows falls between a tool call and its return:
with ``limit=50`` the oldest row of the newest page is a tool return whose call is on the
next (older) page. Rows build their messages only when a page needs them, so 10,000 rows
cost a few milliseconds.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from functools import partial

from openletta.demo import chunks
from openletta.demo.catalog import SYSTEM_PROMPT, AgentSpec
from openletta.demo.chunks import CallRecord, Chunk, Origin, ReturnRecord
from openletta.demo.ids import message_date, new_message_id, part_otid, synthetic_message_id
from openletta.demo.state import Row

ROW_SPACING = timedelta(seconds=45)
CYCLE = 10
LISTING = "README.md\nbuild.sh\npyproject.toml\nsrc\n\nexit status 0"


def system_row(spec: AgentSpec, moment: datetime) -> Row:
    """The first row of every thread: the compiled system prompt."""
    blocks = (f"<persona>\n{spec.persona}\n</persona>\n<human>\n{spec.human}\n</human>")
    message_id = new_message_id()
    origin = Origin(message_id, message_date(moment), None, None, None)
    return Row.of(message_id, [chunks.system(origin, SYSTEM_PROMPT.format(blocks=blocks))])


def compaction_row(summary: str, moment: datetime) -> Row:
    """The note a compaction stores, as Letta 0.16.8 words it: a ``system_alert`` packed in a
    user message, holding the summary."""
    note = ("Note: prior messages from the beginning of the conversation have been hidden "
            "from view due to conversation memory constraints.\nThe following is a summary "
            f"of the previous messages:\n {summary}")
    packet = {"type": "system_alert", "message": note,
              "time": moment.strftime("%Y-%m-%d %I:%M:%S %p UTC+0000")}
    message_id = new_message_id()
    origin = Origin(message_id, message_date(moment), None, None, None)
    return Row.of(message_id, [chunks.user(origin, json.dumps(packet, indent=2))])


def synthetic_rows(count: int, end: datetime) -> list[Row]:
    """``count`` rows for positions 1…count of a thread, the newest dated ``end``."""
    return [Row(synthetic_message_id(position), partial(_messages, position, count, end))
            for position in range(1, count + 1)]


def _kind(position: int, count: int) -> str:
    age = count - position  # 0 = newest
    slot = age % CYCLE
    if position == 1:
        return "user"
    if slot == CYCLE - 1:
        return "return" if position >= 3 else "user"
    if slot == 0:
        return "call" if age >= CYCLE else "answer"
    return {1: "user", 2: "answer", 3: "user", 4: "plain", 5: "user", 6: "markdown",
            7: "user", 8: "summary"}[slot]


def _messages(position: int, count: int, end: datetime) -> list[Chunk]:
    row_id = synthetic_message_id(position)
    date = message_date(end - ROW_SPACING * (count - position))
    cycle = (count - position) // CYCLE
    step_id = f"step-5eed0000-0000-4000-8000-{position:012x}"
    run_id = f"run-5eed0000-0000-4000-8000-{cycle:012x}"

    def origin(index: int, name: str | None = None) -> Origin:
        return Origin(row_id, date, part_otid(row_id, index), step_id, run_id, name)

    kind = _kind(position, count)
    if kind == "user":
        return [chunks.user(origin(0), f"Question {position}: what changed in round {cycle}?")]
    if kind == "plain":
        return [chunks.assistant(origin(0), f"Round {cycle} is quiet: nothing to report.")]
    if kind == "call":
        call = CallRecord("bash", '{"command": "ls"}', _call_id(position))
        return [chunks.reasoning(origin(0), "Listing the project to answer."),
                chunks.tool_calls_message("tool_call_message", origin(1), [call])]
    if kind == "return":
        result = ReturnRecord(_call_id(position - 1), "success", LISTING, [], [])
        return [chunks.tool_return(origin(0, "bash"), [result])]
    text = {"answer": f"In round {cycle} the build passed and the notes were updated.",
            "markdown": f"## Round {cycle}\n\n- tests: **green**\n- build: `ok`\n\n"
                        f"```bash\n./build.sh --round {cycle}\n```",
            "summary": "The listing shows `src/`, `build.sh` and the project files."}[kind]
    return [chunks.reasoning(origin(0), f"Answering about round {cycle}."),
            chunks.assistant(origin(1), text)]


def _call_id(position: int) -> str:
    return f"call_{position:024x}"
