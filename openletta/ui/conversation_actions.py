"""Moving between conversations (``/conversations``, ``/new``): the base of
:class:`~openletta.ui.app.OpenLettaApp` that lists, starts and opens them, and says what
becomes of a reply left streaming in the chat being left (it goes on on the server: the
chat opened on it again follows it, or shows it finished)."""

from __future__ import annotations

from textual import work

from openletta.api.errors import LettaError
from openletta.api.resources import Agent
from openletta.ui.chat_commands import ChatCommands
from openletta.ui.conversation_names import spoken_conversation
from openletta.ui.first_messages import FirstMessages
from openletta.ui.printout import ChatsOfThisRun
from openletta.ui.screens.chat import ChatScreen


def reply_left_note(leaving: ChatScreen, agent_id: str, conversation: str | None) -> str | None:
    """What to say, as the chat ``leaving`` gives way to ``conversation`` of ``agent_id``,
    about its reply still streaming (``None``: none streams, or the same chat opens again)."""
    session = leaving.session
    if not session.turn_open or (session.agent.id, session.conversation_id) == (
            agent_id, conversation):
        return None
    where = spoken_conversation(session.conversation_id, session.conversation_name,
                                session.first_message)
    if session.agent.id != agent_id:
        where = f"{where} of {session.agent.name or session.agent.id}"
    return f"The reply in {where} goes on; it will be there when you come back."


def fallback_note(why: str, *, draft_moved: bool) -> str:
    """Why the conversation asked for does not open (``why``) and that the default thread
    does instead; ``draft_moved``: with the draft left there in its prompt."""
    draft = " (the draft you left in that conversation is in its prompt)" if draft_moved else ""
    return f"{why} Showing the agent's default thread{draft}; /conversations lists the others."


class ConversationActions(ChatCommands):
    """App actions that list, start and open the open agent's conversations."""

    chats: ChatsOfThisRun
    #: The user's first message in each conversation, as far as known in this run.
    first_messages: FirstMessages

    async def _open(self, agent: Agent, conversation: str | None) -> None:
        """Open the chat with ``conversation`` of ``agent`` (the app's)."""
        raise NotImplementedError

    def _chat_open(self) -> ChatScreen | None:
        """The chat open, on screen or under the screens over it."""
        return next((screen for screen in reversed(self.screen_stack)
                     if isinstance(screen, ChatScreen)), None)

    def note_reply_left(self, agent_id: str, conversation: str | None) -> str | None:
        """What to say about a reply left streaming by the chat on screen, which gives way to
        ``conversation`` of ``agent_id`` (see :func:`reply_left_note`)."""
        leaving = self._chat_open()
        return reply_left_note(leaving, agent_id, conversation) if leaving else None

    async def may_leave_chat(self, agent_id: str | None = None,
                             conversation: str | None = None) -> bool:
        """Whether the open chat may give way to ``conversation`` of ``agent_id`` (``None``:
        one not made yet): a local command running there is stopped first, if the user
        says so, and the agent told (see :func:`stop_before_leaving`)."""
        from openletta.ui.screens.leave_approval import stop_before_leaving

        leaving = self._chat_open()
        if leaving is None or (leaving.session.agent.id,
                               leaving.session.conversation_id) == (agent_id, conversation):
            return True
        return await stop_before_leaving(leaving)

    @work(exclusive=True, group="open", exit_on_error=False)
    async def open_conversation(self, agent: Agent, conversation: str | None) -> None:
        """Open ``conversation`` of ``agent`` (``None``: its default thread)."""
        await self._open(agent, conversation)

    @work(exclusive=True, group="open", exit_on_error=False)
    async def new_conversation(self, agent: Agent, name: str | None = None) -> None:
        """Create a conversation with ``agent`` (named ``name``) and open it."""
        assert self.client is not None
        if not await self.may_leave_chat():
            return
        try:
            conversation = await self.client.create_conversation(agent.id, name)
        except LettaError as error:
            self.notify(f"Could not start a conversation: {error.message}",
                        title="Conversations", severity="error")
            return
        await self._open(agent, conversation.id)
        self.notify("New conversation started.", title="Conversations")

    def action_conversations(self) -> None:
        """List the agent's conversations to switch to, or start a new one."""
        from openletta.ui.screens.conversations import ConversationsScreen

        if (screen := self.open_chat()) is None or self.client is None:
            return
        agent = screen.session.agent
        self.first_messages.note(self.chats.first_messages())
        self.push_screen(ConversationsScreen(
            self.client, agent.id, screen.session.conversation_id, self.first_messages,
            lambda conversation: self.open_conversation(agent, conversation),
            lambda: self.new_conversation(agent), clock=self._clock))

    def action_new_conversation(self, name: str = "") -> None:
        """Start a new conversation (named ``name``) with the open agent and switch to it."""
        if (screen := self.open_chat()) is not None:
            self.new_conversation(screen.session.agent, name.strip() or None)
