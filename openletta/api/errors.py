"""Typed errors of the Letta client, each with a one-line ``message`` that says what to do.

:func:`error_from_response` maps a non-2xx HTTP answer to the right class following the
server's body shapes (``{"detail": str}``, ``{"detail": {"message": ...}}``,
``{"error": {"type", "message"}}``, 422 ``detail`` as a Python-repr string);
:func:`error_from_stream` does the same for an in-stream ``event: error``.
"""

from __future__ import annotations

import ast
import json
import re
from http import HTTPStatus
from typing import Any

from openletta.api import json_text
from openletta.api.messages import ErrorMessage

#: Letta prefixes its own error texts with a code, e.g. ``"INVALID_ARGUMENT: …"``.
_CODE_PREFIX = re.compile(r"^[A-Z][A-Z_]+: ")
_PENDING_APPROVAL = "waiting for approval"
_BUSY = re.compile(r"Another request .*is currently being processed", re.DOTALL)
_RUN_ID = re.compile(r"run-[0-9a-f-]{36}")
_LONGEST_MESSAGE = 300


class LettaError(Exception):
    """Base of every error raised by the client."""

    def __init__(self, message: str, *, status_code: int | None = None, body: str | None = None,
                 server_message: str | None = None) -> None:
        super().__init__(message)
        #: One line for people: what went wrong and what to do.
        self.message = message
        self.status_code = status_code
        #: The raw response body, when there was one.
        self.body = body
        #: The server's own text (``detail``, ``detail.message`` or ``error.message``).
        self.server_message = server_message


class ConfigurationError(LettaError):
    """openletta's own settings cannot work: a malformed base URL or API key."""


class APIConnectionError(LettaError):
    """The request did not get an HTTP answer (network failure)."""

    #: Whether the request may have reached the server (the connection broke after it was
    #: made): what it asked for may have happened.
    may_have_arrived = True


class ConnectError(APIConnectionError):
    """Nothing accepted the connection at the base URL. (What to set to reach another is
    the connect screen's to say: mid-chat the server answered a moment ago.)"""

    may_have_arrived = False

    def __init__(self, base_url: str) -> None:
        super().__init__(f"Could not reach the Letta server at {base_url}: nothing answered "
                         "there. Is it running?")
        self.base_url = base_url


class TLSHandshakeError(ConnectError):
    """The server at the base URL accepted the connection but did not speak TLS (https)."""

    def __init__(self, base_url: str, reason: str) -> None:
        APIConnectionError.__init__(
            self, f"The server at {base_url} answered, but not over TLS ({reason}). If it "
                  "speaks plain HTTP, use an http:// base URL.")
        self.base_url = base_url


#: The phase of a request before anything of it was sent.
CONNECTION_PHASE = "accept the connection"


class RequestTimeout(APIConnectionError):
    """The server did not answer in time."""

    def __init__(self, base_url: str, phase: str = "answer") -> None:
        super().__init__(f"The Letta server at {base_url} did not {phase} in time. "
                         "Check that it is healthy, then try again.")
        self.base_url = base_url
        self.may_have_arrived = phase != CONNECTION_PHASE


class StreamDroppedError(LettaError):
    """The reply stream ended with neither ``[DONE]`` nor a ``stop_reason``."""

    def __init__(self, run_id: str | None, last_seq_id: int | None, reason: str = "") -> None:
        where = f" (run {run_id})" if run_id else ""
        why = f": {reason}" if reason else ""
        super().__init__(f"The reply stream stopped before the end{where}{why}. "
                         "What arrived is kept; resend or check the run later.")
        self.run_id = run_id
        self.last_seq_id = last_seq_id


class RunStillGoingError(LettaError):
    """A run that was waited for did not end in time."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"Run {run_id} is still going; its reply shows once you reopen the "
                         "chat after it ended.")
        self.run_id = run_id


class AuthError(LettaError):
    """401/403: the API key (or server password) is missing or wrong."""


class NotFoundError(LettaError):
    """404/410: the agent, conversation, run or route does not exist (any more)."""


class NotLettaServerError(LettaError):
    """What answers at the base URL is not a Letta server: it has no health route, or its
    answer there is not a Letta server's health."""


