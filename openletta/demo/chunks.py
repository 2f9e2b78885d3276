"""Builders of the JSON objects a Letta 0.16.8 server streams and returns in history.

Every builder reproduces the key order and the null-versus-missing conventions of the wire
captures: message chunks share one envelope (``id, date, name, message_type, otid,
sender_id, step_id, is_err, seq_id, run_id``); token-mode ``tool_call_message`` deltas omit
null keys while ``approval_request_message`` deltas keep them; in history and step mode
``tool_calls`` is a list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openletta.demo.http import sse_event
from openletta.demo.ids import new_id

DONE_FRAME = sse_event("[DONE]")
#: A cancelled foreground stream ends with this line, spaced by ``json.dumps``, and no [DONE].
CANCELLED_FRAME = sse_event('{"message_type": "stop_reason", "stop_reason": "cancelled"}')

Chunk = dict[str, Any]


@dataclass(frozen=True)
class Origin:
    """The envelope fields shared by the chunks of one message part."""

    id: str
    date: str
    otid: str | None
    step_id: str | None
    run_id: str | None
    name: str | None = None


@dataclass(frozen=True)
class CallRecord:
    """A complete tool call."""

    name: str
    arguments: str
    tool_call_id: str


@dataclass(frozen=True)
class ReturnRecord:
    """The result of one tool call."""

    tool_call_id: str
    status: str
    tool_return: str
    stdout: list[str] | None
    stderr: list[str] | None


def envelope(message_type: str, origin: Origin) -> Chunk:
    return {"id": origin.id, "date": origin.date, "name": origin.name,
            "message_type": message_type, "otid": origin.otid, "sender_id": None,
            "step_id": origin.step_id, "is_err": None, "seq_id": None, "run_id": origin.run_id}


def ping(run_id: str, date: str) -> Chunk:
    return envelope("ping", Origin(new_id("ping"), date, None, None, run_id))


def reasoning(origin: Origin, text: str) -> Chunk:
    return {**envelope("reasoning_message", origin), "source": "reasoner_model",
            "reasoning": text, "signature": None}


def assistant(origin: Origin, text: str) -> Chunk:
    return {**envelope("assistant_message", origin), "content": text}


def user(origin: Origin, content: Any) -> Chunk:
    return {**envelope("user_message", origin), "content": content}


def system(origin: Origin, content: str) -> Chunk:
    return {**envelope("system_message", origin), "content": content}


def tool_call_delta(origin: Origin, tool_call_id: str, *, name: str | None = None,
                    arguments: str | None = None) -> Chunk:
    """A token-mode tool call delta: the name first, then argument fragments; nulls omitted."""
    delta: dict[str, str] = {"name": name} if name is not None else {"arguments": arguments or ""}
    delta["tool_call_id"] = tool_call_id
    return {**envelope("tool_call_message", origin), "tool_call": delta, "tool_calls": dict(delta)}


def approval_delta(origin: Origin, tool_call_id: str, *, name: str | None = None,
                   arguments: str | None = None) -> Chunk:
    """A token-mode approval request delta; unlike tool calls it keeps the null keys."""
    delta = {"name": name, "arguments": arguments, "tool_call_id": tool_call_id}
    return {**envelope("approval_request_message", origin), "tool_call": delta,
            "tool_calls": dict(delta)}


def tool_calls_message(message_type: str, origin: Origin, calls: Sequence[CallRecord]) -> Chunk:
    """A complete ``tool_call_message`` or ``approval_request_message`` (history, step mode)."""
    listed = [{"name": call.name, "arguments": call.arguments, "tool_call_id": call.tool_call_id}
              for call in calls]
    return {**envelope(message_type, origin), "tool_call": dict(listed[0]), "tool_calls": listed}


def tool_return(origin: Origin, returns: Sequence[ReturnRecord]) -> Chunk:
    """A ``tool_return_message``; the deprecated top-level fields mirror the first return."""
    first = returns[0]
    return {**envelope("tool_return_message", origin), "tool_return": first.tool_return,
            "status": first.status, "tool_call_id": first.tool_call_id, "stdout": first.stdout,
            "stderr": first.stderr,
            "tool_returns": [{"type": "tool", "tool_return": item.tool_return,
                              "status": item.status, "tool_call_id": item.tool_call_id,
                              "stdout": item.stdout, "stderr": item.stderr}
                             for item in returns]}


def approval_response(origin: Origin, approvals: Sequence[dict[str, Any]]) -> Chunk:
    """An ``approval_response_message`` (history only) with the legacy mirror fields."""
    first = approvals[0]
    legacy = first.get("type") == "approval"
    return {**envelope("approval_response_message", origin), "approvals": list(approvals),
            "approve": first.get("approve") if legacy else None,
            "approval_request_id": first.get("tool_call_id") if legacy else None,
            "reason": first.get("reason") if legacy else None}


def stop_reason(reason: str) -> Chunk:
    return {"message_type": "stop_reason", "stop_reason": reason}


@dataclass
class Usage:
    """Token counts of one request, summed over its steps (``context_tokens``: last step)."""

    completion_tokens: int = 0
    prompt_tokens: int = 0
    step_count: int = 0
    reasoning_tokens: int = 0
    context_tokens: int = 0

    def add_step(self, prompt: int, completion: int, reasoning_part: int) -> None:
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.reasoning_tokens += reasoning_part
        self.step_count += 1
        self.context_tokens = prompt + completion

    def chunk(self) -> Chunk:
        return {"message_type": "usage_statistics", "completion_tokens": self.completion_tokens,
                "prompt_tokens": self.prompt_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens,
                "step_count": self.step_count, "run_ids": None, "cached_input_tokens": 0,
                "cache_write_tokens": None, "reasoning_tokens": self.reasoning_tokens,
                "context_tokens": self.context_tokens}


def error_message(run_id: str, error_type: str, message: str, detail: str | None) -> Chunk:
    return {"message_type": "error_message", "run_id": run_id, "error_type": error_type,
            "message": message, "detail": detail, "seq_id": None}


def step_json(step_id: str, run_id: str, prompt: int, completion: int,
              reasoning: int, model: str) -> Chunk:
    """One step as ``GET /v1/runs/{id}/steps`` lists it, run on ``model`` (a handle)."""
    return {"id": step_id, "run_id": run_id, "model": model.rpartition("/")[2],
            "model_handle": model, "prompt_tokens": prompt,
            "completion_tokens": completion, "total_tokens": prompt + completion,
            "cached_input_tokens": None, "reasoning_tokens": reasoning,
            "stop_reason": None, "status": "success"}


def data_frame(chunk: Chunk) -> bytes:
    """One SSE event with compact JSON, as pydantic serialises it."""
    return sse_event(json.dumps(chunk, separators=(",", ":"), ensure_ascii=False))


def error_frame(chunk: Chunk) -> bytes:
    return sse_event(json.dumps(chunk, separators=(",", ":"), ensure_ascii=False), event="error")


_WORD = re.compile(r"[^ \n]*[ \n]|[^ \n]+")
_JSON_PIECE = re.compile(r'[{\[]"|"[:,] "|"[}\]]|"|[^"\s]+\s?|\s')


def text_tokens(text: str) -> list[str]:
    """Split text into word deltas the way the captures show (``"answer\\n"``, ``"\\n"``)."""
    return _WORD.findall(text)


def json_fragments(arguments: str) -> list[str]:
    """Split a tool call's JSON arguments into streamed fragments (``{"``, ``command``, …)."""
    return _JSON_PIECE.findall(arguments)


def token_estimate(text: str) -> int:
    """A rough token count for usage statistics (about four characters per token)."""
    return max(1, len(text) // 4)
