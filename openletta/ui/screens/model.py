"""``/model``: choose the model the agent runs on (a change of the agent on the server)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static

from openletta.api.client import LettaClient
from openletta.display import plain_text
from openletta.ui.model_list import ModelPicker
from openletta.ui.steady import SteadyInput

HINT = ("Type to filter · ↑↓ to move · Enter switches the agent to the model (on the server, "
        "for every chat) · Esc cancels")


class ModelScreen(ModalScreen[str | None]):
    """Lists the server's models (typing filters them by handle), the agent's own
    highlighted; returns the chosen handle (``None``: cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Next", show=False, priority=True),
        Binding("up", "move(-1)", "Previous", show=False, priority=True),
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
            yield SteadyInput(placeholder="Type to filter models…", id="model-filter")
            yield self.picker

    def on_mount(self) -> None:
        self.query_one("#model-filter", Input).focus()

    def action_move(self, step: int) -> None:
        """Move the highlight in the list while typing in the filter."""
        if step > 0:
            self.model_list.action_cursor_down()
        else:
            self.model_list.action_cursor_up()

    @on(Input.Changed, "#model-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if not self.model_list.all_models:
            return
        if self.model_list.show_matching(event.value):
            self.picker.status.say(HINT)
        else:
            self.picker.status.say(f"No model's handle contains {event.value.strip()!r}.",
                                   error=True)

    @on(Input.Submitted, "#model-filter")
    def _filter_submitted(self) -> None:
        index = self.model_list.highlighted
        if index is not None and index < len(self.model_list.models):
            self.dismiss(self.model_list.models[index].handle)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.model_list.models[event.option_index].handle)
