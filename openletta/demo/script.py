"""The demo agent's scripted replies, chosen by keywords in the user's message.

A :class:`Reply` is the first LLM step (reasoning, text, tool calls) plus how fast it
streams; after tool calls run (or are denied) :meth:`Script.follow_up` writes the next
step from the outcomes. Pass your own :class:`Script` to ``DemoServer(script=…)`` to change
what the agent says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from openletta.demo import content
from openletta.demo.catalog import MODEL_HANDLE

DEFAULT_LONG_TOKENS = 800
SLOW_PACE = 10.0


@dataclass(frozen=True)
class ScriptedCall:
    """A tool call the agent makes and what the pretend tool returns when it runs."""

    name: str
    arguments: dict[str, Any]
    output: str
    status: str = "success"
    stderr: tuple[str, ...] = ()
    #: Ask for approval even when the agent's tool rules do not require it.
    always_ask: bool = False
    #: What the agent says once the call ran.
    summary: str = ""
    #: The turn ends once the call ran (``send_message`` on older agent types).
    ends_turn: bool = False

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments)


@dataclass(frozen=True)
class Step:
    """One LLM response: optional reasoning and text, then tool calls."""

    reasoning: str = ""
    text: str = ""
    calls: tuple[ScriptedCall, ...] = ()


@dataclass(frozen=True)
class ProviderError:
    """A failure of the (pretend) model provider, reported in the stream."""

    error_type: str
    message: str
    detail: str
    stop_reason: str = "llm_api_error"


@dataclass(frozen=True)
class Reply:
    first: Step = field(default_factory=Step)
    #: Multiplies the per-delta delay (``slow`` streams ten times slower).
    pace: float = 1.0
    error: ProviderError | None = None


@dataclass(frozen=True)
class Outcome:
    """What became of one tool call: run by the server, denied, or answered by the client."""

    call: ScriptedCall
    tool_call_id: str
    kind: Literal["executed", "denied", "client"]
    status: str
    tool_return: str
    stdout: list[str] | None = None
    stderr: list[str] | None = None
    reason: str | None = None


def denial_text(reason: str | None) -> str:
    """The tool return Letta stores for a denied call."""
    return f"Error: request to call tool denied. User reason: {reason}"


class Script:
    """Keyword → reply. Keywords are whole words, checked in a fixed priority order."""

    def __init__(self, *, long_tokens: int = DEFAULT_LONG_TOKENS) -> None:
        self.long_tokens = long_tokens
        self._client_tools: frozenset[str] = frozenset()
        self._text = ""
        self._replies: tuple[tuple[frozenset[str], Callable[[list[str]], Reply]], ...] = (
            (frozenset({"llmerror"}), self._llm_error),
            (frozenset({"files", "folder"}), self._local_files),
            (frozenset({"disk"}), self._local_disk),
            (frozenset({"remember"}), self._remember),
            (frozenset({"search", "recall"}), self._search),
            (frozenset({"archive"}), self._archive),
            (frozenset({"passages", "archives"}), self._archival_search),
            (frozenset({"web", "internet"}), self._web),
            (frozenset({"fetch", "page"}), self._fetch),
            (frozenset({"legacy"}), self._legacy),
            (frozenset({"code", "python", "compute"}), self._code),
            (frozenset({"hostile"}), self._hostile),
            (frozenset({"spoof"}), self._spoof),
            (frozenset({"parallel"}), self._parallel),
            (frozenset({"approve", "danger"}), self._danger),
            (frozenset({"edit"}), self._edit),
            (frozenset({"write"}), self._write),
            (frozenset({"error"}), self._tool_error),
            (frozenset({"read"}), self._read),
            (frozenset({"long"}), self._long),
            (frozenset({"slow"}), self._slow),
            (frozenset({"bash"}), self._bash),
            (frozenset({"hello", "hi", "hey"}), self._hello),
        )

    def reply(self, text: str, client_tools: frozenset[str] = frozenset(), *,
              model: str = MODEL_HANDLE) -> Reply:
        """The reply to a user message (the showcase answer when no keyword matches);
        ``client_tools``: the tools the client declared it runs itself. An agent put on
        another ``model`` than the scripted one gets the error of a model not reached."""
        if model != MODEL_HANDLE:
            return Reply(error=ProviderError(
                "llm_error", "An error occurred with the LLM request.",
                f"Model {model} cannot be reached from the demo server."))
        words = re.findall(r"[a-z]+|\d+", text.lower())
        self._client_tools, self._text = client_tools, text
        for keywords, build in self._replies:
            if keywords.intersection(words):
                return build(words)
        return Reply(Step(reasoning="No keyword matched, so I will show what the demo can do.",
                          text=content.showcase()))

    def follow_up(self, outcomes: Sequence[Outcome]) -> Step:
        """The step after tool calls: summarise results, acknowledge denials (after a local
        listing: read the first file in it)."""
        if (read := _read_after_listing(outcomes)) is not None:
            return read
        names = " and ".join(dict.fromkeys(f"`{outcome.call.name}`" for outcome in outcomes))
        lines = [self._outcome_line(outcome) for outcome in outcomes]
        if any(outcome.kind == "denied" for outcome in outcomes):
            reasoning = f"The user denied the {names} call, so I will not run it."
        else:
            reasoning = f"The {names} tool finished; summarising the result for the user."
        return Step(reasoning=reasoning, text="\n\n".join(lines))

    @staticmethod
    def _outcome_line(outcome: Outcome) -> str:
        name = outcome.call.name
        if outcome.kind == "denied":
            return (f"I did not run `{name}` because you denied it "
                    f"(your reason: {outcome.reason or 'none given'}). "
                    "Tell me what you would like instead.")
        if outcome.kind == "client":
            return (outcome.call.summary if outcome.status == "success" and outcome.call.summary
                    else f"Thanks, I received the result of `{name}` ({outcome.status}).")
        status = "OK" if outcome.status == "success" else "Failed"
        return outcome.call.summary or f"Tool `{name}` finished (status: {status})."

    # --- replies ------------------------------------------------------------------------

    def _remember(self, _words: list[str]) -> Reply:
        fact = re.split(r"(?i)\bremember\b[:,]?\s*", self._text, maxsplit=1)[-1].strip()
        call = ScriptedCall(
            "memory_insert", {"label": "human", "new_string": fact or "The user likes demos."},
            "None", summary="Noted: it is in my `human` memory block now (F2 shows it).")
        return Reply(Step(reasoning="The user wants me to remember something: it goes in my "
                                    "human block.", calls=(call,)))

    def _search(self, _words: list[str]) -> Reply:
        call = ScriptedCall("conversation_search", {"query": "greeting", "limit": 5},
                            content.SEARCH_RESULT,
                            summary="Two earlier messages match: your hello, and my greeting.")
        return Reply(Step(reasoning="Looking through our earlier messages.", calls=(call,)))

    def _archive(self, _words: list[str]) -> Reply:
        passage = re.split(r"(?i)\barchive\b[:,]?\s*", self._text, maxsplit=1)[-1].strip()
        call = ScriptedCall(
            "archival_memory_insert",
            {"content": passage or content.ARCHIVE_PASSAGE, "tags": ["demo", "notes"]}, "None",
            summary="Filed in my archival memory; ask about `passages` to search it.")
        return Reply(Step(reasoning="This is worth keeping for later, beyond core memory.",
                          calls=(call,)))

    def _archival_search(self, _words: list[str]) -> Reply:
        call = ScriptedCall("archival_memory_search", {"query": "openletta", "top_k": 5},
                            content.ARCHIVAL_RESULT,
                            summary="Two passages in my archive mention openletta.")
        return Reply(Step(reasoning="Searching my archival memory by meaning.", calls=(call,)))

    def _fetch(self, _words: list[str]) -> Reply:
        call = ScriptedCall("fetch_webpage", {"url": content.PAGE_URL}, content.PAGE_RESULT,
                            summary="The page says Letta agents keep memory between sessions.")
        return Reply(Step(reasoning="Reading the page (pretend: the demo is offline).",
                          calls=(call,)))

    def _legacy(self, _words: list[str]) -> Reply:
        call = ScriptedCall("send_message", {"message": content.LEGACY_REPLY}, "None",
                            ends_turn=True)
        return Reply(Step(reasoning="An older agent type answers through send_message.",
                          calls=(call,)))

    def _web(self, _words: list[str]) -> Reply:
        call = ScriptedCall("web_search", {"query": "letta stateful agents"}, content.WEB_RESULT,
                            summary="Letta builds agents with memory; its code is on GitHub.")
        return Reply(Step(reasoning="Searching the web (pretend: the demo is offline).",
                          calls=(call,)))

    def _code(self, _words: list[str]) -> Reply:
        call = ScriptedCall("run_code", {"language": "python", "code": content.CODE},
                            content.CODE_RESULT, summary="The first ten squares add up to 385.")
        return Reply(Step(reasoning="Running a little Python in the sandbox.", calls=(call,)))

    def _local_files(self, _words: list[str]) -> Reply:
        if not {"LS", "Read"} <= self._client_tools:
            return Reply(Step(reasoning="The client runs no local tools.",
                              text=content.NO_LOCAL_TOOLS))
        call = ScriptedCall("LS", {"path": "."}, "", always_ask=True)
        return Reply(Step(reasoning="Listing the user's working directory with their LS tool.",
                          text="Let me look at the folder you started openletta in.",
                          calls=(call,)))

    def _local_disk(self, _words: list[str]) -> Reply:
        if "Bash" not in self._client_tools:
            return Reply(Step(reasoning="The client runs no local tools.",
                              text=content.NO_LOCAL_TOOLS))
        call = ScriptedCall("Bash", {"command": "du -sh ."}, "", always_ask=True,
                            summary="That is what your folder takes on disk.")
        return Reply(Step(reasoning="Measuring the working directory with the user's Bash tool.",
                          calls=(call,)))

    def _hello(self, _words: list[str]) -> Reply:
        return Reply(Step(reasoning="The user said hello. I should greet them back.",
                          text=content.GREETING))

    def _bash(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "bash", {"command": content.LS_COMMAND}, content.LS_OUTPUT,
            summary="The project holds `src/`, a `build/` directory, the `build.sh` script "
                    "and a `latest` symlink into the build.")
        return Reply(Step(reasoning="The user wants a directory listing; running ls.",
                          calls=(call,)))

    def _read(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "read_file", {"path": content.GREETING_PATH}, content.GREETING_SOURCE,
            summary="`src/greeting.py` defines `greet(name, *, excited=False)`, which returns "
                    "`Hello, <name>.`, or ends with `!` when `excited` is true.")
        return Reply(Step(reasoning=f"Reading {content.GREETING_PATH}.", calls=(call,)))

    def _edit(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "edit_file", {"path": content.GREETING_PATH, "old": content.EDIT_OLD,
                          "new": content.EDIT_NEW},
            f"edited {content.GREETING_PATH}",
            summary="Done: excited greetings now end with `!!`.")
        return Reply(Step(reasoning="Editing the greeting so excited greetings end with `!!`.",
                          text="I will make excited greetings louder.", calls=(call,)))

    def _write(self, _words: list[str]) -> Reply:
        size = len(content.NOTES_CONTENT.encode())
        call = ScriptedCall(
            "write_file", {"path": content.NOTES_PATH, "content": content.NOTES_CONTENT},
            f"wrote {size} bytes to {content.NOTES_PATH}",
            summary=f"Saved `NOTES.md` ({size} bytes).")
        return Reply(Step(reasoning="Writing a notes file.", calls=(call,)))

    def _tool_error(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "read_file", {"path": content.MISSING_PATH}, content.MISSING_ERROR,
            status="error", stderr=(content.MISSING_TRACEBACK,),
            summary="`read_file` failed: `config/missing.toml` does not exist. Create it, or "
                    "tell me which file to read instead.")
        return Reply(Step(reasoning="Reading a configuration file that does not exist.",
                          calls=(call,)))

    def _danger(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "bash", {"command": content.DANGER_COMMAND}, content.DANGER_OUTPUT,
            always_ask=True,
            summary="The `build/` directory is gone; run `./build.sh` to recreate it.")
        return Reply(Step(reasoning="Deleting build/ is destructive, so I need approval.",
                          text="This deletes the `build/` directory.", calls=(call,)))

    def _parallel(self, _words: list[str]) -> Reply:
        size = len(content.NOTES_CONTENT.encode())
        write = ScriptedCall(
            "write_file", {"path": content.NOTES_PATH, "content": content.NOTES_CONTENT},
            f"wrote {size} bytes to {content.NOTES_PATH}", always_ask=True,
            summary="Saved `NOTES.md`.")
        clean = ScriptedCall(
            "bash", {"command": content.DANGER_COMMAND}, content.DANGER_OUTPUT,
            always_ask=True, summary="Removed `build/`.")
        return Reply(Step(reasoning="Two independent changes; asking for both at once.",
                          calls=(write, clean)))

    def _hostile(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "bash", {"command": content.HOSTILE_COMMAND}, content.HOSTILE_OUTPUT,
            summary=content.HOSTILE_TEXT)
        return Reply(Step(reasoning="Printing a file full of [bold]markup[/bold] and escapes.",
                          calls=(call,)))

    def _spoof(self, _words: list[str]) -> Reply:
        call = ScriptedCall(
            "bash", {"command": content.SPOOF_COMMAND}, content.SPOOF_OUTPUT, always_ask=True,
            summary="A client that interprets the carriage return shows only the `echo`; "
                    "openletta shows it as ␍ and warns.")
        return Reply(Step(reasoning="Asking to run a harmless-looking command.",
                          text="May I print a greeting?", calls=(call,)))

    def _long(self, words: list[str]) -> Reply:
        after = words[words.index("long") + 1:][:1]
        count = int(after[0]) if after and after[0].isdigit() else self.long_tokens
        return Reply(Step(reasoning="The user wants a long Markdown answer.",
                          text=content.long_markdown(count)))

    def _slow(self, _words: list[str]) -> Reply:
        text = " ".join(f"word{index}" for index in range(1, 41)) + "."
        return Reply(Step(reasoning="Streaming slowly so you can interrupt me.", text=text),
                     pace=SLOW_PACE)

    def _llm_error(self, _words: list[str]) -> Reply:
        return Reply(error=ProviderError(
            "llm_error", "An error occurred with the LLM request.",
            "INTERNAL_SERVER_ERROR: OpenAI API error: Error code: 500 - {'error': {'message': "
            "'scripted upstream failure (llmerror)', 'type': 'server_error', 'param': None, "
            "'code': 'demo_500'}}"))


def _read_after_listing(outcomes: Sequence[Outcome]) -> Step | None:
    """After the client listed its directory: read the first file in the listing."""
    if len(outcomes) != 1 or outcomes[0].call.name != "LS" or outcomes[0].kind != "client":
        return None
    # LS names the directory, then each entry indented (a subdirectory ends with "/", a
    # link says where it points, a name that would not read as itself is quoted).
    files = [line.strip() for line in outcomes[0].tool_return.splitlines()
             if line.startswith("  ") and line.strip() and not line.endswith("/")
             and " -> " not in line and not line.strip().startswith(("'", '"'))]
    if outcomes[0].status != "success" or not files:
        return Step(reasoning="The listing gave no file to read.",
                    text="Your folder has no file I could read; that is all for now.")
    name = files[0]
    read = ScriptedCall("Read", {"file_path": name, "limit": 20}, "", always_ask=True,
                        summary=f"That was the start of `{name}`, read on your machine.")
    return Step(reasoning=f"Reading {name}, the first file of the listing.",
                text=f"I see your files. Let me read the start of `{name}`.", calls=(read,))
