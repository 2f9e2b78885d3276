"""Moving between conversations (``/conversations``, ``/new``): the base of
:class:`~openletta.ui.app.OpenLettaApp` that lists, starts and opens them."""

from __future__ import annotations

from textual import work

from openletta.api.errors import LettaError
from openletta.api.resources import Agent
from openletta.ui.chat_commands import ChatCommands
from openletta.ui.first_messages import FirstMessages
from openletta.ui.printout import ChatsOfThisRun


class ConversationActions(ChatCommands):
    """App actions that list, start and open the open agent's conversations."""

    chats: ChatsOfThisRun
    #: The user's first message in each conversation, as far as known in this run.
    first_messages: FirstMessages

    async def _open(self, agent: Agent, conversation: str | None) -> None:
        """Open the chat with ``conversation`` of ``agent`` (the app's)."""
        raise NotImplementedError

    @work(exclusive=True, group="open", exit_on_error=False)
    async def open_conversation(self, agent: Agent, conversation: str | None) -> None:
        """Open ``conversation`` of ``agent`` (``None``: its default thread)."""
        await self._open(agent, conversation)

    @work(exclusive=True, group="open", exit_on_error=False)
    async def new_conversation(self, agent: Agent, name: str | None = None) -> None:
        """Create a conversation with ``agent`` (named ``name``) and open it."""
        assert self.client is not None
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
