"""Making an agent (Ctrl+N in the agent chooser): a name and one of the server's models."""

from __future__ import annotations

import re
from datetime import datetime
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
from openletta.ui.dates import Clock, time_ago, utc_now
from openletta.ui.fitting import outer_rows
from openletta.ui.formatting import short_id
from openletta.ui.key_bar import KeyBar
from openletta.ui.model_list import ModelList, ModelPicker, StatusLine
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
#: Under this height the form is compact (its title one line, its fields without a border
#: or the space around them), for the models to show more than a row or two.
SHORT_HEIGHT = 30
#: The most rows the list of models takes (its border included), and the fewest.
MOST_LIST_ROWS, LEAST_LIST_ROWS = 12, 3
#: The characters Letta takes in an agent name (0.16.8 checks ``^[\w '\-]+$`` when it makes
#: one, and answers any other with an internal error, HTTP 500).
NAME_CHARACTER = re.compile(r"[\w '\-]")


def unaccepted_characters(name: str) -> list[str]:
    """The characters of ``name`` that Letta does not take in an agent name, each once."""
    return list(dict.fromkeys(c for c in name if not NAME_CHARACTER.fullmatch(c)))


def name_rule(unaccepted: list[str]) -> str:
    """What the form says of a name with ``unaccepted`` characters (each quoted)."""
    quoted = [f"“{c}”" if c.isprintable() else repr(c)[1:-1] for c in unaccepted]
    refused = " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
    return ("A name takes letters (any language), digits, spaces, hyphens, underscores and "
            f"straight apostrophes ('); not {refused}")


def telling_apart(agent: Agent, now: datetime) -> str:
    """What tells ``agent`` from another of the same name: when it was made, and its id's
    start (``made 2 d ago · agent-1a2b3c4d``)."""
    made = f"made {time_ago(agent.created_at, now)} · " if agent.created_at else ""
    return made + short_id(agent.id)


def same_name_warning(name: str, other: Agent, now: datetime) -> str:
    """What the form says when ``other`` has the name ``name`` already."""
    return (f"Another agent is named {name} already ({telling_apart(other, now)}). Enter "
            f"again makes a second {name}; or change the name.")


class NewAgentScreen(ModalScreen[Agent | None], ReportsWorkerErrors):
    """Asks for a name and a model, makes the agent and returns it (``None``: cancelled).

    ``model``: the handle to highlight first (e.g. that of the agent used last), when the
    server lists it. A name another agent has already is said so first: Enter again makes
    the agent all the same.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="new_agent.cancel"),
        Binding("down", "move(1)", "Next model", show=False, priority=True),
        Binding("up", "move(-1)", "Previous model", show=False, priority=True),
    ]

    def __init__(self, client: LettaClient, *, name: str = "", model: str | None = None,
                 clock: Clock = utc_now) -> None:
        super().__init__()
        self.client = client
        self.picker = ModelPicker(client, hint=HINT, preferred=model)
        self.model_list, self.status = self.picker.model_list, self.picker.status
        self._start_name = name
        self._clock = clock
        self._creating = False
        #: The name another agent has, that the user was told of and kept.
        self._same_name_kept: str | None = None

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

    def on_resize(self) -> None:
        self.query_one("#new-agent-box").set_class(self.size.height < SHORT_HEIGHT, "-short")
        self._refit()

    @on(ModelList.Loaded)
    @on(StatusLine.Resized)
    def _refit(self) -> None:
        self.call_after_refresh(self.fit_models)

    def fit_models(self) -> None:
        """Cap the list of models to the rows the rest of the form leaves on the screen: it
        scrolls to the model highlighted, and the hint under it stays in sight."""
        box, listing = self.query_one("#new-agent-box"), self.model_list
        parts = [*box.children, *self.picker.children]
        others = box.styles.gutter.height + sum(
            outer_rows(part) for part in parts
            if part.display and part not in (self.picker, listing))
        room = self.size.height - self.query_one(KeyBar).outer_size.height - others
        listing.styles.max_height = max(LEAST_LIST_ROWS, min(MOST_LIST_ROWS, room))
        if listing.highlighted is not None:
            self.call_after_refresh(listing.scroll_to_highlight)

    @property
    def models_listed(self) -> bool:
        return bool(self.model_list.models)

    @on(Input.Changed, "#new-agent-name")
    def _name_changed(self, event: Input.Changed) -> None:
        self._same_name_kept = None
        if unaccepted := unaccepted_characters(event.value.strip()):
            self.status.say(name_rule(unaccepted), error=True)
        elif self.models_listed and not self._creating:
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
        """Make the agent on ``model``; close with it, or say why not and keep the form. A
        name another agent has is made only when chosen again after being told so."""
        name_input = self.query_one("#new-agent-name", Input)
        name = name_input.value.strip()
        problem = name_rule(unaccepted) if (unaccepted := unaccepted_characters(name)) else (
            None if name else NAME_NEEDED)
        if problem is not None:
            self.status.say(problem, error=True)
            name_input.focus()
            return
        if self._creating:
            return
        self._creating = True
        try:
            if name != self._same_name_kept and (other := await self._agent_named(name)):
                self._same_name_kept = name
                self.status.say(same_name_warning(name, other, self._clock()), error=True)
                return
            self.status.say(f"Making {name} on {model}…")
            agent = await self.client.create_agent(name, model, STARTING_MEMORY)
        except LettaError as error:
            self.status.say(f"Could not make the agent: {error.message}", error=True)
            return
        finally:
            self._creating = False
        self.dismiss(agent)

    async def _agent_named(self, name: str) -> Agent | None:
        """An agent named exactly ``name``; ``None`` also when the server cannot say (the
        agent is made then: this only warns)."""
        try:
            agents = await self.client.list_agents(name=name, limit=1)
        except LettaError:
            return None
        return agents[0] if agents else None
