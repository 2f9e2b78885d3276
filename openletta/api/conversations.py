"""The conversation calls of :class:`~openletta.api.client.LettaClient`: list, create,
name, read, compact and delete an agent's conversations (and compact its default thread)."""

from __future__ import annotations

from typing import Any

from openletta.api.errors import LettaError, ValidationError
from openletta.api.http import (
    LettaHTTP,
    as_list,
    route_missing,
    validate,
    validate_list,
    without_none,
)
from openletta.api.messages import UserMessage, parse_message
from openletta.api.resources import Compaction, Conversation
from openletta.api.runs import DEFAULT_THREAD

#: Rows of a conversation read for its first message of the user's: its first row is the
#: system prompt; a system note (stored as a user message) may come before the user's.
FIRST_ROWS = 4
#: How the server refuses a compaction that would leave as many messages as before.
NOTHING_TO_COMPACT = "failed to reduce the number of messages"


class ConversationCalls:
    """Endpoints about conversations, for a client that sends its requests through
    ``_http``."""

    _http: LettaHTTP

    async def list_conversations(self, agent_id: str, limit: int = 50,
                                 after: str | None = None) -> list[Conversation]:
        params = without_none(agent_id=agent_id, limit=limit, order="desc",
                               order_by="last_message_at", after=after)
        data = await self._http.request("GET", "/v1/conversations/", params=params)
        return validate_list(Conversation, data)

    async def create_conversation(self, agent_id: str, summary: str | None = None) -> Conversation:
        data = await self._http.request("POST", "/v1/conversations/", params={"agent_id": agent_id},
                                        json=without_none(summary=summary))
        return validate(Conversation, data)

    async def rename_conversation(self, conversation_id: str, summary: str) -> Conversation:
        """Give a conversation a name (its ``summary``)."""
        data = await self._http.request("PATCH", f"/v1/conversations/{conversation_id}",
                                        json={"summary": summary})
        return validate(Conversation, data)

    async def compact(self, agent_id: str, conversation_id: str | None = None) -> Compaction:
        """Summarise the older messages of a thread (``None``: the agent's default thread)
        so that fewer stay in its context window (the user asked for this)."""
        try:
            return validate(Compaction, await self._post_compact(agent_id, conversation_id))
        except ValidationError as error:
            if NOTHING_TO_COMPACT not in (error.server_message or ""):
                raise
            raise ValidationError("The server found nothing to compact yet: too few older "
                                  "messages, or they are summarised already.",
                                  status_code=error.status_code,
                                  server_message=error.server_message) from error

    async def _post_compact(self, agent_id: str, conversation_id: str | None) -> Any:
        path = f"/v1/conversations/{conversation_id or DEFAULT_THREAD}/compact"
        body = {"agent_id": agent_id} if conversation_id is None else {}
        try:
            return await self._http.request("POST", path, json=body)
        except LettaError as error:
            if conversation_id is not None or not route_missing(error):
                raise
        return await self._http.request("POST", f"/v1/agents/{agent_id}/summarize", json={})

    async def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and its messages (the user asked for this)."""
        await self._http.request("DELETE", f"/v1/conversations/{conversation_id}")

    async def get_conversation(self, conversation_id: str) -> Conversation:
        data = await self._http.request("GET", f"/v1/conversations/{conversation_id}")
        return validate(Conversation, data)

    async def opening_user_messages(self, conversation_id: str) -> list[UserMessage]:
        """The user messages among the first :data:`FIRST_ROWS` rows of a conversation,
        oldest first (one small request: where a conversation without a name gets its
        label)."""
        data = await self._http.request(
            "GET", f"/v1/conversations/{conversation_id}/messages",
            params={"order": "asc", "limit": FIRST_ROWS,
                    "include_return_message_types": "user_message"})
        return [message for entry in as_list(data)
                if isinstance(message := parse_message(entry), UserMessage)]
