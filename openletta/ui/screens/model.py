"""``/model``: choose the model the agent runs on (a change of the agent on the server)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from openletta.api.client import LettaClient
from openletta.display import plain_text
from openletta.ui.key_bar import KeyBar
from openletta.ui.model_list import ModelPicker, Reread

HINT = ("Type to filter · ↑↓ to move · Enter switches the agent to the model (on the server, "
        "for every chat) · Esc cancels")


class ModelScreen(ModalScreen[str | None]):
    """Lists the server's models (typing filters them by handle), the agent's own
    highlighted; returns the chosen handle (``None``: cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="model.cancel"),
    ]

    def __init__(self, client: LettaClient, agent_name: str, current: str, *,
                 reread: Reread | None = None) -> None:
        """``reread``: reads the model in use now (marked once read), as the models are."""
        super().__init__()
        self.agent_name = agent_name
        self.picker = ModelPicker(client, hint=HINT, preferred=current, current=current,
                                  reread=reread)
        self.model_list = self.picker.model_list

    def compose(self) -> ComposeResult:
        with Vertical(classes="model-box"):
            yield Static(plain_text(f"Model of {self.agent_name}"), classes="model-box-title")
            yield self.picker
        yield KeyBar()

    def on_mount(self) -> None:
        self.picker.filter.focus()

    @on(ModelPicker.Chosen)
    def _chosen(self, event: ModelPicker.Chosen) -> None:
        self.dismiss(event.handle)
