"""``/approvals``: the agent's tools, which need approval, and a toggle for each."""

from __future__ import annotations

from collections.abc import Sequence
from textwrap import wrap
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.chat.local_calls import LocalCalls
from openletta.display import plain_text
from openletta.tools import LOCAL_TOOLS
from openletta.ui.fitting import outer_rows
from openletta.ui.formatting import home_relative
from openletta.ui.key_bar import KeyBar
from openletta.ui.widgets.pick_list import PickSelectionList

HINT = ("Checked tools wait for your approval; the rule is stored on the server, for every "
        "client. Checking one also ends a \"don't ask again this session\".")
LOCAL_HINT = ("Checked tools ask before they run here; unchecked ones run unasked in this "
              "project (saved on this machine). Checking one also ends a \"don't ask again this "
              "session\". Paths outside the directory always ask.")
#: Where tools are added to the agent: openletta lists and rules them, it does not attach them.
ATTACH_HINT = ("Server tools (read_file, bash, …) are attached to the agent in the ADE or "
               "through Letta's API, not here. openletta's local tools ({names}) need no "
               "attaching: {where}.")
#: The same in a line, where the room is short (the first that fits the dialog's width).
SHORT_ATTACH_HINTS = ("Server tools are attached in the ADE or through Letta's API.",
                      "Server tools are attached in the ADE or Letta's API.")
KEYS = "Space toggles · Tab goes to the other list · Esc closes"
KEYS_ONE_LIST = "Space toggles · Esc closes"
#: Rows a list keeps however little room there is (its border and one tool).
LEAST_LIST_ROWS = 3
#: Rows a list is given before the hints above the lists are (its border and three tools):
#: on a short screen the hints go, for the lists to show more than a row.
ROOMY_LIST_ROWS = 5


