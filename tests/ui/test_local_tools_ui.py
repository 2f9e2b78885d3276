"""Local tools in the real app against the demo server: the demo agent lists and reads the
working directory through them, each call approved on its card, which says it runs here."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from chat_helpers import choose, demo_chat, open_chat
from test_app import SIZE
from test_approvals import answered, ask, calls, prompt_focused
from textual.app import App, ComposeResult
from textual.errors import NoWidget
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList, SelectionList, Static

from openletta.chat.approvals import Choice
from openletta.chat.local_calls import LocalCalls
from openletta.tools.permissions import (
    PermissionMode,
)
from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.prompt import TypedElsewhere
from openletta.ui.screens.approval_rules import ApprovalRulesScreen, list_heights
from openletta.ui.themes import ThemeVariables
from openletta.ui.turn_status import STILL_ASKS
from openletta.ui.widgets import WIDGETS_CSS_PATH
from openletta.ui.widgets.approval import ApprovalPrompt, CommandEditor, approval_prompt
from openletta.ui.widgets.tool_card import CardHeader, ToolCallCard


@pytest.fixture(autouse=True)
def no_typing_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)


async def test_the_demo_lists_and_reads_the_folder_with_approval(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.status.info.permission_mode == "ask"
        await pilot.press(*"what files are here", "enter")
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert prompt.call.name == "LS" and prompt.here is not None
        card = screen.view.widget_for(prompt.call)
        assert isinstance(card, ToolCallCard) and card.has_class("-runs-here")
        await choose(pilot, "y", wait_until)
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert prompt.call.name == "Read"
        await choose(pilot, "y", wait_until)
        await answered(pilot, screen, wait_until)
        listing, read = calls(screen)
        assert "hello.txt" in (listing.result or "")
        assert "hi from the test folder" in (read.result or "")
        assert "hello.txt" in screen.session.transcript.items[-2].text  # type: ignore[attr-defined]


async def test_shift_tab_switches_the_permission_mode(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: screen.status.info.permission_mode == "accept edits")
        assert local.mode is PermissionMode.ACCEPT_EDITS
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: screen.status.info.permission_mode == "read-only")
        await wait_until(pilot, lambda: [(note.title, note.message) for note in
                                         app._notifications] == [("Local tools",
                                         "Mode: read-only. Only Read, Glob, Grep and LS run; "
                                         "other calls are denied and the agent is told why.")],
                         what="one toast, of the mode now")
        await pilot.press(*"what files are here", "enter")
        await answered(pilot, screen, wait_until)  # read-only: LS and Read ran unasked
        assert [call.auto_approved for call in calls(screen)] == [True, True]


async def test_shift_tab_on_a_waiting_call_leaves_it_asking_and_applies_to_the_next(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE,
                         local=local) as (app, pilot, screen):
        prompt = await ask(pilot, screen, "what files are here", wait_until)
        assert prompt.call.name == "LS"
        await pilot.press("shift+tab")  # accept edits would run it: it asks all the same
        await wait_until(pilot, lambda: any(note.message.endswith(STILL_ASKS)
                                            for note in app._notifications),
                         what="the toast says the request waiting still asks")
        assert local.mode is PermissionMode.ACCEPT_EDITS
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert prompt.call.name == "LS" and not calls(screen)[0].result
        await choose(pilot, "y", wait_until)
        await answered(pilot, screen, wait_until)  # the Read asked next: the new mode's
        assert [call.auto_approved for call in calls(screen)] == [False, True]
        card = screen.view.widget_for(calls(screen)[1])
        assert isinstance(card, ToolCallCard)
        assert "auto-approved" in card.query_one(CardHeader).render().plain


async def test_the_prompt_says_how_many_calls_still_wait(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE,
                         local=local) as (_app, pilot, screen):
        prompt = await ask(pilot, screen, "parallel", wait_until)
        assert prompt.waiting == 2
        screen.turn_state_changed(replace(screen.controller.state, undecided=1))
        await wait_until(pilot, lambda: [shown.waiting for shown in screen.query(ApprovalPrompt)]
                         == [1], what="the prompt shown again, for one call")
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert prompt.call is calls(screen)[0]


async def test_approvals_lists_local_rules_and_toggles_them(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    local.permissions.session.add("Read")
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press(*"/approvals", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalRulesScreen))
        listing = app.screen.query_one("#local-rules-list", SelectionList)
        prompts = [str(listing.get_option_at_index(index).prompt)
                   for index in range(listing.option_count)]
        assert prompts[:2] == ["Bash · asks", "Read · allowed this session"]
        assert "Read" not in listing.selected and "Bash" in listing.selected
        listing.focus()
        listing.highlighted = 0
        await pilot.press("space")  # Bash: allowed in this project
        await wait_until(pilot, lambda: "Bash" in local.permissions.project_rules.allowed(
            local.workspace.root))
        assert str(listing.get_option_at_index(0).prompt) == "Bash · allowed in this project"
        listing.highlighted = 1
        await pilot.press("space")  # Read: asks again
        await wait_until(pilot, lambda: "Read" not in local.permissions.session)


def fully_shown(widget: Widget) -> bool:
    """Whether all of ``widget`` is on screen (not clipped by its dialog, nor off the screen)."""
    try:
        visible = widget.screen.find_widget(widget).visible_region
    except NoWidget:
        return False
    return bool(visible) and visible == widget.region


@contextlib.asynccontextmanager
async def approvals_dialog(demo_server, make_app, wait_until, local: LocalCalls,
                           size: tuple[int, int]
                           ) -> AsyncIterator[tuple[Pilot[None], ApprovalRulesScreen]]:
    """``/approvals`` open on the demo agent, its server's tools listed."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=size) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press(*"/approvals", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalRulesScreen)
                         and app.screen._required, what="rules listed")
        yield pilot, app.screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_approvals_fits_the_screen_and_its_lists_scroll_inside(
        demo_server, make_app, wait_until, local: LocalCalls, size: tuple[int, int]) -> None:
    for tool in ("Bash", "Read", "LS"):  # a few rules, so the local list says something
        local.permissions.allow_always(tool)
    async with approvals_dialog(demo_server, make_app, wait_until, local, size) as (
            pilot, rules):
        box = rules.query_one("#rules-box")
        title = rules.query_one("#rules-title", Static)
        keys = next(part for part in box.query(Static) if "Esc closes" in str(part.content))
        parts = [title, rules._tools, rules._local_tools, keys]
        await wait_until(pilot, lambda: all(fully_shown(part) for part in parts),
                         what="the whole dialog on screen")
        assert box.region.bottom <= size[1] - 1  # above the key bar
        listing = rules._local_tools
        if size == (80, 24):  # too long for the room: the list scrolls inside the dialog
            assert listing.size.height < listing.option_count
            listing.focus()
            listing.highlighted = listing.option_count - 1
            await wait_until(pilot, lambda: listing.scroll_y > 0, what="the list scrolled")
            assert all(fully_shown(part) for part in parts)


