"""Slash commands: one registry shared by the prompt and the command palette.

A command names an app action; ``/theme light`` runs ``theme('light')``. Adding a command
is one entry in :data:`SLASH_COMMANDS` and an ``action_…`` method on the app.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content


@dataclass(frozen=True)
class SlashCommand:
    """``/name``: runs the app action ``action``, with the text after the name if any."""

    name: str
    description: str
    action: str
    takes_argument: bool = False
    #: What the argument is, for help texts: ``/theme [name]``.
    argument_hint: str = ""
    #: The command does nothing without its argument: ``/rename <name>``.
    argument_required: bool = False

    @property
    def completion(self) -> str:
        """What completing the command puts in the prompt: ``/help`` or ``/theme `` ."""
        return f"/{self.name} " if self.takes_argument else f"/{self.name}"

    @property
    def usage(self) -> str:
        """How to type the command, e.g. ``/export [path]`` or ``/rename <name>``."""
        if not self.takes_argument:
            return f"/{self.name}"
        hint = self.argument_hint or "argument"
        return f"/{self.name} <{hint}>" if self.argument_required else f"/{self.name} [{hint}]"


def _registry(*commands: SlashCommand) -> dict[str, SlashCommand]:
    return {command.name: command for command in commands}


SLASH_COMMANDS: dict[str, SlashCommand] = _registry(
    SlashCommand("help", "Show keys and commands", "help"),
    SlashCommand("agents", "Switch to another agent", "switch_agent"),
    SlashCommand("conversations", "Switch conversation, start one or delete one",
                 "conversations"),
    SlashCommand("new", "Start a new conversation with this agent", "new_conversation",
                 takes_argument=True, argument_hint="name"),
    SlashCommand("rename", "Name this conversation", "rename_conversation",
                 takes_argument=True, argument_hint="name", argument_required=True),
    SlashCommand("approvals", "Which tools wait for your approval (toggle them)",
                 "approval_rules"),
    SlashCommand("model", "Switch the model the agent runs on (a change on the server)",
                 "model", takes_argument=True, argument_hint="handle"),
    SlashCommand("memory", "Show or hide the agent's memory blocks (F2)", "memory"),
    SlashCommand("context", "How the agent's context window is spent", "context"),
    SlashCommand("compact", "Summarise the older messages so fewer fill the context window",
                 "compact"),
    SlashCommand("run", "The last turn's runs and steps (Enter on a footer: that turn's)",
                 "inspect_run"),
    SlashCommand("theme", "Switch theme (the next one without a name)", "theme",
                 takes_argument=True, argument_hint="name"),
    SlashCommand("clear", "Clear the screen (the conversation is kept)", "clear"),
    SlashCommand("export", "Save the conversation as Markdown", "export",
                 takes_argument=True, argument_hint="path"),
    SlashCommand("quit", "Quit openletta", "quit"),
)

#: ``/name`` then the end or white space; ``/usr/bin`` or ``/ hello`` are not commands.
_SLASH = re.compile(r"/([A-Za-z][\w-]*)(?:\s+(.*))?", re.DOTALL)
#: A command name being typed: ``/``, ``/th``.
_PREFIX = re.compile(r"/[A-Za-z-]*")
#: The one-word argument of a command being typed: ``/theme ``, ``/theme open``.
_ARGUMENT = re.compile(r"/([A-Za-z][\w-]*) +(\S*)")


def parse_slash(text: str) -> tuple[str, str] | None:
    """``(name, argument)`` when ``text`` is a slash command, else ``None`` (a message).

    The name is lower-cased and may be unknown (the caller says so); the argument is the
    rest of the text, stripped, or ``""``.
    """
    match = _SLASH.fullmatch(text.strip())
    if match is None:
        return None
    name, argument = match.groups()
    return name.lower(), (argument or "").strip()


def matching_commands(text: str) -> list[SlashCommand]:
    """Commands completing ``text`` while it is a bare ``/prefix``, in registry order."""
    if _PREFIX.fullmatch(text) is None:
        return []
    prefix = text[1:].lower()
    return [command for command in SLASH_COMMANDS.values() if command.name.startswith(prefix)]


def argument_typed(text: str) -> tuple[SlashCommand, str] | None:
    """The command taking an argument, and the argument's first word so far, while ``text``
    is ``/name `` and that word (``/theme op``)."""
    match = _ARGUMENT.fullmatch(text)
    command = SLASH_COMMANDS.get(match[1].lower()) if match else None
    if match is None or command is None or not command.takes_argument:
        return None
    return command, match[2]


def matching_choices(choices: Sequence[str], typed: str) -> list[str]:
    """The ``choices`` that ``typed`` starts (ignoring case), but the one it already is."""
    wanted = typed.lower()
    return [choice for choice in choices
            if choice.lower().startswith(wanted) and choice.lower() != wanted]


class SlashCommandProvider(Provider):
    """The slash commands in the command palette (run without an argument)."""

    async def discover(self) -> Hits:
        for command in SLASH_COMMANDS.values():
            # Content, not a str: the palette reads a str as markup, and "[name]" is a tag.
            yield DiscoveryHit(Content(command.usage), self._runner(command),
                               text=command.usage, help=command.description)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in SLASH_COMMANDS.values():
            score = matcher.match(command.usage)
            if score > 0:
                yield Hit(score, matcher.highlight(command.usage), self._runner(command),
                          text=command.usage, help=command.description)

    def _runner(self, command: SlashCommand) -> Callable[[], Awaitable[bool]]:
        return partial(self.app.run_action, command.action)
