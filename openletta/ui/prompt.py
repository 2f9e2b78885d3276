"""The prompt: a multi-line input where Enter sends and ↑/↓ recall earlier prompts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual import events, work
from textual.binding import Binding, BindingType
from textual.message import Message

from openletta.recall import SentMessages
from openletta.tools.base import Workspace
from openletta.tools.mentions import (
    Mention,
    matching_paths,
    mention_at,
    mention_text,
    project_paths,
)
from openletta.ui.commands import (
    SlashCommand,
    argument_typed,
    matching_choices,
    matching_commands,
)
from openletta.ui.completion_menu import Argument, CompletionMenu
from openletta.ui.steady import SteadyTextArea

#: A mention begun this long after the paths were listed lists them again.
RELIST_SECONDS = 5.0
#: The chat prompt's hints, as many as fit (:func:`fitted_hints`).
PLACEHOLDER = "Message the agent · Enter sends · Ctrl+J new line · / commands · F1 help"
DEMO_PLACEHOLDER = 'Type "help" to see what the demo agent can do · Enter sends · F1 help'
#: Between messages given back to the prompt (and what was typed there), as between the
#: messages of a queue given back.
MESSAGES_APART = "\n\n"
#: Keys that insert a line break instead of sending.
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})


def fitted_hints(hints: str, width: int) -> str:
    """The leading `` · ``-separated parts of ``hints`` that fit in ``width`` cells (the first
    one always)."""
    parts = hints.split(" · ")
    while len(parts) > 1 and cell_len(" · ".join(parts)) > width:
        parts.pop()
    return " · ".join(parts)


class TypedElsewhere(Message):
    """Keys of the message typed while another widget had the focus: a character,
    Backspace or Enter (``character`` ``None`` but for a character), or Esc (nothing to
    type). The chat screen gives them to its prompt; ``focus``: with the focus."""

    def __init__(self, key: str, character: str | None, *, focus: bool) -> None:
        super().__init__()
        self.key = key
        self.character = character
        self.focus = focus


class Prompt(SteadyTextArea):
    """Multi-line message input.

    Enter posts :class:`Prompt.Submitted`; Shift+Enter or Ctrl+J insert a new line; ↑ on the
    first line and ↓ on the last line walk through the prompts sent before. While a slash
    command is typed, ``menu`` lists the matches: ↑/↓ move, Tab completes, Enter completes or
    runs, Esc closes it; while its argument is, the values ``choices`` gives for it (Tab
    completes, Enter runs); while an ``@`` mention is, the paths of the working directory of
    ``mentions`` that match (Tab or Enter completes). Otherwise Escape is left to the screen
    (it interrupts the turn).
    The cursor does not blink: nothing on screen moves unless something changed (a blink
    repaints the prompt twice a second, a turn's worth of frames while a reply streams).
    Ctrl+Home goes to the start of the message (Ctrl+End is the chat's: the newest message).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "message_start", "Start of the message", show=False),
    ]

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, prompt: Prompt, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

        @property
        def control(self) -> Prompt:
            return self.prompt

    def __init__(self, *, id: str | None = None, placeholder: str = "",
                 menu: CompletionMenu | None = None, mentions: Workspace | None = None,
                 recall: SentMessages | None = None,
                 choices: Callable[[str], Sequence[str]] | None = None) -> None:
        """``recall``: the messages sent before, kept across runs (else only this prompt's);
        ``choices``: the values the argument of a command (by name) completes to."""
        super().__init__(id=id, soft_wrap=True, tab_behavior="focus", compact=True,
                         placeholder=placeholder)
        #: The whole placeholder: as many of its `` · ``-separated hints as fit are shown.
        self._hints = placeholder
        self.menu = menu
        self.mentions = mentions
        self._choices = choices
        #: The paths mentions complete from, as last listed (``None``: not yet).
        self.mention_paths: list[str] | None = None
        self._listed_at = float("-inf")
        #: The text at which the user closed the menu with Esc (it stays closed for it).
        self._menu_dismissed: str | None = None
        self._sent = recall
        self.prompt_history: list[str] = recall.entries if recall is not None else []
        self._recall_index: int | None = None
        self._draft = ""
        #: The text recalled last and where its cursor was put (↑ and ↓ step on from there).
        self._recalled: tuple[str, tuple[int, int]] | None = None
        #: Messages given back while a command was typed: they follow once it is sent.
        self._held: list[str] = []

    def on_resize(self, event: events.Resize) -> None:
        self.placeholder = fitted_hints(self._hints, event.size.width - 1)

    async def _on_key(self, event: events.Key) -> None:
        if self.read_only:
            return
        if self._menu_key(event.key):
            self._stop(event)
        elif event.key == "enter":
            self._stop(event)
            self._submit()
        elif event.key in NEWLINE_KEYS:
            self._stop(event)
            self.insert("\n")
        elif self._recall_key(event.key):
            self._stop(event)
        else:
            await super()._on_key(event)

    def action_message_start(self) -> None:
        """Move the cursor to the start of the message."""
        self.move_cursor((0, 0))

    def take_typed(self, typed: TypedElsewhere) -> None:
        """Keys of the message typed while another widget had the focus (Enter sends, as
        here), and the focus if they ask for it."""
        if typed.focus:
            self.focus()
        if self.read_only:
            return
        if typed.key == "enter":
            self._submit()
        elif typed.key == "backspace":
            self.action_delete_left()
        elif typed.key == "paste" and typed.character:
            self.paste(typed.character)
        elif typed.character:
            self.insert(typed.character)

    def restore(self, text: str) -> None:
        """Put ``text`` back (a failed or unsent message), ahead of what is typed now; while
        a command is typed, once it is sent (ahead of it, the command would be sent to the
        agent as part of a message)."""
        current = self.raw_text.strip()
        if current.startswith("/"):
            self._held.append(text)
            return
        self.load_text(f"{text}{MESSAGES_APART}{current}" if current else text)
        self.move_cursor(self.document.end)

    def withdraw(self, text: str) -> None:
        """Take out ``text``, put back by :meth:`restore`, unless it was edited since."""
        if text in self._held:
            self._held.remove(text)
            return
        current = self.raw_text
        if current.strip() == text:
            self.clear()
        elif current.startswith(text + MESSAGES_APART):
            self.load_text(current[len(text + MESSAGES_APART):])
            self.move_cursor(self.document.end)

    def remember(self, text: str) -> None:
        """Add a sent prompt to the recall history."""
        if self._sent is not None:
            self._sent.add(text)
        elif not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._recall_index = None

    def _submit(self) -> None:
        text = self.raw_text.strip()
        if not text:
            return
        self.remember(text)
        self._menu_dismissed = None
        self.clear()
        self.post_message(self.Submitted(self, text))
        self._release_held()

    def _release_held(self) -> None:
        """Put back the messages held while a command was typed, once it is no longer."""
        if self._held and not self.raw_text.strip().startswith("/"):
            held, self._held = MESSAGES_APART.join(self._held), []
            self.restore(held)

    def on_text_area_changed(self) -> None:
        self._release_held()
        self._sync_menu()
        # Textual scrolls to the cursor before the new text is laid out: a line added to a
        # prompt at its tallest would stay below the view until the next key.
        self.call_after_refresh(self.scroll_cursor_visible)

    def _sync_menu(self) -> None:
        if self.menu is None:
            return
        mention = self._mention()
        if self.text == self._menu_dismissed:
            self.menu.hide()
        elif commands := matching_commands(self.text):
            self.menu.show_commands(commands)
        elif arguments := self._matching_arguments():
            self.menu.show_arguments(arguments)
        elif mention is not None and self.mention_paths is not None:
            self.menu.show_paths(matching_paths(self.mention_paths, mention.query))
        else:
            self.menu.hide()
        fresh = mention is not None and mention.query == ""
        if fresh and time.monotonic() - self._listed_at > RELIST_SECONDS:
            self._listed_at = time.monotonic()  # files come and go: list them again
            self._list_mention_paths()

    def _matching_arguments(self) -> list[str]:
        """The values that complete the argument of the command typed, if one is."""
        if self._choices is None or (typed := argument_typed(self.text)) is None:
            return []
        command, word = typed
        return matching_choices(self._choices(command.name), word)

    def _mention(self) -> Mention | None:
        """The ``@`` mention the cursor ends, if it ends one."""
        if self.mentions is None or self.selection.start != self.selection.end:
            return None
        row, column = self.cursor_location
        return mention_at(self.document.get_line(row)[:column])

    @work(exclusive=True, group="mention-paths", exit_on_error=False)
    async def _list_mention_paths(self) -> None:
        assert self.mentions is not None
        self.mention_paths = await asyncio.to_thread(project_paths, self.mentions)
        self._sync_menu()

    def _menu_key(self, key: str) -> bool:
        """Drive the open menu; ``True`` if the key was used."""
        if self.menu is None:
            return False
        self._sync_menu()  # keys typed quickly can arrive before the Changed message
        menu, choice = self.menu, self.menu.chosen
        if choice is None or (isinstance(choice, SlashCommand) and key == "enter"
                              and self.text.strip() == f"/{choice.name}"):
            return False  # a complete command name: Enter runs it
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else +1)
        elif key == "escape":
            self._menu_dismissed = self.text
            menu.hide()
        elif isinstance(choice, str):
            return key in ("enter", "tab") and self._complete_mention(choice)
        elif isinstance(choice, Argument):
            return key in ("enter", "tab") and self._complete_argument(choice.value, key)
        elif key == "enter" and not choice.takes_argument:
            self._show(choice.completion)
            self._submit()
        elif key in ("enter", "tab"):
            self._show(choice.completion)
        else:
            return False
        return True

    def _complete_mention(self, path: str) -> bool:
        """Put ``path`` in place of the mention typed so far (a directory's stays open for
        its own paths)."""
        mention = self._mention()
        if mention is None:
            return False
        row, column = self.cursor_location
        self.replace(mention_text(path), (row, mention.start), (row, column),
                     maintain_selection_offset=False)
        return True

    def _complete_argument(self, value: str, key: str) -> bool:
        """Put ``value`` as the argument of the command typed; Enter runs it."""
        typed = argument_typed(self.text)
        if typed is None:
            return False
        self._show(f"/{typed[0].name} {value}")
        if key == "enter":
            self._submit()
        return True

    def _recall_key(self, key: str) -> bool:
        """Recall for ↑ on the first line or ↓ on the last, or either on a message just
        recalled, as it came (not edited, the cursor not moved); ``True`` if the key was
        used."""
        untouched = self._recalled == (self.raw_text, self.cursor_location)
        if key == "up" and (untouched or self.cursor_location[0] == 0):
            return self._recall(-1)
        if key == "down" and (untouched or self._on_last_line()):
            return self._recall(+1)
        return False

    def _recall(self, step: int) -> bool:
        """Show the previous (``-1``) or next (``+1``) prompt; ``False`` if there is none."""
        if not self.prompt_history:
            return False
        if self._recall_index is None:
            if step > 0:
                return False
            self._draft = self.raw_text
            index = len(self.prompt_history) - 1
        else:
            index = self._recall_index + step
        if index < 0:
            return True
        if index >= len(self.prompt_history):
            self._recall_index = None
            self._show_recalled(self._draft, step)
            return True
        self._recall_index = index
        self._show_recalled(self.prompt_history[index], step)
        return True

    def _show_recalled(self, text: str, step: int) -> None:
        """Show ``text`` recalled with ↑ (``step`` ``-1``) or ↓: the cursor at the end of its
        first line after ↑, of its last after ↓, so that a message of many lines is stepped
        past in one press (as shells do), until it is edited or the cursor moved; the menu
        stays closed for it (it opens as the user types), so that the next ↑ or ↓ recalls on,
        even past a ``/command``."""
        self._menu_dismissed = text
        self._show(text)
        if step < 0:
            self.move_cursor((0, len(self.document.get_line(0))))
        self._recalled = self.raw_text, self.cursor_location

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _on_last_line(self) -> bool:
        return self.cursor_location[0] == self.document.line_count - 1

    @staticmethod
    def _stop(event: events.Key) -> None:
        event.stop()
        event.prevent_default()
