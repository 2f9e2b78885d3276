"""Making an agent (Ctrl+N in the agent chooser): a name and one of the server's models."""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Agent
from openletta.ui.key_bar import KeyBar
from openletta.ui.model_list import ModelPicker
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.steady import SteadyInput

#: The core memory a new agent starts with (the user edits it later with F2).
STARTING_MEMORY = {
    "persona": "I am a helpful assistant. I keep what I learn about the user and our work "
               "in my memory, and I say so when I do not know something.",
    "human": "Nothing is known about the user yet.",
}
NAME_NEEDED = "The agent needs a name."
#: What the box says under the models: one line at its width (it fits an 80x24 window with
#: the list readable), and above them, the memory the agent starts with.
HINT = "Enter makes it · ↑↓ picks a model · Tab filters the models · Esc cancels"
TITLE = "New agent · starts with persona and human memory blocks (F2 edits them)"


class NewAgentScreen(ModalScreen[Agent | None], ReportsWorkerErrors):
    """Asks for a name and a model, makes the agent and returns it (``None``: cancelled).

    ``model``: the handle to highlight first (e.g. that of the agent used last), when the
    server lists it.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="new_agent.cancel"),
        Binding("down", "move(1)", "Next model", show=False, priority=True),
        Binding("up", "move(-1)", "Previous model", show=False, priority=True),
    ]

    def __init__(self, client: LettaClient, *, name: str = "", model: str | None = None
                 ) -> None:
        super().__init__()
        self.client = client
        self.picker = ModelPicker(client, hint=HINT, preferred=model)
        self.model_list, self.status = self.picker.model_list, self.picker.status
        self._start_name = name
        self._creating = False

    def compose(self) -> ComposeResult:
        with Vertical(id="new-agent-box", classes="model-box"):
            yield Static(TITLE, classes="model-box-title")
            yield Static("Name", classes="model-box-label")
            yield SteadyInput(self._start_name, placeholder="e.g. coding-helper",
                              id="new-agent-name")
            yield Static("Model", classes="model-box-label")
            yield self.picker
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#new-agent-name", Input).focus()

    @property
    def models_listed(self) -> bool:
        return bool(self.model_list.models)

    @on(Input.Changed, "#new-agent-name")
    def _name_changed(self) -> None:
        if self.models_listed and not self._creating:
            self.status.say(HINT)

    def action_move(self, step: int) -> None:
        """Move the highlight in the models, from the name field too."""
        self.picker.action_move(step)

    @on(Input.Submitted, "#new-agent-name")
    def _name_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            self.status.say(NAME_NEEDED, error=True)
        else:
            self.picker.choose_highlighted()

    @on(ModelPicker.Chosen)
    def _model_chosen(self, event: ModelPicker.Chosen) -> None:
        self.create(event.handle)

    @work(exclusive=True, group="create", exit_on_error=False)
    async def create(self, model: str) -> None:
        """Make the agent on ``model``; close with it, or say why not and keep the form."""
        name_input = self.query_one("#new-agent-name", Input)
        name = name_input.value.strip()
        if not name:
            self.status.say(NAME_NEEDED, error=True)
            name_input.focus()
            return
        if self._creating:
            return
        self._creating = True
        self.status.say(f"Making {name} on {model}…")
        try:
            agent = await self.client.create_agent(name, model, STARTING_MEMORY)
        except LettaError as error:
            self.status.say(f"Could not make the agent: {error.message}", error=True)
            return
        finally:
            self._creating = False
        self.dismiss(agent)
