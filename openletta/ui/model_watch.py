"""The agent's model (and its context window) in a chat's status bar, kept as the server
has it (another client may change it): the part of
:class:`~openletta.ui.screens.chat.ChatScreen` that reads it again when it matters (see
:mod:`openletta.chat.agent_model`)."""

from __future__ import annotations

import dataclasses
from typing import cast

from textual import work
from textual.dom import DOMNode

from openletta.api.resources import Agent
from openletta.chat.agent_model import recheck_model, runs_on
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import TurnListener
from openletta.ui.status_bar import StatusBar


class WatchesModel(DOMNode):
    """Shows the agent's model and reads it again when what the app reads says it changed.
    The screen it is a base of is the chat's :class:`TurnListener`."""

    session: ChatSession
    status: StatusBar

    def agent_changed(self, agent: Agent) -> None:
        self.status.info = dataclasses.replace(self.status.info, model=agent.model_name,
                                               context_window=agent.context_window)

    def window_seen(self, window: int) -> None:
        """The server says the agent's context window is ``window`` tokens (``/context``):
        when the gauge has another, the agent is read again (changed elsewhere)."""
        if window != self.session.agent.context_window:
            self.recheck_model()

    def model_seen(self, model: str | None) -> None:
        """A run's steps, read for something else, ran on ``model``: when that is not the
        agent's model shown, the agent is read again."""
        if model and not runs_on(self.session.agent, model):
            self.recheck_model()

    @work(group="model-check", exclusive=True, exit_on_error=False)
    async def recheck_model(self) -> None:
        """Read the agent again; show (and say) the model it runs on now."""
        await self.model_now()

    async def model_now(self) -> str:
        """The agent's model as the server has it now (the one known if it cannot be
        read), shown and said if it changed."""
        await recheck_model(self.session, cast(TurnListener, self))
        return self.session.agent.model_name