def list_heights(needs: Sequence[int], room: int, least: int = LEAST_LIST_ROWS) -> list[int]:
    """The heights of lists that need ``needs`` rows, to fit in ``room`` rows: each its need
    when they all fit; else the room shared, a list needing less than its share keeping its
    need and the rest going to the others (none under ``least``)."""
    heights = list(needs)
    left, waiting = room, len(needs)
    for index in sorted(range(len(needs)), key=needs.__getitem__):
        heights[index] = max(least, min(needs[index], left // waiting))
        left, waiting = left - heights[index], waiting - 1
    return heights


def attach_hint(local: LocalCalls | None) -> str:
    """Where server tools are attached, and that the local tools need not be (``local``: the
    chat's, ``None`` when it runs without them)."""
    tools = local.tools if local is not None else LOCAL_TOOLS
    return ATTACH_HINT.format(
        names=", ".join(tool.name for tool in tools),
        where="they are listed below" if local is not None else "this chat runs without them "
                                                       "(--no-local-tools)")


class ApprovalRulesScreen(ModalScreen[None]):
    """Lists the agent's tools; toggling one changes its rule on the server at once."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Close")]

    def __init__(self, client: LettaClient, agent_id: str, agent_name: str,
                 local: LocalCalls | None = None, session: set[str] | None = None) -> None:
        """``local``: the tools run here, listed with the user's rules for them;
        ``session``: the server's tools approved "for this session" (changed here)."""
        super().__init__()
        self.client = client
        self.agent_id = agent_id
        self.agent_name = agent_name
        self.local = local
        self.session = session if session is not None else set()
        self._local_tools = PickSelectionList[str](id="local-rules-list")
        self._tools = PickSelectionList[str](id="rules-list")
        self._status = Static("Loading tools…", id="rules-status", classes="rules-status")
        self._local_status = Static("", id="local-rules-status", classes="rules-status")
        #: The rule as the server holds it, per tool (to undo a toggle that failed).
        self._required: dict[str, bool] = {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rules-box"):
            yield Static(plain_text(f"Approval rules of {self.agent_name}"), id="rules-title")
            yield Static(HINT, id="rules-hint", classes="rules-hint")
            yield self._tools
            yield self._status
            yield Static(attach_hint(self.local), id="attach-hint")
            if self.local is not None:
                where = home_relative(self.local.workspace.root)
                yield Static("", classes="rules-hint rules-gap")  # (goes with the hints)
                yield Static(plain_text(f"Local tools, run here in {where} "
                                        f"(mode: {self.local.mode.label})"),
                             id="local-rules-title")
                yield Static(LOCAL_HINT, id="local-rules-hint", classes="rules-hint")
                yield self._local_tools
                yield self._local_status
            yield Static(KEYS if self.local is not None else KEYS_ONE_LIST, id="rules-keys")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()
        if self.local is not None:
            self._show_local_rules(self.local)
            asking = len(self._local_tools.selected)
            self._local_status.update(f"{len(self.local.tools)} tools · {asking} "
                                      f"{'asks' if asking == 1 else 'ask'} before running")

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_lists)

    def fit_lists(self) -> None:
        """Cap the lists' heights so the whole dialog fits on the screen (the lists scroll);
        on a short screen without the hints, for each list to show a few rows, and with
        where server tools are attached said in a line."""
        box = self.query_one("#rules-box")
        attach = self.query_one("#attach-hint", Static)
        lists = [listing for listing in (self._tools, self._local_tools) if listing.is_mounted]
        hints = list(box.query(".rules-hint").results(Static))
        room = self.size.height - self.query_one(KeyBar).outer_size.height
        room -= box.styles.gutter.height + sum(
            outer_rows(child) for child in box.children
            if child not in (*lists, *hints, attach) and child.display)
        needs = [listing.option_count + listing.styles.gutter.height for listing in lists]
        width = max(box.size.width - box.styles.scrollbar_size_vertical, 1)  # were it to scroll
        hint_rows = sum(max(1, len(wrap(str(hint.content), width))) for hint in hints)
        short = next((line for line in SHORT_ATTACH_HINTS if len(line) <= width),
                     SHORT_ATTACH_HINTS[-1])
        full = attach_hint(self.local)
        for with_hints, said in ((True, full), (False, short)):
            rows = len(wrap(said, width)) + (hint_rows if with_hints else 0)
            heights = list_heights(needs, room - rows)
            if said is short or all(height >= min(need, ROOMY_LIST_ROWS)
                                    for height, need in zip(heights, needs, strict=True)):
                break
        for hint in hints:
            hint.display = with_hints
        if str(attach.content) != said:
            attach.update(said)
        for listing, height in zip(lists, heights, strict=True):
            listing.styles.max_height = height

    @staticmethod
    def _local_rows(local: LocalCalls) -> list[Selection[str]]:
        permissions = local.permissions
        project = set(permissions.project_rules.allowed(local.workspace.root))
        rows = []
        for tool in local.tools:
            rule = ("allowed in this project" if tool.name in project else
                    "allowed this session" if tool.name in permissions.session else "asks")
            rows.append(Selection(f"{tool.name} · {rule}", tool.name,
                                  tool.name not in project | permissions.session))
        return rows

    @on(SelectionList.SelectionToggled, "#local-rules-list")
    def _local_toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        event.stop()
        assert self.local is not None
        tool, permissions = event.selection.value, self.local.permissions
        if tool in self._local_tools.selected:  # asks again
            permissions.session.discard(tool)
            permissions.project_rules.revoke(self.local.workspace.root, tool)
            self._local_status.update(f"{tool} asks again before it runs here.")
        else:
            permissions.allow_always(tool)
            self._local_status.update(f"{tool} now runs here without asking, in this project.")
        self._show_local_rules(self.local)

    def _show_local_rules(self, local: LocalCalls) -> None:
        """(Re)fill the list of local tools with their rules, keeping the highlight (on the
        first tool at first: Space toggles the tool in sight)."""
        listing = self._local_tools
        highlighted = listing.highlighted
        with listing.prevent(SelectionList.SelectionToggled):
            listing.clear_options()
            listing.add_options(self._local_rows(local))
        listing.highlighted = 0 if highlighted is None and local.tools else highlighted
        self.call_after_refresh(self.fit_lists)

    @work(exclusive=True, group="rules", exit_on_error=False)
    async def load(self) -> None:
        """Read the agent's tools and rules."""
        try:
            agent = await self.client.get_agent(self.agent_id, tools=True,
                                                pending_approval=False)
        except LettaError as error:
            self._status.update(plain_text(f"Could not read the tools: {error.message}"))
            return
        required = agent.tools_requiring_approval
        self._required = {tool.name: tool.name in required for tool in agent.tools if tool.name}
        self._show_server_rules()
        needing, allowed = len(required), len(set(required) & self.session)
        self._status.update(f"{len(self._required)} tools · {needing} "
                            f"{'needs' if needing == 1 else 'need'} approval"
                            + (f" ({allowed} allowed this session)" if allowed else ""))
        self._tools.highlighted = 0 if self._required else None
        self._tools.focus()

    def _show_server_rules(self) -> None:
        """(Re)fill the list of the server's tools, keeping the highlight: checked when a
        call waits for approval."""
        listing, highlighted = self._tools, self._tools.highlighted
        with listing.prevent(SelectionList.SelectionToggled):
            listing.clear_options()
            listing.add_options(
                Selection(plain_text(f"{name} · {self._server_rule(name, needed)}"),
                          name, needed and name not in self.session)
                for name, needed in sorted(self._required.items()))
        listing.highlighted = highlighted
        self.call_after_refresh(self.fit_lists)

    def _server_rule(self, name: str, needed: bool) -> str:
        """What a call of the server's tool ``name`` does, in words (not the box's colour
        alone)."""
        if not needed:
            return "runs without asking"
        return "allowed this session" if name in self.session else "asks"

    @on(SelectionList.SelectionToggled, "#rules-list")
    def _toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        event.stop()
        tool = event.selection.value
        wanted = tool in self._tools.selected
        if wanted and tool in self.session:
            self.session.discard(tool)
            if self._required.get(tool):  # the server asks already: only the session allowed
                self._status.update(plain_text(f"{tool} asks again for approval."))
                self._show_server_rules()
                return
        self.store(tool, wanted)

    @work(group="rules-store", exit_on_error=False)
    async def store(self, tool: str, required: bool) -> None:
        """Change the rule of ``tool`` on the server (the checkbox is undone if that fails)."""
        try:
            await self.client.set_tool_approval(self.agent_id, tool, required)
        except LettaError as error:
            self._undo(tool)
            self._status.update(plain_text(f"{tool} was not changed: {error.message}"))
            return
        self._required[tool] = required
        state = "needs approval" if required else "runs without approval"
        self._status.update(plain_text(f"{tool} now {state} (stored on the server)."))
        self._show_server_rules()

    def _undo(self, tool: str) -> None:
        with self._tools.prevent(SelectionList.SelectionToggled):
            if self._required.get(tool):
                self._tools.select(tool)
            else:
                self._tools.deselect(tool)

