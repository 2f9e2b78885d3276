"""``/model``: choose the model the agent runs on (a change of the agent on the server)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

from openletta.api.client import LettaClient
from openletta.display import plain_text
from openletta.ui.model_list import ModelPicker

HINT = "Enter switches the agent to the model (on the server, for every chat) · Esc cancels"


class ModelScreen(ModalScreen[str | None]):
    """Lists the server's models, the agent's own highlighted; returns the chosen handle
    (``None``: cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="model.cancel"),
    ]

    def __init__(self, client: LettaClient, agent_name: str, current: str) -> None:
        super().__init__()
        self.agent_name = agent_name
        self.picker = ModelPicker(client, hint=HINT, preferred=current, current=current)
        self.model_list = self.picker.model_list

    def compose(self) -> ComposeResult:
        with Vertical(classes="model-box"):
            yield Static(plain_text(f"Model of {self.agent_name}"), classes="model-box-title")
            yield self.picker

    def on_mount(self) -> None:
        self.model_list.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.model_list.models[event.option_index].handle)
