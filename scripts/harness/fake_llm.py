"""A scripted, OpenAI-compatible model for the end-to-end harness (stdlib only).

Letta is pointed at this server (``OPENAI_BASE_URL``) and registers its one model as
``openai-proxy/fake-model``. The reply is chosen from keywords in the LAST message, checked
in this order (first match wins):

========== ===================================================================
keyword    reply
========== ===================================================================
llmerror   HTTP 500 (Letta reports ``llm_api_error``)
local …    a call of a client-side tool the request declares (see below)
remember   ``memory_insert`` into the ``human`` block of what follows the word
stall      silence for ``--stall-seconds`` (default 12), then a short answer
slow       ~40 words streamed 0.3 s apart (for cancel and resume tests)
twice      two ``bash`` calls in one response (both need approval)
parallel   two ``read_file`` calls in one response
multi      some text and a ``bash`` call in one response
error      ``read_file`` of a missing file (the tool fails)
spoof      ``bash`` whose command hides behind a carriage return (``…; \\recho hi``)
edit       ``edit_file``: "hello" -> "goodbye"
write      ``write_file`` of "hello from the fake model"
read       ``read_file``
run ls     ``bash`` with ``ls -la`` (also: ``bash``)
long       long Markdown: headings, a list, a table, python and bash fences
hello      a greeting with reasoning
========== ===================================================================

``local`` calls the client's own tools, when the request declares them (``tools`` holds their
names, as Letta passes ``client_tools`` on): ``local ls`` → ``LS``; ``local read FILE`` →
``Read``; ``local edit FILE`` → ``Edit`` "hello" → "goodbye"; ``local write FILE`` →
``Write``; ``local count`` → ``Bash`` printing three lines half a second apart; ``local
sleep`` → ``Bash`` ``sleep 60``; ``local env`` → ``Bash`` counting variables that name
``LETTA_API_KEY`` or hold the e2e tests' key (``…never-seen``); ``local mixed`` → ``Bash``
``echo mixed`` and the server's ``bash`` ``ls -la`` in one response.

Anything else gets a short answer listing these keywords. When the last message is a tool
result, the reply is a final answer naming the tool and the result's status. File tools take
the first ``name.ext`` word of the message as their path, so a test can write and then edit a
file of its own. Defaults: ``read`` reads ``notes.txt`` (the harness puts it in the scratch
directory), ``write`` and ``edit`` use ``hello.txt``.

Every reply carries ``reasoning_content``. Streams send reasoning, then content word by word,
then tool calls (name first, then argument fragments), then usage when asked. Connections
are closed after every answer: Letta opens a new client per call and never closes it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "fake-model"
SLOW_WORD_DELAY = 0.3
DEFAULT_STALL_SECONDS = 12.0
DEFAULT_FILE = "notes.txt"
DEFAULT_WRITE_FILE = "hello.txt"
SECOND_FILE = "todo.txt"
MISSING_FILE = "missing/definitely_missing.txt"
FILE_NAME = re.compile(r"[\w./-]+\.(?:txt|md|py|json|toml|cfg)\b")
TOKEN = re.compile(r"\s*\S+\s*|\s+")
ARGUMENT_FRAGMENT = re.compile(r"\w+|[^\w]+")

LONG_MARKDOWN = """# Scripted long answer

This is a **long** Markdown answer from the *fake* model, used to test rendering.

## A list

