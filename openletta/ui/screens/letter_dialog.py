"""A small dialog over the chat: a question, a few choices, each picked by its letter (or
the arrows and Enter), and a last row, Esc, that goes back.

A letter picks its choice only when it is not part of typing (:class:`StrayKeys`): a message
typed here (a letter another key follows at once, a letter of no choice, a paste) closes the
dialog, picks nothing, and goes on to the chat's prompt, in order
(:class:`~openletta.ui.prompt.TypedElsewhere`). Enter alone goes back, or picks the choice
moved to with the arrows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import ClassVar, Generic, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openletta.ui.editor_text import typed_text
from openletta.ui.key_bar import KeyBar
from openletta.ui.prompt import TypedElsewhere
from openletta.ui.stray_keys import StrayKeys
from openletta.ui.widgets.approval import TYPED_THROUGH_KEYS
from openletta.ui.widgets.pick_list import PickList

Picked = TypeVar("Picked", bound=StrEnum)
#: The id of the last row, which goes back.
BACK = "back"


class LetterDialog(ModalScreen[Picked | None], Generic[Picked]):
    """Asks ``question``; returns the choice picked (``None``: back, with Esc or the last
    row). ``choices``: each choice, its letter and what it does (a subclass binds each letter
    to ``pick('<choice>')``); ``back``: what the last row says Esc does. What is typed goes
    to ``typed`` (see the module)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "pick(None)", "Back")]

    def __init__(self, question: str, choices: Sequence[tuple[Picked, str, str]], back: str,
                 *, typed: Callable[[TypedElsewhere], None]) -> None:
        super().__init__()
        self.question, self.choices, self.back = question, choices, back
        self._typed = typed
        self._stray_keys = StrayKeys(self)
        #: Whether the dialog closes (once): keys that still reach it are a message's.
        self._finished = False

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-box"):
            yield Static(self.question, id="leave-title")
            yield PickList(*(Option(f"{letter}  {label}", id=choice)
                             for choice, letter, label in self.choices),
                           Option(f"Esc  {self.back}", id=BACK), id="leave-options")
        yield KeyBar()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = options.get_option_index(BACK)

    def on_key(self, event: events.Key) -> None:
        """A choice's letter waits to see that no key follows it; typing goes on."""
        if self._finished:
            self._hand_on(event)
            return
        through = self._stray_keys.pending and event.key in TYPED_THROUGH_KEYS
        self._stray_keys.on_key(event)  # (a letter waiting goes on, and a letter after it)
        if through:  # Enter or Backspace after the letter: the message's too
            self._hand_on(event)

    def _hand_on(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        character = typed_text(event.character)
        if character is not None or event.key in TYPED_THROUGH_KEYS:
            self.post_message(TypedElsewhere(event.key, character, focus=True))

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text is a message's."""
        event.stop()
        self._stray_keys.type_pending()
        self.post_message(TypedElsewhere("paste", event.text, focus=True))

    @on(TypedElsewhere)
    def _typed_here(self, event: TypedElsewhere) -> None:
        event.stop()
        self._stray_keys.type_pending()  # (before what follows it)
        self.action_pick(None)  # back; the message has the focus
        self._typed(event)

    def action_pick(self, value: str | None) -> None:
        """Close with the choice ``value`` (``None``: back), unless closed already."""
        if not self._finished:
            self._finished = True
            self.dismiss(next((choice for choice, _, _ in self.choices if choice == value),
                              None))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick(event.option_id if event.option_id != BACK else None)
