"""Making an agent (Ctrl+N in the agent chooser): a name and one of the server's models."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Agent, Model
from openletta.display import plain_text
from openletta.ui.formatting import format_tokens
from openletta.ui.screens.base import ReportsWorkerErrors

#: The core memory a new agent starts with (the user edits it later with F2).
STARTING_MEMORY = {
    "persona": "I am a helpful assistant. I keep what I learn about the user and our work "
               "in my memory, and I say so when I do not know something.",
    "human": "Nothing is known about the user yet.",
}
HINT = ("Enter on a model makes the agent, with a persona and a human memory block "
        "(F2 in the chat shows and edits them) · Esc cancels")


def model_row(model: Model) -> Text:
    """One model entry, shown literally: its handle and context window."""
    text = plain_text(model.handle, style="bold")
    if model.context_window:
        text.append(f"  {format_tokens(model.context_window)} context", style="dim")
    return text


class NewAgentScreen(ModalScreen[Agent | None], ReportsWorkerErrors):
    """Asks for a name and a model, makes the agent and returns it (``None``: cancelled).

    ``model``: the handle to highlight first (e.g. that of the agent used last), when the
    server lists it.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="new_agent.cancel"),
    ]

    def __init__(self, client: LettaClient, *, name: str = "", model: str | None = None
                 ) -> None:
        super().__init__()
        self.client = client
        self.models: list[Model] = []
        self._start_name = name
        self._preferred = model
        self._creating = False

    def compose(self) -> ComposeResult:
        with Vertical(id="new-agent-box"):
            yield Static("New agent", id="new-agent-title")
            yield Static("Name", classes="new-agent-label")
            yield Input(self._start_name, placeholder="e.g. coding-helper", id="new-agent-name")
            yield Static("Model", classes="new-agent-label")
            yield OptionList(id="new-agent-models")
            yield Static("Loading the server's models…", id="new-agent-status")

    def on_mount(self) -> None:
        self.query_one("#new-agent-name", Input).focus()
        self.load_models()

    @work(exclusive=True, group="models", exit_on_error=False)
    async def load_models(self) -> None:
        """List the server's models, the preferred one highlighted."""
        try:
            models = await self.client.list_models()
        except LettaError as error:
            self._say(f"Could not list the server's models: {error.message}", error=True)
            return
        if not models:
            self._say("The server lists no model to run an agent on.", error=True)
            return
        self.models = models
        options = self.query_one("#new-agent-models", OptionList)
        options.set_options(Option(model_row(model), id=model.handle) for model in models)
        handles = [model.handle for model in models]
        options.highlighted = handles.index(self._preferred) if self._preferred in handles else 0
        self._say(HINT)

    @on(Input.Changed, "#new-agent-name")
    def _name_changed(self) -> None:
        if self.models and not self._creating:
            self._say(HINT)

    @on(Input.Submitted, "#new-agent-name")
    def _name_submitted(self) -> None:
        if self.models:
            self.query_one("#new-agent-models", OptionList).focus()

    @on(OptionList.OptionSelected, "#new-agent-models")
    def _model_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.create(self.models[event.option_index].handle)

    @work(exclusive=True, group="create", exit_on_error=False)
    async def create(self, model: str) -> None:
        """Make the agent on ``model``; close with it, or say why not and keep the form."""
        name_input = self.query_one("#new-agent-name", Input)
        name = name_input.value.strip()
        if not name:
            self._say("The agent needs a name.", error=True)
            name_input.focus()
            return
        if self._creating:
            return
        self._creating = True
        self._say(f"Making {name} on {model}…")
        try:
            agent = await self.client.create_agent(name, model, STARTING_MEMORY)
        except LettaError as error:
            self._say(f"Could not make the agent: {error.message}", error=True)
            return
        finally:
            self._creating = False
        self.dismiss(agent)

    def _say(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#new-agent-status", Static)
        status.update(plain_text(message))
        status.set_class(error, "-error")
