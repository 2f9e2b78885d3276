"""The connect screen: a health check in a worker, and a clear explanation when it fails
(tried again by itself, now and then, while the server cannot be reached).

What the user types while it connects is kept for the screen that follows (the chat's
prompt, or the agent chooser's search): a terminal user types ahead, and the keys of a
message started as the app launches must not be lost, nor taken as commands (``q`` quits
and ``r`` retries only once an attempt has failed).

It draws nothing for the first :data:`QUIET_SECONDS`: a connection quicker than that (one
whose answers came while the app was starting) goes straight to the screen that follows,
without drawing "Connecting…" for a frame, and without the time it takes to lay out and
paint a screen that is gone at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from openletta.api.errors import APIConnectionError, LettaError
from openletta.display import plain_text
from openletta.ui.editor_text import pasted_text, typed_text
from openletta.ui.hanging import Hanging
from openletta.ui.key_bar import KeyBar
from openletta.ui.retry import TryAgain
from openletta.ui.screens.base import ReportsWorkerErrors

#: How long connecting goes on before the screen says so (a failure shows at once).
QUIET_SECONDS = 0.2
FIXES = (
    "start your Letta server, or point to it with --base-url URL or LETTA_BASE_URL",
    "for Letta Cloud or a protected server, set LETTA_API_KEY",
    "or try openletta without a server: openletta --demo",
)
TRYING_AGAIN = ("openletta tries again by itself every few seconds; Ctrl+R tries now, Ctrl+Q "
                "quits. What you type meanwhile waits for the prompt.")


def failure_text(url: str, reason: str, *, trying_again: bool = False) -> Group:
    """What the connect screen says when ``url`` could not be reached, and why (then the
    fixes, each wrapping under itself, not under its bullet)."""
    text = Text()
    text.append("Could not connect to ", style="bold")
    text.append_text(plain_text(url, style="bold"))
    text.append("\n\n")
    text.append_text(plain_text(reason))
    if trying_again:
        text.append("\n\n" + TRYING_AGAIN, style="italic")
    text.append("\n\nHow to fix it:")
    return Group(text, Hanging(*((Text("  • "), Text(fix)) for fix in FIXES)))


class ConnectScreen(Screen[None], ReportsWorkerErrors):
    """Runs ``connect`` (health check and what follows); on failure explains and offers retry.

    ``connect`` raises :class:`LettaError` on failure; on success it replaces this screen.
    While the server cannot be reached, it is tried again after growing pauses
    (:func:`~openletta.api.http.reach_again_pauses`), quietly: the failure stays on screen.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "retry", "Retry", id="connect.retry"),
        Binding("ctrl+q", "quit", "Quit", id="connect.quit"),
    ]

    failed = reactive(False, bindings=True)
    """Whether the last attempt failed (the retry key is active only then)."""

    def __init__(self, url: str, connect: Callable[[], Awaitable[None]]) -> None:
        super().__init__()
        self.url = url
        self._connect = connect
        self._again = TryAgain(self)
        #: What was typed while it connects (and tries again): the prompt's, once it opens.
        self.typed_ahead = ""
        self._message = Static(self._connecting_text(), id="connect-message")
        self._drawn = False

    def compose(self) -> ComposeResult:
        yield from ()  # the message and the keys come once connecting takes a while

    def on_mount(self) -> None:
        self.set_timer(QUIET_SECONDS, self._draw)
        self.attempt()

    def _draw(self) -> None:
        """Show the message and the keys (once)."""
        if not self._drawn:
            self._drawn = True
            self.call_later(self._mount_drawn)

    async def _mount_drawn(self) -> None:
        await self.mount(Vertical(self._message, id="connect-box"), KeyBar())
        self.refresh_bindings()  # a key bar lists the keys when told the bindings changed

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("retry", "quit"):
            return self.failed
        return True

    def action_retry(self) -> None:
        """Try to connect again, now."""
        self.attempt()

    def action_quit(self) -> None:
        """Quit (offered once an attempt failed): not a success, for the shell."""
        self.app.exit(return_code=1)

    def on_key(self, event: events.Key) -> None:
        if event.key == "backspace":
            self.typed_ahead = self.typed_ahead[:-1]
        elif (typed := typed_text(event.character)) is not None:
            self.typed_ahead += typed
        else:
            return
        event.stop()

    def on_paste(self, event: events.Paste) -> None:
        self.typed_ahead += pasted_text(event.text)
        event.stop()

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def attempt(self, *, quietly: bool = False) -> None:
        """Connect in a worker; show the failure instead of raising. ``quietly``: the
        failure shown stays while it runs (a try of its own)."""
        self._again.stop()
        if not quietly:
            self._again.reset()
            self.failed = False
            self.set_class(False, "-failed")
            self._message.update(self._connecting_text())
        try:
            await self._connect()
        except APIConnectionError as error:
            self._show_failure(error.message, trying_again=True)
            self._again.later(lambda: self.attempt(quietly=True))
        except LettaError as error:
            self._show_failure(error.message)
        except OSError as error:  # e.g. the demo server could not bind its port
            self._show_failure(f"{type(error).__name__}: {error}")
        except Exception as error:  # a bug: say so rather than "Connecting…" for ever
            self.log.error("connect failed", error)
            self._show_failure(f"unexpected {type(error).__name__}: {error}")

    def _show_failure(self, reason: str, *, trying_again: bool = False) -> None:
        self.failed = True
        self.set_class(True, "-failed")
        self._draw()
        self._message.update(
            failure_text(self.url, reason, trying_again=trying_again))

    def _connecting_text(self) -> Text:
        text = Text("Connecting to ")
        text.append_text(plain_text(self.url, style="bold"))
        text.append(" …")
        return text
