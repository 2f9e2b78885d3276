"""The Letta API layer: HTTP client, SSE stream reading, typed errors and message models."""

from openletta.api.answers import ApprovalAnswer
from openletta.api.client import LettaClient, parse_version
from openletta.api.errors import (
    APIConnectionError,
    AuthError,
    ConfigurationError,
    ConflictError,
    ConnectError,
    ConversationBusyError,
    LettaError,
    NotFoundError,
    PendingApprovalError,
    RequestTimeout,
    ServerError,
    StreamDroppedError,
    ValidationError,
    error_from_response,
    error_from_stream,
)
from openletta.api.history import HistoryPage
from openletta.api.sse import MessageStream, SSEParseResult, parse_sse_file, parse_sse_text

__all__ = [
    "APIConnectionError",
    "ApprovalAnswer",
    "AuthError",
    "ConfigurationError",
    "ConflictError",
    "ConnectError",
    "ConversationBusyError",
    "HistoryPage",
    "LettaClient",
    "LettaError",
    "MessageStream",
    "NotFoundError",
    "PendingApprovalError",
    "RequestTimeout",
    "SSEParseResult",
    "ServerError",
    "StreamDroppedError",
    "ValidationError",
    "error_from_response",
    "error_from_stream",
    "parse_sse_file",
    "parse_sse_text",
    "parse_version",
]
