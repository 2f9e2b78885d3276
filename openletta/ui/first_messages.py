"""The user's first message in each conversation, which stands for a conversation without a
name (:mod:`~openletta.ui.conversation_names`): known from the chats opened in this run, or
read from the server (one small request a conversation) and kept for the rest of the run."""

from __future__ import annotations

from collections.abc import Mapping

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.transcript.packed import unpack_user_content


class FirstMessages:
    """The first messages known, by conversation id (``None``: it has none yet, as far as
    the server said)."""

    def __init__(self) -> None:
        self._known: dict[str, str | None] = {}

    def note(self, known: Mapping[str, str]) -> None:
        """Take the first messages of the chats opened in this run (they know best)."""
        self._known.update(known)

    def get(self, conversation_id: str) -> str | None:
        return self._known.get(conversation_id)

    def asked(self, conversation_id: str) -> bool:
        """Whether the first message of the conversation is known, or known to be none."""
        return conversation_id in self._known

    async def read(self, client: LettaClient, conversation_id: str) -> str | None:
        """The first message of the conversation, read from the server unless known (kept
        for the run; a request that fails is not, and says ``None``)."""
        if self.asked(conversation_id):
            return self._known[conversation_id]
        try:
            messages = await client.opening_user_messages(conversation_id)
        except LettaError:
            return None
        typed = (text for subtype, text in map(unpack_user_content,
                                                (message.content for message in messages))
                 if subtype == "user_message" and text.strip())
        first = self._known[conversation_id] = next(typed, None)
        return first
