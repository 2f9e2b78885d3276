"""The model the agent runs on, kept as the server has it: another client may change it
(``/model`` there), and this one shows the new model once it has a reason to look.

No Textual here. What is looked at is the agent, read again (one request) when the model
matters: a turn failed, the steps of a run read anyway ran on another model, ``/model``
opens.
"""

from __future__ import annotations

from openletta.api.errors import LettaError
from openletta.api.resources import Agent
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import TurnListener


def changed_elsewhere(agent: Agent) -> str:
    """What the user is told when the agent's model turns out to have changed."""
    return f"{agent.name or 'The agent'} now runs on {agent.model_name} (changed elsewhere)."


def runs_on(agent: Agent, model: str) -> bool:
    """Whether ``model`` (a step's model handle, or its model's name) is ``agent``'s."""
    config = agent.llm_config
    names = {agent.model, agent.model_name, *((config.handle, config.model) if config else ())}
    return model in names


async def recheck_model(session: ChatSession, listener: TurnListener) -> None:
    """Read the session's agent again; when its model (or context window) is not the one
    shown, show the new one, and say so when the model is another. A server that cannot
    be read leaves what is shown."""
    before = session.agent.model_name
    try:
        changed = await session.reread_agent()
    except LettaError:
        return
    if not changed:
        return
    listener.agent_changed(session.agent)
    if session.agent.model_name != before:
        listener.report(changed_elsewhere(session.agent), title="Model", severity="warning",
                        notice=True)