#: What a :class:`NotFoundError` of an answer advises: a caller that knows what was not
#: found (a model's handle) may say it better.
NOT_FOUND_ADVICE = "Check the id, or choose again."


def not_a_letta_server(status: int) -> NotLettaServerError:
    """The error for an answer with ``status`` to the health check that no Letta server
    gives."""
    answer = f"HTTP {status}" if status >= 300 else "an answer that is not Letta's"
    return NotLettaServerError(
        f"Something answers at this address, but not as a Letta server does ({answer} for "
        "/v1/health/). Check the URL: the server's root, such as http://localhost:8283 or "
        "https://api.letta.com.", status_code=status)


class ConflictError(LettaError):
    """409: the request conflicts with the agent's or conversation's state."""


class PendingApprovalError(ConflictError):
    """A normal message was sent while a tool call waits for approval."""


class ConversationBusyError(ConflictError):
    """Another request is running in this conversation."""

    def __init__(self, message: str, *, run_id: str | None = None, **details: Any) -> None:
        super().__init__(message, **details)
        self.run_id = run_id


class ValidationError(LettaError):
    """400/422: the server rejected the request as invalid."""


class ServerError(LettaError):
    """5xx, rate limits and LLM provider errors."""

    def __init__(self, message: str, *, error_type: str | None = None, **details: Any) -> None:
        super().__init__(message, **details)
        #: The server's error type, e.g. ``llm_rate_limit`` or ``internal_error``.
        self.error_type = error_type


#: Model provider errors that pass (a retry a little later may work), by the server's type.
TRANSIENT_LLM_ERRORS = frozenset({"llm_rate_limit", "llm_timeout", "llm_server_error",
                                  "llm_connection_error", "llm_overloaded"})


def llm_advice(error_type: str) -> str:
    """What to do about a model provider's error of ``error_type``: wait for one that passes;
    else no guess that it will (a generic one often fails the same way each time)."""
    if error_type in TRANSIENT_LLM_ERRORS:
        return "Try again in a moment."
    if error_type in ("llm_authentication", "llm_permission_denied"):
        return "Check the provider's key on the Letta server."
    return "If it fails again, see the server's log, or try another model (/model)."


def error_from_response(status: int, body: bytes | str | Any) -> LettaError:
    """The typed error for a non-2xx answer with status ``status`` and body ``body``."""
    raw = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    data = json_text.loads_or_none(raw) if isinstance(raw, str) else raw
    text = raw if isinstance(raw, str) else json.dumps(raw)
    server_message, error_type = _server_message(data)
    details: dict[str, Any] = {"status_code": status, "body": text,
                               "server_message": server_message}
    shown = _readable(server_message or "") or _status_phrase(status)
    if error_type and error_type.startswith("llm_"):
        return ServerError(f"The model provider failed: {shown}. {llm_advice(error_type)}",
                           error_type=error_type, **details)
    conflict = _conflict_error(server_message or "", data, details)
    if conflict is not None:
        return conflict
    if status in (401, 403):
        return AuthError(f"The Letta server refused access (HTTP {status}: {shown}). "
                         "Set LETTA_API_KEY to a valid key.", **details)
    if status in (404, 410):
        return NotFoundError(f"Not found: {shown}. {NOT_FOUND_ADVICE}", **details)
    if status == 409:
        return ConflictError(f"Conflict: {shown}. Wait a moment and try again.", **details)
    if status in (400, 422):
        return ValidationError(f"The server rejected the request: {shown}. "
                               "Check the input or the server version.", **details)
    if status == 429 or status >= 500:
        return ServerError(f"The Letta server failed (HTTP {status}): {shown}. "
                           "Try again; if it persists, check the server logs.",
                           error_type=error_type, **details)
    return LettaError(f"Unexpected answer from the Letta server (HTTP {status}): {shown}. "
                      "Check that openletta supports this server version.", **details)


