"""The message on its way to the server, named in the rule above the prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from openletta.display import pictured_text

if TYPE_CHECKING:
    from openletta.ui.chat_view import ChatView

#: The label of a message on its way to the server, and how long it goes unshown.
SENDING = "sending"
SENDING_ROW_DELAY = 0.15


def pending_line(label: str, message: str) -> Text:
    """``sending hello``: a message not in the chat yet, on one line, as it was typed."""
    return Text.assemble((f"{label} ", "bold"), pictured_text(message.replace("\n", " ⏎ ")))


class SendingTitle:
    """Names the message on its way to the server (``sending hello``; ``waiting hello``
    while the server ends the run before it) in the top border of ``field``, the prompt.

    A new title repaints that row alone. A row below the chat took a line from the chat, and
    gave it back as the message came in: two layouts of the chat, each scrolling every line
    in view, in every turn. A message newly sending is named after
    :data:`SENDING_ROW_DELAY` (a server that takes it sooner leaves nothing to flash); the
    name goes with the chat view's next flush, the one that shows the message in the chat.
    """

    def __init__(self, field: Widget, view: ChatView) -> None:
        self._field, self._view = field, view
        #: What to show (``(label, text)``), and what is shown.
        self._wanted: tuple[str, str] | None = None
        self._shown: tuple[str, str] | None = None
        self._delay: Timer | None = None

    def show(self, wanted: tuple[str, str] | None) -> None:
        """Show ``(label, text)`` in the border, or nothing."""
        if wanted == self._wanted:
            return
        self._wanted = wanted
        if self._delay is not None:
            self._delay.stop()
            self._delay = None
        if wanted is None:
            self._view.with_next_flush(self._draw)
        elif wanted[0] == SENDING and (self._shown is None or self._shown[1] != wanted[1]):
            self._delay = self._field.set_timer(SENDING_ROW_DELAY, self._draw)
        else:
            self._draw()

    @property
    def shown(self) -> tuple[str, str] | None:
        """What the border names now."""
        return self._shown

    def _draw(self) -> None:
        if self._wanted == self._shown:
            return
        self._shown = self._wanted
        self._field.border_title = (None if self._shown is None
                                    else Text.assemble(" ", pending_line(*self._shown), " "))
