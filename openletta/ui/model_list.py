"""The server's models, as a list to choose one from (a new agent's, or another for an agent)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Model
from openletta.display import plain_text
from openletta.ui.formatting import format_tokens
from openletta.ui.steady import SteadyInput
from openletta.ui.widgets.pick_list import PickList

#: Reads the handle of the model in use now (from the server).
Reread = Callable[[], Awaitable[str]]


def model_row(model: Model, *, current: bool = False) -> Text:
    """One model entry, shown literally: its handle, context window, and whether it is the
    one in use."""
    text = plain_text(model.handle, style="bold")
    if model.context_window:
        text.append(f"  {format_tokens(model.context_window)} context", style="dim")
    if current:
        text.append("  · in use", style="dim italic")
    return text


class ModelList(PickList):
    """Lists the server's models once mounted, ``preferred`` highlighted (else the first);
    posts :class:`Loaded` or :class:`Failed`. ``current``: the handle marked as in use, or
    the one ``reread`` gives (read beside the models; then highlighted too)."""

    class Loaded(Message):
        """The models are listed."""

    class Failed(Message):
        """The models could not be listed: ``reason`` says why, for the user."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, client: LettaClient, *, preferred: str | None = None,
                 current: str | None = None, reread: Reread | None = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.client = client
        self._reread = reread
        #: Every model the server lists, and those shown (all, or those a filter matches).
        self.all_models: list[Model] = []
        self.models: list[Model] = []
        self._preferred = preferred
        self._current = current

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="models", exit_on_error=False)
    async def load(self) -> None:
        """Ask the server for its models and list them."""
        try:
            if self._reread is None:
                models = await self.client.list_models()
            else:
                models, current = await asyncio.gather(self.client.list_models(),
                                                       self._reread())
                if self._preferred == self._current:
                    self._preferred = current
                self._current = current
        except LettaError as error:
            self.post_message(self.Failed(f"Could not list the server's models: "
                                          f"{error.message}"))
            return
        if not models:
            self.post_message(self.Failed("The server lists no model to run an agent on."))
            return
        self.all_models = models
        self.show_matching("")
        self.post_message(self.Loaded())

    def show_matching(self, text: str) -> list[Model]:
        """Show the models whose handle contains ``text`` (any case), the preferred one
        highlighted if shown, else the first; returns them."""
        wanted = text.strip().lower()
        self.models = [model for model in self.all_models if wanted in model.handle.lower()]
        self.set_options(Option(model_row(model, current=model.handle == self._current),
                                id=model.handle) for model in self.models)
        handles = [model.handle for model in self.models]
        if handles:
            self.highlighted = (handles.index(self._preferred) if self._preferred in handles
                                else 0)
        return self.models


class StatusLine(Static):
    """A line under a form that says what goes on, or what went wrong (class ``-error``);
    posts :class:`Resized` when what it says takes more or fewer rows."""

    class Resized(Message):
        """The line's rows changed: a form fitted to the screen fits itself again."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def say(self, message: str, *, error: bool = False) -> None:
        """Show ``message`` (literally)."""
        self.update(plain_text(message))
        self.set_class(error, "-error")


class ModelPicker(Vertical):
    """A filter field over a :class:`ModelList` over a :class:`StatusLine`.

    Typing in the field shows the models whose handle holds the text; ↑↓ move in the list
    meanwhile, and Enter (in the field or on a row) posts :class:`Chosen`. The status line
    says the list is loading, then ``hint``, or why the models could not be listed, or that
    none matches.
    """

    DEFAULT_CLASSES = "model-picker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Next", show=False, priority=True),
        Binding("up", "move(-1)", "Previous", show=False, priority=True),
    ]

    class Chosen(Message):
        """The user chose the model ``handle``."""

        def __init__(self, handle: str) -> None:
            super().__init__()
            self.handle = handle

    def __init__(self, client: LettaClient, *, hint: str, preferred: str | None = None,
                 current: str | None = None, reread: Reread | None = None) -> None:
        super().__init__()
        self.hint = hint
        self.filter = SteadyInput(placeholder="Type to filter models…", classes="model-filter")
        self.model_list = ModelList(client, preferred=preferred, current=current,
                                    reread=reread)
        self.status = StatusLine("Loading the server's models…", classes="model-box-status")

    def compose(self) -> ComposeResult:
        yield self.filter
        yield self.model_list
        yield self.status

    def action_move(self, step: int) -> None:
        """Move the highlight in the list (while typing in the filter too)."""
        if step > 0:
            self.model_list.action_cursor_down()
        else:
            self.model_list.action_cursor_up()

    @on(ModelList.Loaded)
    def _loaded(self) -> None:
        self.status.say(self.hint)

    @on(ModelList.Failed)
    def _failed(self, event: ModelList.Failed) -> None:
        self.status.say(event.reason, error=True)

    @on(Input.Changed, ".model-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if not self.model_list.all_models:
            return
        if self.model_list.show_matching(event.value):
            self.status.say(self.hint)
        else:
            self.status.say(f"No model's handle contains {event.value.strip()!r}.", error=True)

    def choose_highlighted(self) -> None:
        """Choose the model highlighted (none while none is listed)."""
        index = self.model_list.highlighted
        if index is not None and index < len(self.model_list.models):
            self.post_message(self.Chosen(self.model_list.models[index].handle))

    @on(Input.Submitted, ".model-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.choose_highlighted()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(self.model_list.models[event.option_index].handle))