@pytest.mark.parametrize("with_local_tools", [True, False])
async def test_approvals_says_where_server_tools_are_attached(
        demo_server, make_app, wait_until, local: LocalCalls, with_local_tools: bool) -> None:
    """openletta attaches no tool: under the server's tools, /approvals says where that is
    done (the ADE, the API), and that the local tools, named, need no attaching."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent",
                   local=local if with_local_tools else None)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press(*"/approvals", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalRulesScreen)
                         and app.screen._required, what="rules listed")
        hint = app.screen.query_one("#attach-hint", Static)
        await wait_until(pilot, lambda: fully_shown(hint), what="the hint on screen")
        said = " ".join(str(hint.render()).split())
        assert "attached to the agent in the ADE or through Letta's API" in said
        assert "(Bash, Read, Write, Edit, Glob, Grep, LS) need no attaching" in said
        assert ("--no-local-tools" in said) is not with_local_tools
        assert hint.region.y == app.screen._status.region.bottom  # under the server's tools


def rows_shown(listing: SelectionList[str]) -> int:
    """How many of the list's rows are on screen (its border aside)."""
    try:
        visible = listing.screen.find_widget(listing).visible_region
    except NoWidget:
        return 0
    return max(0, visible.height - listing.styles.gutter.height)


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_each_list_of_approvals_shows_rows_and_its_own_toggle_said_under_it(
        demo_server, make_app, wait_until, local: LocalCalls, size: tuple[int, int]) -> None:
    """On a small screen both lists show a few tools (the hints above them go), Tab and
    Space toggle a tool in sight, and what it did is said under that list, not the other."""
    async with approvals_dialog(demo_server, make_app, wait_until, local, size) as (
            pilot, rules):
        app = pilot.app
        server, mine = rules._tools, rules._local_tools
        await wait_until(pilot, lambda: rows_shown(server) >= 2 and rows_shown(mine) >= 2,
                         what="a few rows of each list")
        await pilot.press("tab")
        assert app.focused is mine and mine.highlighted == 0
        await pilot.press("space")
        await wait_until(pilot, lambda: "Bash" in local.permissions.project_rules.allowed(
            local.workspace.root), what="Bash allowed")
        said = rules.query_one("#local-rules-status", Static)
        assert "Bash now runs here without asking" in str(said.render())
        assert said.region.y == mine.region.bottom and rows_shown(mine) >= 2
        assert "7 tools" in str(rules._status.render())
        assert rules._status.region.y == server.region.bottom


