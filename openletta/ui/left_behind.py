"""What the chats left behind keep for when they open again, in this run or the next: the
text typed in each prompt and not sent, the message each reply still coming answers, and
the conversation last open with each agent, and the tool calls that ran here
(:class:`~openletta.recall.Drafts`, :class:`~openletta.recall.PromptsLeft`,
:class:`~openletta.recall.LastConversations`, :class:`~openletta.recall.CallsRunHere`)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.screen import Screen

from openletta.recall import (
    BEFORE_ANY_CHAT,
    CALLS_FILE,
    CONVERSATIONS_FILE,
    DRAFTS_FILE,
    PROMPTS_FILE,
    CallsRunHere,
    Drafts,
    LastConversations,
    PromptsLeft,
)
from openletta.settings import config_dir
from openletta.ui.screens.chat import ChatScreen


class LeftBehind:
    """The drafts and the messages of replies left of one server's chats, kept in
    openletta's config directory when ``lasting`` (not the demo's: they go with it)."""

    def __init__(self, server: str, *, lasting: bool) -> None:
        self.drafts = Drafts(server, config_dir() / DRAFTS_FILE if lasting else None)
        self.prompts = PromptsLeft(config_dir() / PROMPTS_FILE if lasting else None)
        self.conversations = LastConversations(
            server, config_dir() / CONVERSATIONS_FILE if lasting else None)
        self.calls_run_here = CallsRunHere(
            server, config_dir() / CALLS_FILE if lasting else None)

    def leave(self, screens: Iterable[Screen[object]]) -> None:
        """Keep what the chats among ``screens`` leave behind now (the one being left: it
        waits for the chat to open again)."""
        for screen in screens:
            if not isinstance(screen, ChatScreen):
                continue
            screen.controller.leaving()
            session = screen.session
            if (draft := screen.prompt.raw_text).strip():
                self.drafts.keep(session.agent.id, session.conversation_id, draft)
            if (reply := session.reply_in_flight()) is not None:
                self.prompts.keep(*reply)

    def keep_typed_ahead(self, text: str) -> None:
        """Keep ``text``, typed while connecting, for the first chat to open next."""
        if text.strip():
            self.drafts.keep(BEFORE_ANY_CHAT, None, text)

    def take_typed_ahead(self) -> str:
        """What was typed while connecting and kept (``""``: nothing), for the chat opening."""
        return self.drafts.take(BEFORE_ANY_CHAT, None)

    def save(self) -> OSError | None:
        """Write them; the error if the drafts could not be written (the messages of replies
        left and the last conversations matter less: that is only logged)."""
        self.prompts.save()
        self.conversations.save()
        return self.drafts.save()