1. First item with `inline code`
2. Second item with a [link](https://example.invalid/)
   - a nested bullet
   - another nested bullet
3. Third item

## A table

| tool       | needs approval | what it does          |
|------------|----------------|-----------------------|
| bash       | yes            | runs a shell command  |
| read_file  | no             | reads a text file     |
| write_file | yes            | writes a text file    |
| edit_file  | yes            | replaces text in a file |

## A Python block

```python
def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

print([fib(i) for i in range(10)])
```

## A shell block

```bash
$ ls -la
total 8
-rw-r--r-- 1 user user 42 Jan  1 00:00 notes.txt
```

That is the end of the long answer.
"""

SLOW_TEXT = " ".join(
    f"word{index}" if index % 5 else f"Slow sentence {index // 5 + 1}:" for index in range(26)
) + " and that is all."

HELP_TEXT = ("I am a scripted fake model. Try one of: hello, long, read, run ls, write, edit, "
             "error, parallel, twice, multi, slow, stall, llmerror.")


@dataclass
class ToolCall:
    """A function call the model asks for."""

    name: str
    arguments: dict[str, Any]
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:24]}")

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments)


@dataclass
class Reply:
    """What the model answers to one request."""

    reasoning: str
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    word_delay: float = 0.0
    stall_seconds: float = 0.0
    http_status: int = 200

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


#: A terminal shows only ``echo 'hello world'``: the carriage return hides the rest.
SPOOF_COMMAND = "echo pwned > spoofed.txt; \recho 'hello world'"
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)

def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message whose content is a string or a list of parts, without the
    ``<system-reminder>`` blocks some clients (Letta Code) add to what the user typed."""
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return SYSTEM_REMINDER.sub("", content or "")


def file_argument(text: str, default: str) -> str:
    """The first ``name.ext`` word of the text, or ``default``."""
    match = FILE_NAME.search(text)
    return match.group(0) if match else default


def tool_result_reply(messages: list[dict[str, Any]], result: dict[str, Any]) -> Reply:
    """A final answer about the tool result that ends ``messages``."""
    call_id = result.get("tool_call_id")
    name = next((call["function"]["name"] for message in messages
                 for call in message.get("tool_calls") or [] if call.get("id") == call_id),
                "tool")
    try:
        payload = json.loads(message_text(result))
    except ValueError:
        payload = {"status": "unknown", "message": message_text(result)}
    status = payload.get("status", "unknown")
    summary = str(payload.get("message", ""))[:300]
    return Reply(f"The {name} tool finished with status {status}; summarising for the user.",
                 f"Tool `{name}` finished (status: {status}). Result: {summary}")


COUNT_COMMAND = "for i in 1 2 3; do echo line $i; sleep 0.5; done"


def local_reply(text: str, declared: set[str]) -> Reply:
    """A call of the client's own tools (``local …``), if the request declares them."""
    lowered = text.lower()
    path = file_argument(text, DEFAULT_FILE)
    calls = {
        "ls": [ToolCall("LS", {"path": "."})],
        "read": [ToolCall("Read", {"file_path": path})],
        "edit": [ToolCall("Edit", {"file_path": path, "old_string": "hello",
                                   "new_string": "goodbye"})],
        "write": [ToolCall("Write", {"file_path": path,
                                     "content": "hello from the fake model\n"})],
        "count": [ToolCall("Bash", {"command": COUNT_COMMAND, "description": "Count to 3"})],
        "sleep": [ToolCall("Bash", {"command": "sleep 60", "description": "Wait a minute"})],
        "env": [ToolCall("Bash", {"command": "echo secrets: $(env | grep -c -e LETTA_API_KEY "
                                             "-e never-seen)"})],
        "mixed": [ToolCall("Bash", {"command": "echo mixed"}),
                  ToolCall("bash", {"command": "ls -la"})],
    }
    chosen = next((value for key, value in calls.items() if f"local {key}" in lowered), None)
    if chosen is None:
        return Reply("Unknown local keyword.", f"Try: {', '.join('local ' + k for k in calls)}")
    missing = {call.name for call in chosen} - declared - {"bash"}
    if missing:
        return Reply("The client did not declare its tools.",
                     f"The client declared no {', '.join(sorted(missing))} tool.")
    return Reply(f"Calling the client's {chosen[0].name} tool.", tool_calls=chosen)


def user_reply(text: str, stall_seconds: float, declared: set[str] = frozenset()) -> Reply:
    """The scripted answer to a user message (see the module docstring for the table)."""
    lowered = text.lower()
    path, write_path = file_argument(text, DEFAULT_FILE), file_argument(text, DEFAULT_WRITE_FILE)
    if "llmerror" in lowered:
        return Reply("", http_status=500)
    if "local " in lowered:
        return local_reply(text, declared)
    if "remember" in lowered:
        fact = re.split(r"(?i)\bremember\b[:,]?\s*", text, maxsplit=1)[-1].strip()
        return Reply("Saving that to my human block.", tool_calls=[
            ToolCall("memory_insert", {"label": "human", "new_string": fact or "a fact"})])
    if "stall" in lowered:
        return Reply("I waited before answering.", "Sorry for the wait: here is the answer.",
                     stall_seconds=stall_seconds)
    if "slow" in lowered:
        return Reply("Answering slowly on purpose.", SLOW_TEXT, word_delay=SLOW_WORD_DELAY)
    if "twice" in lowered:
        return Reply("Running two commands at once.", tool_calls=[
            ToolCall("bash", {"command": "ls -la"}), ToolCall("bash", {"command": "pwd"})])
    if "parallel" in lowered:
        return Reply("Reading two files at once.", tool_calls=[
            ToolCall("read_file", {"path": DEFAULT_FILE}),
            ToolCall("read_file", {"path": SECOND_FILE})])
    if "multi" in lowered:
        return Reply("I will say something, then list the directory.",
                     "Let me look at the scratch directory first.",
                     [ToolCall("bash", {"command": "ls -la"})])
    if "error" in lowered:
        return Reply("Reading a file that does not exist (scripted tool error).",
                     tool_calls=[ToolCall("read_file", {"path": MISSING_FILE})])
    if "spoof" in lowered:
        return Reply("Asking to run a harmless-looking command.",
                     tool_calls=[ToolCall("bash", {"command": SPOOF_COMMAND})])
    if "edit" in lowered:
        return Reply("Editing a file.", tool_calls=[
            ToolCall("edit_file", {"path": write_path, "old": "hello", "new": "goodbye"})])
    if "write" in lowered:
        return Reply("Writing a file.", tool_calls=[
            ToolCall("write_file", {"path": write_path, "content": "hello from the fake model\n"})])
    if "read" in lowered:
        return Reply(f"Reading {path}.", tool_calls=[ToolCall("read_file", {"path": path})])
    if "run ls" in lowered or "bash" in lowered:
        return Reply("Listing the directory with bash.",
                     tool_calls=[ToolCall("bash", {"command": "ls -la"})])
    if "long" in lowered:
        return Reply("The user wants a long answer with Markdown.", LONG_MARKDOWN)
    if "hello" in lowered:
        return Reply("The user said hello. I should greet them back.",
                     "Hello! I am a scripted fake model. How can I help?")
    return Reply("No scripted keyword found; listing the keywords.", HELP_TEXT)


def choose_reply(messages: list[dict[str, Any]], stall_seconds: float,
                 declared: set[str] = frozenset()) -> Reply:
    """The reply to a chat completion request with these ``messages`` (``declared``: the
    names of the tools the request offers)."""
    if not messages:
        return Reply("No messages.", HELP_TEXT)
    last = messages[-1]
    if last.get("role") == "tool":
        return tool_result_reply(messages, last)
    return user_reply(message_text(last), stall_seconds, declared)


def count_tokens(text: str) -> int:
    """A rough, deterministic token count (words)."""
    return len(text.split())


def usage(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    reasoning = count_tokens(reply.reasoning)
    completion = reasoning + count_tokens(reply.content) + sum(
        count_tokens(call.arguments_json) + 1 for call in reply.tool_calls)
    prompt = len(json.dumps(request.get("messages", []))) // 4
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "completion_tokens_details": {"reasoning_tokens": reasoning}}


def completion(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None,
                               "reasoning_content": reply.reasoning}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function",
             "function": {"name": call.name, "arguments": call.arguments_json}}
            for call in reply.tool_calls]
    return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion",
            "created": int(time.time()), "model": request.get("model", MODEL_ID),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            "usage": usage(request, reply)}