def test_lists_share_the_room_the_dialog_has() -> None:
    assert list_heights([9, 9], 30) == [9, 9]  # all fit
    assert list_heights([9, 4], 10) == [6, 4]  # the short list whole, the long one the rest
    assert list_heights([20, 20], 10) == [5, 5]
    assert list_heights([20, 20], 2) == [3, 3]  # never under a row of tools


async def test_a_command_edited_on_its_card_is_what_runs(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press(*"how much disk", "enter")
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert prompt.call.name == "Bash"
        await choose(pilot, "e", wait_until)
        field = prompt.query_one(CommandEditor)
        assert app.focused is field and field.text == "du -sh ."
        await pilot.press("escape")  # back to the choices, nothing ran
        assert not field.display and prompt.call.status is ToolStatus.AWAITING_APPROVAL
        rows = [str(option.prompt) for option in prompt.query_one(OptionList)._options]
        assert [row[:3] for row in rows] == ["y/1", "s/2", "a/3", "n/4", "e/5"]  # no "all"
        await choose(pilot, "5", wait_until)
        await pilot.press(*" && echo edited", "enter")  # typed after the command
        await answered(pilot, screen, wait_until)
        (call,) = calls(screen)
        assert call.arguments == {"command": "du -sh . && echo edited"} and call.edited
        assert "edited" in (call.result or "") and call.status is ToolStatus.SUCCESS
        card = screen.view.widget_for(call)
        assert isinstance(card, ToolCallCard)
        assert "edited by you" in card.query_one(CardHeader).render().plain


async def test_a_server_tool_cannot_be_edited(demo_server, make_app, wait_until,
                                              local: LocalCalls) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent", local=local)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press(*"approve", "enter")
        prompt = await prompt_focused(pilot, screen, wait_until)
        await choose(pilot, "e", wait_until)
        assert not prompt.query_one(CommandEditor).display
        assert "Edit the command" not in " ".join(
            str(option.prompt) for option in prompt.query_one(OptionList)._options)


class PromptApp(ThemeVariables, App[None]):
    """Shows one approval prompt."""

    def __init__(self, prompt: ApprovalPrompt) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        yield self.prompt


class AnswersApp(PromptApp):
    """Shows one approval prompt, styled as in the chat, and keeps its answers and what it
    handed on to the message."""

    CSS_PATH = WIDGETS_CSS_PATH

    def __init__(self, prompt: ApprovalPrompt) -> None:
        super().__init__(prompt)
        self.answers: list[ApprovalPrompt.Answered] = []
        self.typed: list[TypedElsewhere] = []

    def on_approval_prompt_answered(self, answer: ApprovalPrompt.Answered) -> None:
        self.answers.append(answer)

    def on_typed_elsewhere(self, typed: TypedElsewhere) -> None:
        self.typed.append(typed)


@contextlib.asynccontextmanager
async def command_edited(command: str, wait_until
                         ) -> AsyncIterator[tuple[AnswersApp, Pilot[None], CommandEditor]]:
    """The approval prompt of a Bash call of ``command`` that runs here, ``e`` pressed: its
    command editor open, as many rows as the command has lines."""
    call = ToolCallItem(key="call:1", name="Bash", runs_here=True,
                        arguments_text=json.dumps({"command": command}))
    prompt = ApprovalPrompt(call, here="~/project", editable=command, clock=lambda: 10.0)
    app = AnswersApp(prompt)
    async with app.run_test(size=(100, 20)) as pilot:
        prompt.focus_choices()
        await choose(pilot, "e", wait_until)
        editor = prompt.query_one(CommandEditor)
        await wait_until(pilot, lambda: editor.content_size.height == command.count("\n") + 1,
                         what="a row per line")
        yield app, pilot, editor


async def test_a_command_of_several_lines_is_edited_over_as_many_lines(wait_until) -> None:
    command = "cat <<EOF\nyes\nEOF"
    async with command_edited(command, wait_until) as (app, pilot, editor):
        assert app.focused is editor
        assert editor.cursor_location == (2, 3)  # typing goes after the command
        await pilot.press("ctrl+j", *"echo y", "enter")  # "y" is typed, not Approve
        await pilot.pause()
    (answer,) = app.answers
    assert answer.choice is Choice.EDIT and answer.edited == f"{command}\necho y"


async def shown(prompt: ApprovalPrompt) -> tuple[str, list[Choice]]:
    """The prompt's title, and the choices it offers."""
    async with PromptApp(prompt).run_test(size=(160, 20)):
        return (str(prompt.query_one(".approval-title", Static).render()),
                [Choice(option.id) for option in prompt.query_one(OptionList).options])


async def test_the_prompt_says_when_a_local_call_reaches_outside_the_directory(
        local: LocalCalls, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    edit = ToolCallItem(key="call:1", name="Edit", runs_here=True, arguments_text=json.dumps(
        {"file_path": str(outside), "old_string": "a", "new_string": "b"}))
    prompt = approval_prompt(edit, 1, local)
    assert prompt.outside == (f"{outside} is outside it",)
    title, choices = await shown(prompt)
    assert f"{outside} is outside it" in title
    assert choices == [Choice.APPROVE, Choice.DENY]  # no rule would let it through

    (local.workspace.root / "link.txt").symlink_to(outside)
    linked = ToolCallItem(key="call:3", name="Read", runs_here=True,
                          arguments_text=json.dumps({"file_path": "link.txt"}))
    title, choices = await shown(approval_prompt(linked, 1, local))
    assert (f"link.txt points to {outside}, outside it, and such a call asks every time"
            in title)  # not "…/link.txt is outside it", which reads as a mistake

    inside = ToolCallItem(key="call:2", name="Edit", runs_here=True, arguments_text=json.dumps(
        {"file_path": "hello.txt", "old_string": "hi", "new_string": "ho"}))
    prompt = approval_prompt(inside, 1, local)
    title, choices = await shown(prompt)
    assert prompt.outside == () and "outside" not in title
    assert Choice.ALWAYS_ALLOW in choices
    assert prompt.here == str(local.workspace.root)



@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_approvals_on_a_small_screen_still_says_where_server_tools_are_attached(
        demo_server, make_app, wait_until, local: LocalCalls, size: tuple[int, int]) -> None:
    """The other hints go for the lists to have room; that one stays, in a line if need be,
    under the server's tools."""
    async with approvals_dialog(demo_server, make_app, wait_until, local, size) as (
            pilot, rules):
        hint = rules.query_one("#attach-hint", Static)
        await wait_until(pilot, lambda: fully_shown(hint) and all(
            not other.display for other in rules.query(".rules-hint")),
                         what="the hint on screen, the others gone")
        said = " ".join(str(hint.render()).split())
        assert "erver tools" in said and "attached" in said
        assert "in the ADE or" in said and "Letta's API" in said
        assert hint.region.y == rules._status.region.bottom
        assert rows_shown(rules._tools) >= 2 and rows_shown(rules._local_tools) >= 2
