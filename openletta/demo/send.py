"""Parsing the body of a send-message request into what a turn needs."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

#: The 422 body of the real server for a request with neither ``messages`` nor ``input``.
MISSING_MESSAGES_DETAIL = (
    "[{'type': 'value_error', 'loc': ('body',), 'msg': \"Value error, Must specify either "
    "'input' or 'messages'.\", 'input': {}, 'ctx': {'error': ValueError(\"Must specify either "
    "'input' or 'messages'.\")}}]")


class InvalidRequest(ValueError):
    """The body cannot be a send-message request; ``str()`` is the 422 ``detail``."""


@dataclass(frozen=True)
class UserInput:
    content: Any
    otid: str

    @property
    def text(self) -> str:
        """The text of the content (a string or a list of content parts)."""
        if isinstance(self.content, str):
            return self.content
        parts = self.content if isinstance(self.content, list) else []
        return " ".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


@dataclass(frozen=True)
class SendRequest:
    user_messages: tuple[UserInput, ...]
    #: Normalised ``approvals`` entries, or ``None`` when the request answers no approval.
    approvals: tuple[dict[str, Any], ...] | None
    stream_tokens: bool
    include_pings: bool
    background: bool
    max_steps: int
    return_types: frozenset[str] | None
    #: Only for ``/v1/conversations/default/…``: whose default thread.
    agent_id: str | None
    #: Names of the tools the client runs itself (``client_tools``).
    client_tools: frozenset[str] = frozenset()


def parse_send(body: Any, *, stream_tokens_default: bool = False) -> SendRequest:
    """Read a ``LettaStreamingRequest``/``ConversationMessageRequest`` body."""
    if not isinstance(body, dict):
        raise InvalidRequest(MISSING_MESSAGES_DETAIL)
    items = body.get("messages")
    if items is None and body.get("input") is not None:
        items = [{"type": "message", "role": "user", "content": body["input"]}]
    if items is None:
        raise InvalidRequest(MISSING_MESSAGES_DETAIL)
    if not isinstance(items, list) or not items:
        raise InvalidRequest("Messages must not be empty")
    users: list[UserInput] = []
    approvals: list[dict[str, Any]] | None = None
    for item in items:
        if not isinstance(item, dict):
            raise InvalidRequest("Each message must be an object")
        kind = item.get("type") or _implied_type(item)
        if kind in ("approval", "tool_return"):
            approvals = [*(approvals or []), *_approval_entries(item)]
        elif kind == "message" and item.get("role", "user") == "user":
            otid = item.get("otid") or str(uuid.uuid4())
            users.append(UserInput(item.get("content", ""), otid))
        elif kind != "message":
            raise InvalidRequest(f"Unknown message type {kind!r}")
    if not users and approvals is None:
        raise InvalidRequest("Send a user message or an approval")
    types = body.get("include_return_message_types")
    declared = body.get("client_tools")
    tools = declared if isinstance(declared, list) else []
    return SendRequest(
        client_tools=frozenset(str(tool.get("name")) for tool in tools
                               if isinstance(tool, dict) and tool.get("name")),
        user_messages=tuple(users), approvals=tuple(approvals) if approvals is not None else None,
        stream_tokens=bool(body.get("stream_tokens", stream_tokens_default)),
        include_pings=bool(body.get("include_pings", True)),
        background=bool(body.get("background", False)),
        max_steps=int(body.get("max_steps") or 50),
        return_types=frozenset(types) if isinstance(types, list) else None,
        agent_id=body.get("agent_id"))


def _implied_type(item: dict[str, Any]) -> str:
    """Letta infers ``approval`` for items with ``approve``/``approval_request_id``."""
    return "approval" if "approve" in item or "approval_request_id" in item else "message"


def _approval_entries(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``approvals`` of an ``ApprovalCreate`` (new, legacy or ``tool_return`` form),
    normalised to the shape history shows."""
    if item.get("type") == "tool_return":
        raw = item.get("tool_returns") or []
    elif isinstance(item.get("approvals"), list):
        raw = item["approvals"]
    else:
        raw = [{"type": "approval", "tool_call_id": item.get("approval_request_id"),
                "approve": item.get("approve"), "reason": item.get("reason")}]
    entries = []
    for entry in raw:
        if not isinstance(entry, dict):
            raise InvalidRequest("Each approval must be an object")
        if entry.get("type", "tool" if "tool_return" in entry else "approval") == "tool":
            entries.append({"type": "tool", "tool_return": entry.get("tool_return"),
                            "status": entry.get("status", "success"),
                            "tool_call_id": entry.get("tool_call_id"),
                            "stdout": entry.get("stdout"), "stderr": entry.get("stderr")})
        else:
            entries.append({"type": "approval", "tool_call_id": entry.get("tool_call_id"),
                            "approve": bool(entry.get("approve")),
                            "reason": entry.get("reason")})
    return entries