def stream_deltas(reply: Reply) -> list[tuple[dict[str, Any], float]]:
    """``(delta, delay before sending it)`` for every chunk of a streamed reply."""
    deltas: list[tuple[dict[str, Any], float]] = [({"role": "assistant"}, 0.0)]
    deltas += [({"reasoning_content": word}, 0.0) for word in TOKEN.findall(reply.reasoning)]
    deltas += [({"content": word}, reply.word_delay) for word in TOKEN.findall(reply.content)]
    for index, call in enumerate(reply.tool_calls):
        deltas.append(({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                        "function": {"name": call.name, "arguments": ""}}]},
                       0.0))
        deltas += [({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}, 0.0)
                   for fragment in ARGUMENT_FRAGMENT.findall(call.arguments_json)]
    return deltas


class FakeModelHandler(BaseHTTPRequestHandler):
    """Answers ``GET /v1/models`` and ``POST /v1/chat/completions``."""

    protocol_version = "HTTP/1.1"
    server: FakeModelServer

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self.send_json(200, {"object": "list", "data": [
                {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "openletta"}]})
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/v1/chat/completions":
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        declared = {tool.get("function", {}).get("name", "") for tool in request.get("tools") or []
                    if isinstance(tool, dict)}
        reply = choose_reply(request.get("messages", []), self.server.stall_seconds, declared)
        if reply.http_status != 200:
            self.send_json(reply.http_status, {"error": {
                "message": "scripted failure (llmerror)", "type": "server_error"}})
        elif request.get("stream"):
            self.send_stream(request, reply)
        else:
            time.sleep(reply.stall_seconds)
            self.send_json(200, completion(request, reply))

    def send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def send_stream(self, request: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the body ends when the connection closes
        self.end_headers()
        self.close_connection = True
        chunk_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
        model = request.get("model", MODEL_ID)

        def send(choices: list[dict[str, Any]], **extra: Any) -> None:
            chunk = {"id": chunk_id, "object": "chat.completion.chunk", "created": created,
                     "model": model, "choices": choices, **extra}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())

        time.sleep(reply.stall_seconds)
        for delta, delay in stream_deltas(reply):
            time.sleep(delay)
            send([{"index": 0, "delta": delta, "finish_reason": None}])
        send([{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}])
        if (request.get("stream_options") or {}).get("include_usage"):
            send([], usage=usage(request, reply))
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.log_date_time_string()} {format % args}\n")


class FakeModelServer(ThreadingHTTPServer):
    """A threaded server with a large listen backlog."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, port: int, stall_seconds: float) -> None:
        super().__init__(("127.0.0.1", port), FakeModelHandler)
        self.stall_seconds = stall_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8399)
    parser.add_argument("--stall-seconds", type=float, default=DEFAULT_STALL_SECONDS)
    options = parser.parse_args()
    server = FakeModelServer(options.port, options.stall_seconds)
    print(f"fake model on http://127.0.0.1:{server.server_port}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
