"""Slash commands: parsing, completion in an Input, and the command palette provider."""

from __future__ import annotations

import asyncio
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.command import CommandList, CommandPalette, Provider
from textual.widgets import Input

from openletta.ui.commands import (
    SLASH_COMMANDS,
    SlashCommand,
    SlashCommandProvider,
    SlashSuggester,
    parse_slash,
)


def test_registry_holds_the_commands_and_their_actions() -> None:
    actions = {name: command.action for name, command in SLASH_COMMANDS.items()}
    assert actions == {"help": "help", "agents": "switch_agent", "theme": "theme",
                       "clear": "clear", "export": "export", "quit": "quit"}
    assert [name for name, c in SLASH_COMMANDS.items() if c.takes_argument] == ["theme", "export"]
    assert all(command.name == name for name, command in SLASH_COMMANDS.items())


def test_usage_shows_the_argument() -> None:
    assert SLASH_COMMANDS["theme"].usage == "/theme [name]"
    assert SLASH_COMMANDS["export"].usage == "/export [path]"
    assert SLASH_COMMANDS["quit"].usage == "/quit"
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


@pytest.mark.parametrize(("value", "suggestion"), [
    ("/", "/help"),
    ("/h", "/help"),
    ("/th", "/theme"),
    ("/E", "/export"),
    ("/q", "/quit"),
    ("/help", None),
    ("/x", None),
    ("/theme dark", None),
    ("help", None),
    ("", None),
])
async def test_suggester_completes_command_names(value: str, suggestion: str | None) -> None:
    assert await SlashSuggester().get_suggestion(value.casefold()) == suggestion


class CommandsApp(App[None]):
    """Records the actions the slash commands run."""

    COMMANDS: ClassVar[set[type[Provider]]] = {SlashCommandProvider}

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(suggester=SlashSuggester(), id="prompt")

    def action_theme(self, name: str = "") -> None:
        self.ran.append(f"theme:{name}")

    def action_clear(self) -> None:
        self.ran.append("clear")


async def test_input_shows_the_completion() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        await pilot.press("/", "t")
        prompt = app.query_one("#prompt", Input)
        for _ in range(50):
            if prompt._suggestion:
                break
            await pilot.pause(0.01)
        assert prompt._suggestion == "/theme"
        await pilot.press("right")
        assert prompt.value == "/theme"


async def results(app: App[None]) -> list[str]:
    """The prompts listed by the open command palette, once it has them."""
    command_list = app.screen.query_one(CommandList)
    for _ in range(100):
        if command_list.option_count:
            break
        await asyncio.sleep(0.01)
    return [str(command_list.get_option_at_index(index).prompt).split("\n")[0]
            for index in range(command_list.option_count)]


async def test_palette_discovers_every_command() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        app.action_command_palette()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert await results(app) == [command.usage for command in SLASH_COMMANDS.values()]


async def test_palette_search_runs_the_action() -> None:
    app = CommandsApp()
    async with app.run_test() as pilot:
        app.action_command_palette()
        await pilot.pause()
        await pilot.press(*"clea")
        listed = await results(app)
        assert listed[0] == "/clear"
        assert "/quit" not in listed
        await pilot.press("down", "enter")
        for _ in range(50):
            if app.ran:
                break
            await pilot.pause(0.01)
        assert app.ran == ["clear"]
