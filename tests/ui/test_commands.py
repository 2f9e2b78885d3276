"""Slash commands: parsing, the prompt's completion menu, and the command palette provider."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.command import CommandList, CommandPalette, Provider
from textual.pilot import Pilot
from waiting import wait_until

from openletta.tools.base import Workspace
from openletta.ui import prompt as prompt_module
from openletta.ui.app import OpenLettaApp
from openletta.ui.commands import (
    SLASH_COMMANDS,
    SlashCommand,
    SlashCommandProvider,
    argument_typed,
    matching_choices,
    matching_commands,
    parse_slash,
)
from openletta.ui.completion_menu import CompletionMenu
from openletta.ui.prompt import Prompt


def test_registry_holds_the_commands_and_their_actions() -> None:
    actions = {name: command.action for name, command in SLASH_COMMANDS.items()}
    assert actions == {"help": "help", "agents": "switch_agent",
                       "conversations": "conversations", "new": "new_conversation",
                       "rename": "rename_conversation", "approvals": "approval_rules",
                       "model": "model", "memory": "memory", "context": "context",
                       "compact": "compact", "run": "inspect_run", "theme": "theme",
                       "clear": "clear", "export": "export", "quit": "quit"}
    assert all(callable(getattr(OpenLettaApp, f"action_{action}", None))
               for action in actions.values())
    assert [name for name, c in SLASH_COMMANDS.items() if c.takes_argument] == [
        "new", "rename", "model", "theme", "export"]
    assert all(command.name == name for name, command in SLASH_COMMANDS.items())


def test_usage_shows_the_argument() -> None:
    assert SLASH_COMMANDS["theme"].usage == "/theme [name]"
    assert SLASH_COMMANDS["export"].usage == "/export [path]"
    assert SLASH_COMMANDS["quit"].usage == "/quit"
    assert SLASH_COMMANDS["rename"].usage == "/rename <name>"  # nothing to do without it
    assert SlashCommand("x", "", "x", takes_argument=True).usage == "/x [argument]"


@pytest.mark.parametrize(("text", "parsed"), [
    ("/help", ("help", "")),
    ("/HELP", ("help", "")),
    ("  /quit  ", ("quit", "")),
    ("/theme openletta-light", ("theme", "openletta-light")),
    ("/theme   spaced   out  ", ("theme", "spaced   out")),
    ("/export ~/notes/chat.md", ("export", "~/notes/chat.md")),
    ("/export\nfile.md", ("export", "file.md")),
    ("/export my file.md\nsecond line", ("export", "my file.md\nsecond line")),
    ("/frobnicate now", ("frobnicate", "now")),
    ("/clear-all", ("clear-all", "")),
])
def test_parse_slash_commands(text: str, parsed: tuple[str, str]) -> None:
    assert parse_slash(text) == parsed


@pytest.mark.parametrize("text", [
    "hello", "", "   ", "/", "/ help", "//help", "/usr/bin/env is missing", "/help!",
    "/3d", "say /help", "a\n/help",
])
def test_parse_slash_leaves_messages_alone(text: str) -> None:
    assert parse_slash(text) is None


@pytest.mark.parametrize(("text", "names"), [
    ("/", ["help", "agents", "conversations", "new", "rename", "approvals", "model", "memory",
           "context", "compact", "run", "theme", "clear", "export", "quit"]),
    ("/re", ["rename"]),
    ("/h", ["help"]),
    ("/n", ["new"]),
    ("/TH", ["theme"]),
    ("/help", ["help"]),
    ("/x", []),
    ("/theme dark", []),
    ("help", []),
    ("", []),
])
def test_matching_commands_complete_a_bare_prefix(text: str, names: list[str]) -> None:
    assert [command.name for command in matching_commands(text)] == names


@pytest.mark.parametrize(("text", "typed"), [
    ("/theme ", ("theme", "")), ("/theme op", ("theme", "op")), ("/THEME  op", ("theme", "op")),
    ("/theme", None), ("/theme op en", None), ("/help ", None), ("/nosuch x", None),
    ("say /theme x", None), ("/theme\nx", None),
])
def test_the_argument_typed_is_the_first_word_after_a_command_that_takes_one(
        text: str, typed: tuple[str, str] | None) -> None:
    found = argument_typed(text)
    assert (found and (found[0].name, found[1])) == typed


def test_the_choices_are_those_the_word_typed_starts() -> None:
    themes = ["openletta-light", "openletta-dark", "mine"]
    assert matching_choices(themes, "") == themes
    assert matching_choices(themes, "OPEN") == ["openletta-light", "openletta-dark"]
    assert matching_choices(themes, "mine") == []  # complete: Enter runs it


class CommandsApp(App[None]):
    """Records the actions the slash commands run."""

    COMMANDS: ClassVar[set[type[Provider]]] = {SlashCommandProvider}

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        menu = CompletionMenu()
        yield menu
        yield Prompt(id="prompt", menu=menu, choices=lambda command: (
            ["light", "dark"] if command == "theme" else []))

    def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        self.submitted.append(event.text)

    def action_theme(self, name: str = "") -> None:
        self.ran.append(f"theme:{name}")

    def action_clear(self) -> None:
        self.ran.append("clear")


async def test_prompt_menu_completes_and_runs_commands() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        await pilot.press("/")
        assert menu.display and menu.option_count == len(SLASH_COMMANDS)
        await pilot.press("e", "tab")
        assert prompt.text == "/export " and not menu.display
        prompt.clear()
        await pilot.press("/", "down", "down")
        assert menu.chosen is not None and menu.chosen.name == list(SLASH_COMMANDS)[2]
        await pilot.press("escape")
        assert not menu.display and prompt.text == "/"
        prompt.clear()
        await pilot.press("/", "c", "l", "enter")
        await pilot.pause()
        assert app.submitted == ["/clear"] and prompt.text == ""


async def test_the_menu_offers_the_values_of_a_commands_argument() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        await pilot.press(*"/th", "tab")
        assert prompt.text == "/theme " and shown_paths(menu) == ["light", "dark"]
        await pilot.press("d", "tab")  # Tab completes
        assert prompt.text == "/theme dark" and not menu.display and not app.submitted
        await pilot.press("enter")
        assert app.submitted == ["/theme dark"]
        await pilot.press(*"/theme ", "down", "enter")  # Enter takes the value and runs
        assert app.submitted == ["/theme dark", "/theme dark"] and prompt.text == ""
        await pilot.press(*"/export ")  # no values to offer
        assert not menu.display
        prompt.clear()
        await pilot.press(*"/theme", "enter")  # alone, as before: the next theme
        assert app.submitted[-1] == "/theme"


def test_the_app_offers_its_themes_the_next_one_first() -> None:
    app = OpenLettaApp(base_url="http://127.0.0.1:9", theme="openletta-light")
    assert app.argument_choices("theme") == ["openletta-dark", "openletta-light"]
    assert app.argument_choices("export") == []


async def test_up_and_down_recall_past_a_command_without_opening_the_menu() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        for sent in ("hostile", "/export", "/theme "):
            prompt.remember(sent)
        await pilot.press(*"draft")
        recalled = []
        for key in ("up", "up", "up", "down", "down", "down"):
            await pilot.press(key)
            assert not menu.display
            recalled.append(prompt.text)
        assert recalled == ["/theme ", "/export", "hostile", "/export", "/theme ", "draft"]
        await pilot.press("up", "up", "backspace")  # typing opens it again
        assert prompt.text == "/expor" and menu.display


async def results(pilot: Pilot[None]) -> list[str]:
    """The prompts listed by the open command palette, once its search has ended."""
    app = pilot.app
    command_list = app.screen.query_one(CommandList)
    await wait_until(pilot, lambda: command_list.option_count
                     and all(worker.is_finished for worker in app.workers),
                     what="the palette's search to end with results")
    return [str(command_list.get_option_at_index(index).prompt).split("\n")[0]
            for index in range(command_list.option_count)]


async def test_palette_discovers_every_command() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        app.action_command_palette()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert await results(pilot) == [command.usage for command in SLASH_COMMANDS.values()]


async def test_palette_search_runs_the_action() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        app.action_command_palette()
        await pilot.pause()
        await pilot.press(*"clea")
        listed = await results(pilot)
        assert listed[0] == "/clear"
        assert "/quit" not in listed
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.ran, what="the command to run")
        assert app.ran == ["clear"]


class MentionsApp(App[None]):
    """A prompt whose mentions complete from ``root``."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        menu = CompletionMenu()
        yield menu
        yield Prompt(id="prompt", menu=menu, mentions=Workspace(self.root))

    def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        self.submitted.append(event.text)