def error_from_stream(error: ErrorMessage) -> LettaError:
    """The typed error for an in-stream ``event: error`` (already shown as a message)."""
    text = " ".join(part for part in (error.message, error.detail) if part)
    details: dict[str, Any] = {"server_message": error.message, "body": error.detail}
    conflict = _conflict_error(text, None, details)
    if conflict is not None:
        return conflict
    if error.error_type.startswith("llm_"):
        return ServerError(f"The model provider failed: {_readable(error.message)}. "
                           f"{llm_advice(error.error_type)}", error_type=error.error_type,
                           **details)
    # For internal errors ``message`` is often generic and ``detail`` holds the real text.
    shown = _readable(error.detail or error.message)
    return ServerError(f"The agent stopped with an error: {shown}. "
                       "Try again; if it persists, check the server logs.",
                       error_type=error.error_type, **details)


def _conflict_error(text: str, data: Any, details: dict[str, Any]) -> LettaError | None:
    code = data.get("detail", {}).get("code") if isinstance(data, dict) and isinstance(
        data.get("detail"), dict) else None
    if code == "PENDING_APPROVAL" or _PENDING_APPROVAL in text:
        return PendingApprovalError(
            "The agent is waiting for approval of a tool call. "
            "Approve or deny it before sending a new message.", **details)
    if _BUSY.search(text):
        run_id = data.get("run_id") if isinstance(data, dict) else None
        if not isinstance(run_id, str):
            found = _RUN_ID.search(text)
            run_id = found.group(0) if found else None
        where = f" ({run_id})" if run_id else ""
        return ConversationBusyError(
            f"The conversation is busy with another request{where}. "
            "Wait for it to finish or cancel it.", run_id=run_id, **details)
    return None


def _status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "no details"


def _server_message(data: Any) -> tuple[str | None, str | None]:
    """The server's message and error type from any of its body shapes."""
    if not isinstance(data, dict):
        return None, None
    detail = data.get("detail")
    if isinstance(detail, str):
        return _validation_summary(detail) if detail.startswith("[{") else detail, None
    if isinstance(detail, dict) and isinstance(detail.get("message"), str):
        return detail["message"], None
    if isinstance(detail, list):
        return _validation_summary(repr(detail)), None
    error = data.get("error")
    if isinstance(error, dict):
        error_type = error.get("type") if isinstance(error.get("type"), str) else None
        message = error.get("message")
        return (message if isinstance(message, str) else None), error_type
    if isinstance(error, str):
        return error, None
    return None, None


_LOC = re.compile(r"'loc': (\((?:'(?:[^'\\]|\\.)*'|[^()'])*\))")
_MSG = re.compile(r"""'msg': ("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
_SHOWN_PROBLEMS = 2


def _validation_summary(detail: str) -> str:
    """``field: problem; …`` from pydantic's error list as a Python-repr string."""
    problems: list[str] = []
    for loc_match, msg_match in zip(_LOC.finditer(detail), _MSG.finditer(detail), strict=False):
        try:
            loc = ast.literal_eval(loc_match.group(1))
            msg = ast.literal_eval(msg_match.group(1))
        except (ValueError, SyntaxError, MemoryError, RecursionError):  # hostile nesting
            continue
        msg = str(msg).removeprefix("Value error, ")
        path = ".".join(str(part) for part in loc[1:] if not any(c in str(part) for c in "[("))
        problems.append(f"{path}: {msg}" if path else msg)
    if not problems:
        return detail
    more = len(problems) - _SHOWN_PROBLEMS
    summary = "; ".join(problems[:_SHOWN_PROBLEMS])
    return f"{summary} (+{more} more)" if more > 0 else summary


def _readable(message: str) -> str:
    """One short line: code prefix dropped, whitespace folded, length capped."""
    line = " ".join(_CODE_PREFIX.sub("", message.strip()).split()).rstrip(".")
    if len(line) > _LONGEST_MESSAGE:
        line = line[: _LONGEST_MESSAGE - 1] + "…"
    return line
