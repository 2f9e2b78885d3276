"""Keys typed where no text goes: on a message, a card, a memory block or a small dialog.

Such a widget has keys of its own (``c`` copies, ``e`` edits a block), but a user who starts
typing a message there expects a message. So a character that none of its keys takes starts
the message in the prompt, with the focus (:class:`~openletta.ui.prompt.TypedElsewhere`),
and Esc, when it does nothing there, goes back to the prompt. A character that is one of its
keys acts once no other key followed it for :data:`BURST_SECONDS`; if one did, it was the
first letter of a word, and goes to the prompt with what follows. Enter, Backspace and the
widget's own keys that come in the same burst as the characters handed on go with them (the
keys of a burst all reach the widget before the focus moves): Enter sends the message, as in
the prompt, and the "e" that ends "hello there" is a letter, not the widget's edit key.
"""

from __future__ import annotations

import time

from textual import events
from textual.binding import ActiveBinding
from textual.timer import Timer
from textual.widget import Widget

from openletta.ui.editor_text import typed_text
from openletta.ui.prompt import TypedElsewhere

#: How long a widget's own key waits to see that it does not start a word: longer than the
#: pause between two letters of a word, even typed slowly (copying a little later costs
#: nothing; a word's first letter taken as a copy costs the clipboard).
BURST_SECONDS = 0.3


class StrayKeys:
    """Handles the keys that reach ``owner`` (a container of such widgets; see the module)."""

    def __init__(self, owner: Widget) -> None:
        self._owner = owner
        #: A widget's key that waits for :data:`BURST_SECONDS`, its binding, and the timer.
        self._pending: tuple[str, ActiveBinding] | None = None
        self._timer: Timer | None = None
        #: When a key was last handed on to the prompt.
        self._handed_on = float("-inf")

    @property
    def pending(self) -> bool:
        """Whether a key waits to see that no other key follows it."""
        return self._pending is not None

    def on_key(self, event: events.Key) -> bool:
        """Hand on, hold or leave ``event`` (the owner's ``on_key`` calls this); ``False``
        when it is left (to the widget's key, if it has one)."""
        character = typed_text(event.character)
        if event.key in ("enter", "backspace") and self._in_burst():
            self._hand_on(event, None)
            return True
        if self._pending is not None:
            self.type_pending()
            if character is not None:
                self._hand_on(event, character)
            return True
        active = self._owner.screen.active_bindings.get(event.key)
        if active is not None and active.enabled and not (character and self._in_burst()):
            if character is None:
                return False
            self._stop(event)
            self._pending = (character, active)
            self._timer = self._owner.set_timer(BURST_SECONDS, self._act)
            return True
        if character is not None or event.key == "escape":
            self._hand_on(event, character)
            return True
        return False

    def _act(self) -> None:
        """No key followed: the widget's key does what it does."""
        if self._pending is None:
            return
        active, self._pending, self._timer = self._pending[1], None, None
        self._owner.call_later(self._owner.app.run_action, active.binding.action, active.node)

    def type_pending(self) -> None:
        """Another key (or a paste) followed the widget's key: it was typing."""
        if self._timer is not None:
            self._timer.stop()
        if self._pending is not None:
            character = self._pending[0]
            self._owner.post_message(TypedElsewhere(character, character, focus=True))
        self._pending = self._timer = None

    def _hand_on(self, event: events.Key, character: str | None) -> None:
        self._stop(event)
        self._handed_on = time.monotonic()
        self._owner.post_message(TypedElsewhere(event.key, character, focus=True))

    def _in_burst(self) -> bool:
        """Whether a key was handed on to the prompt a moment ago."""
        return time.monotonic() - self._handed_on < BURST_SECONDS

    @staticmethod
    def _stop(event: events.Key) -> None:
        event.stop()
        event.prevent_default()