def shown_paths(menu: CompletionMenu) -> list[str]:
    return [str(menu.get_option_at_index(index).prompt) for index in range(menu.option_count)]


async def test_an_at_mention_completes_paths_of_the_working_directory(tmp_path: Path) -> None:
    for path in ("app.py", "src/main.py", "src/util.py", "notes.md"):
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_text("x")
    app = MentionsApp(tmp_path)
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        await pilot.press(*"see @")
        await wait_until(pilot, lambda: menu.display, what="the paths listed")
        assert shown_paths(menu) == ["src/", "app.py", "notes.md", "src/main.py", "src/util.py"]
        await pilot.press("s", "r")
        assert shown_paths(menu) == ["src/", "src/main.py", "src/util.py"]
        await pilot.press("tab")  # a directory: its paths are offered next
        assert prompt.text == "see @src/" and shown_paths(menu) == ["src/main.py", "src/util.py"]
        await pilot.press("u", "enter")  # Enter takes the path, it does not send
        assert prompt.text == "see @src/util.py " and not menu.display and not app.submitted
        await pilot.press(*"and @zz")
        assert not menu.display
        await pilot.press("backspace", "backspace", "a", "escape")
        assert not menu.display and prompt.text == "see @src/util.py and @a"
        await pilot.press("enter")
        assert app.submitted == ["see @src/util.py and @a"]


