"""The agent chooser: type to search the server's agents, Enter opens one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from openletta.api.client import LettaClient
from openletta.api.errors import APIConnectionError, LettaError
from openletta.api.resources import Agent
from openletta.display import plain_text
from openletta.ui.dates import Clock, time_ago, utc_now
from openletta.ui.hanging import Hanging
from openletta.ui.key_bar import KeyBar
from openletta.ui.retry import TryAgain
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.screens.new_agent import NewAgentScreen, telling_apart
from openletta.ui.steady import SteadyInput
from openletta.ui.widgets.pick_list import PickList

SEARCH_DEBOUNCE = 0.25
LIST_LIMIT = 50

TRYING_AGAIN = "openletta tries again by itself."
#: How much of an agent's description the chooser shows.
DESCRIPTION_CHARS = 100


def agent_row(agent: Agent, now: datetime, *, same_name: bool = False) -> Hanging:
    """One chooser entry, shown literally: name, model, last activity, approval, description;
    ``same_name``: another listed agent has its name, so also what tells them apart. What
    follows the name wraps under itself, and the description under its first word."""
    name = plain_text(agent.name or agent.id, style="bold")
    name.append("  ")
    text = Text()
    if agent.model_name:
        text.append_text(plain_text(agent.model_name, style="dim"))
        text.append("  ")
    if agent.last_run_completion is not None:
        when = f"ran {time_ago(agent.last_run_completion, now)}"
    elif agent.updated_at is not None:  # (listed after those that ran, by the server)
        when = f"changed {time_ago(agent.updated_at, now)}"
    else:
        when = "never ran"
    text.append(f"· {when}", style="dim")
    if same_name:
        text.append(f" · {telling_apart(agent, now)}", style="dim")
    if agent.last_stop_reason == "requires_approval":
        text.append("  ⚠ approval pending", style="bold yellow")
    lines = [(name, text)]
    if agent.description:
        summary = " ".join(agent.description.split())
        if len(summary) > DESCRIPTION_CHARS:
            summary = summary[:DESCRIPTION_CHARS - 1] + "…"
        lines.append((Text("  "), plain_text(summary, style="dim italic")))
    return Hanging(*lines)


class AgentChooserScreen(Screen[None], ReportsWorkerErrors):
    """Lists agents (server-side search as you type); posts the chosen one to ``on_choose``.

    The most recently run come first, as the server orders them; but Letta 0.16.8 records no
    run's completion on its agents, and then orders them by nothing: the most recently
    changed (made, renamed, given a model or memory) come first instead. The agent of the
    chat last opened heads the full list, highlighted.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Next", show=False, priority=True),
        Binding("up", "move(-1)", "Previous", show=False, priority=True),
        Binding("ctrl+n", "new_agent", "New agent", id="agents.new"),
        Binding("escape", "back", "Back", id="agents.back"),
        # Ctrl+C asks to quit (twice quits), as everywhere: the search is not worth copying.
        Binding("ctrl+c", "app.help_quit", show=False, priority=True),
    ]

    def __init__(self, client: LettaClient, on_choose: Callable[[Agent], object], *,
                 server: str = "", demo: bool = False, search: str = "",
                 clock: Clock = utc_now, can_go_back: bool = False,
                 recent: str | None = None) -> None:
        """``server``: where the agents are, for the title; ``demo``: it is the embedded
        demo server (the title says how to use a real one); ``search``: the name searched
        for at first; ``recent``: the id of the agent of the chat last opened."""
        super().__init__()
        self.client = client
        self.server = server
        self.demo = demo
        self.agents: list[Agent] = []
        self._on_choose = on_choose
        self._clock = clock
        self._can_go_back = can_go_back
        self._debounce: Timer | None = None
        self._again = TryAgain(self)
        self._query = search
        #: The last page was full: the server may have more agents for this query.
        self._more = False
        #: The model of the agent listed first without a search: a new agent's at first.
        self._usual_model: str | None = None
        self._recent = recent
        self._order_by = "last_run_completion"

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="agents-title")
        yield Static("Type to search · ↑↓ move · Enter opens · Ctrl+N makes a new agent"
                     + ("" if self._can_go_back else " · Ctrl+Q quits"), id="agents-hint")
        yield SteadyInput(self._query, placeholder="Type to search agents by name…",
                    id="agent-filter")
        yield PickList(id="agent-list")
        yield Static(id="agents-empty")
        yield KeyBar()

    def _title(self) -> Text:
        title = Text("Choose an agent")
        if self.server:
            title.append(" on ")
            title.append_text(plain_text(self.server))
        if self.demo:
            title.append("  (set LETTA_BASE_URL, or LETTA_API_KEY for Letta Cloud, to use "
                         "your own)", style="not bold dim")
        return title

    def on_mount(self) -> None:
        self.query_one("#agent-filter", Input).focus()
        self.search(self._query)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return self._can_go_back
        return True

    @on(Input.Changed, "#agent-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        query = event.value.strip()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self.search(query))

    @on(Input.Submitted, "#agent-filter")
    def _filter_submitted(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and highlighted < len(self.agents):
            self._on_choose(self.agents[highlighted])

    @on(OptionList.OptionHighlighted, "#agent-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self._more and event.option_index >= len(self.agents) - 1:
            self.load_more()

    @on(OptionList.OptionSelected, "#agent-list")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        self._on_choose(self.agents[event.option_index])

    def action_move(self, step: int) -> None:
        """Move the highlight in the list while typing in the filter."""
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_new_agent(self) -> None:
        """Make an agent (named as the search, on the model of the agent listed first
        without one) and open it."""
        name = self.query_one("#agent-filter", Input).value.strip()
        self.app.push_screen(NewAgentScreen(self.client, name=name, model=self._usual_model,
                                            clock=self._clock), self._made)

    def _made(self, agent: Agent | None) -> None:
        if agent is not None:
            self._on_choose(agent)

    def action_back(self) -> None:
        """Return to the chat this chooser was opened from."""
        self.dismiss()

    @work(exclusive=True, group="agents", exit_on_error=False)
    async def search(self, query: str) -> None:
        """Fetch the first page of agents matching ``query`` (all when empty) and list them.
        While the server cannot be reached, it is tried again by itself."""
        self._query, self._more = query, False
        self._again.stop()
        try:
            agents = await self._first_page(query)
            if not query or (self._usual_model is None and not agents):
                usual = agents if not query else await self.client.list_agents(limit=1)
                self._usual_model = usual[0].model_name if usual else None
        except APIConnectionError as error:
            self._show_agents([], f"Could not list agents: {error.message}\n{TRYING_AGAIN}")
            self._again.later(lambda: self.search(query))
            return
        except LettaError as error:
            self._show_agents([], f"Could not list agents: {error.message}")
            self.notify(error.message, title="Agents", severity="error")
            return
        self._again.reset()
        if query:
            empty = f"No agent name contains {query!r}. Ctrl+N makes one."
        else:
            empty = "This server has no agents yet. Ctrl+N makes one."
        self._more = len(agents) == LIST_LIMIT
        self._show_agents(list(agents), empty)

    @work(exclusive=True, group="agents", exit_on_error=False)
    async def load_more(self) -> None:
        """Fetch the next page of the list (the user reached its end)."""
        self._more = False
        try:
            agents = await self.client.list_agents(query=self._query or None, limit=LIST_LIMIT,
                                                   after=self.agents[-1].id,
                                                   order_by=self._order_by)
        except LettaError as error:
            self.notify(f"Could not list more agents: {error.message}", title="Agents",
                        severity="error")
            return
        self._more = len(agents) == LIST_LIMIT
        shared_before, earlier = self._shared_names(), len(self.agents)
        self.agents.extend(agents)
        shared, now = self._shared_names(), self._clock()
        options = self.query_one(OptionList)
        for listed in self.agents[:earlier]:
            if listed.name in shared - shared_before:  # its namesake came with this page
                options.replace_option_prompt(listed.id, agent_row(listed, now, same_name=True))
        options.add_options(self._option(agent, now, shared) for agent in agents)

    async def _first_page(self, query: str) -> list[Agent]:
        """The first page of agents matching ``query``, most recent first (see the class)."""
        agents = await self.client.list_agents(query=query or None, limit=LIST_LIMIT,
                                               order_by=self._order_by)
        if agents and self._order_by == "last_run_completion" and all(
                agent.last_run_completion is None for agent in agents):
            self._order_by = "updated_at"  # (what the rows say instead: "changed …")
            agents = await self.client.list_agents(query=query or None, limit=LIST_LIMIT,
                                                   order_by=self._order_by)
        if self._recent and not query:
            agents.sort(key=lambda agent: agent.id != self._recent)  # (stable: the rest stay)
        return agents

    def _shared_names(self) -> set[str]:
        """The names more than one listed agent has."""
        counts = Counter(agent.name for agent in self.agents if agent.name)
        return {name for name, count in counts.items() if count > 1}

    @staticmethod
    def _option(agent: Agent, now: datetime, shared: set[str]) -> Option:
        return Option(agent_row(agent, now, same_name=agent.name in shared), id=agent.id)

    def _show_agents(self, agents: list[Agent], empty_message: str) -> None:
        self.agents = agents
        shared, now = self._shared_names(), self._clock()
        options = self.query_one(OptionList)
        options.set_options(self._option(agent, now, shared) for agent in agents)
        if agents:
            options.highlighted = 0
        empty = self.query_one("#agents-empty", Static)
        empty.update(plain_text(empty_message))
        empty.display = not agents