async def test_a_mention_of_a_path_with_a_space_is_quoted(tmp_path: Path) -> None:
    (tmp_path / "my notes").mkdir()
    (tmp_path / "my notes" / "todo list.md").write_text("x")
    app = MentionsApp(tmp_path)
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        await pilot.press(*"see @my")
        await wait_until(pilot, lambda: menu.display, what="the paths listed")
        await pilot.press("tab")  # the directory: its paths are offered next
        assert prompt.text == 'see @"my notes/'
        assert shown_paths(menu) == ["my notes/todo list.md"]
        await pilot.press("enter")
        assert prompt.text == 'see @"my notes/todo list.md" ' and not menu.display


async def test_without_a_working_directory_at_is_only_a_character() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        await pilot.press(*"hi @", "enter")
        assert not menu.display and app.submitted == ["hi @"]


async def test_a_new_mention_lists_the_paths_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "old.txt").write_text("x")
    app = MentionsApp(tmp_path)
    async with app.run_test() as pilot:
        prompt, menu = app.query_one(Prompt), app.query_one(CompletionMenu)
        prompt.focus()
        await pilot.press("@")
        await wait_until(pilot, lambda: shown_paths(menu) == ["old.txt"], what="listed")
        (tmp_path / "new.txt").write_text("x")
        await pilot.press("space", "@")  # within RELIST_SECONDS: the same list
        assert shown_paths(menu) == ["old.txt"]
        monkeypatch.setattr(prompt_module, "RELIST_SECONDS", 0.0)
        await pilot.press("space", "@")
        await wait_until(pilot, lambda: shown_paths(menu) == ["new.txt", "old.txt"],
                         what="listed again")


async def test_the_palette_offers_none_of_textuals_commands_that_do_not_fit_a_chat() -> None:
    """Nor its Quit beside ``/quit`` (the palette's one way to quit, asking first)."""
    app = OpenLettaApp(base_url="http://127.0.0.1:9")
    async with app.run_test(size=(100, 30)):
        titles = {command.title for command in app.get_system_commands(app.screen)}
    assert not titles & {"Theme", "Keys", "Screenshot", "Maximize", "Minimize", "Quit"}
    assert SLASH_COMMANDS["quit"].action == "quit"
