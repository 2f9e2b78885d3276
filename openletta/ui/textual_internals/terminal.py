"""Textual's private API for the app and its terminal: the theme set before the start, a
sequence of our own written to the terminal, a toast taken back, an input thread that sleeps
and takes bracketed pastes whole, and the first focus of a screen that opened while the
terminal had not the focus."""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Iterable
from typing import Any

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.css.query import NoMatches
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.notifications import Notification
from textual.screen import Screen
from textual.widgets._toast import ToastRack

from openletta.ui.bracketed_paste import PasteSplitter

# --- theme (openletta.ui.app) -------------------------------------------------------------------


def start_with_theme(app: App[Any], name: str) -> None:
    """Make ``name`` the theme of ``app`` before it starts, as setting ``app.theme`` does,
    but without the ``refresh_css`` that Textual's ``_watch_theme`` defers to the next message.

    That refresh parses every CSS source again from scratch, after the first screen has
    parsed them, and empties the parse cache, so that the sources are parsed a third time
    as the next screens add theirs: about 30 ms of a launch for CSS that did not change.
    Before the start the stylesheet has parsed nothing: setting its variables is enough.
    The rest is what ``_watch_theme`` does.
    """
    app.set_reactive(App.theme, name)
    app.stylesheet.set_variables(app.get_css_variables())
    theme = app.current_theme
    classes = {name: False for name in app.classes if name.startswith("-theme-")}
    classes |= {f"-theme-{theme.name}": True, "-dark-mode": theme.dark,
                "-light-mode": not theme.dark}
    app.update_classes(classes, update=False)
    app._refresh_truecolor_filter(app.ansi_theme)


# --- terminal (openletta.ui.app) --------------------------------------------------------------


def write_to_terminal(app: App[Any], text: str) -> None:
    """Write ``text`` (an escape sequence, such as the window title's) to the terminal.

    Textual has no public way to send the terminal a sequence of our own; it writes its own
    (the clipboard's OSC 52, the bell) through the app's driver, as this does. Nothing is
    written when the app has no driver (not running).
    """
    driver = app._driver
    if driver is not None:
        driver.write(text)


# --- toasts (openletta.ui.toasts) -----------------------------------------------------------


def withdraw_notification(app: App[Any], notification: Notification) -> None:
    """Take ``notification``'s toast off the screen before its time is up (nothing happens
    once it is gone).

    Textual has no public way to remove one toast (only ``clear_notifications``, all of
    them). A toast removes itself this way when clicked or expired, holder and all: the
    rack's own refresh would leave the empty holder, a blank line above the next toasts.
    """
    app._unnotify(notification, refresh=False)
    for rack in app.screen.query(ToastRack):
        with contextlib.suppress(NoMatches):
            rack.get_child_by_id(ToastRack._toast_id(notification)).remove()


# --- input thread (openletta.ui.app) ----------------------------------------------------------

#: Seconds after input during which the input thread polls for the parser's timeouts (a lone
#: Esc is reported once no more bytes follow it).
INPUT_GRACE = 1.0
#: How often it polls then, as Textual's does.
POLL_SECONDS = 0.1


class _WakingEvent(threading.Event):
    """An event that also wakes a thread sleeping in ``select`` on ``wake_fd``'s pipe."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        super().set()
        with contextlib.suppress(OSError):
            os.write(self._wake_fd, b".")


class QuietLinuxDriver(LinuxDriver):
    """Textual's Linux driver with an input thread that sleeps while nothing happens.

    Textual's input thread wakes ten times a second (``select`` with a 0.1 s timeout) to see
    whether the app is stopping and whether a lone Esc has waited long enough: 0.1 % of a CPU
    for a chat nobody touches. This one polls like that only for :data:`INPUT_GRACE` seconds
    after input (the parser's own timeouts are shorter), and otherwise sleeps until input
    comes or :attr:`exit_event` is set, which writes to a pipe it also waits on. It reads and
    parses input as Textual does, with Textual's ``XTermParser``, but for bracketed pastes:
    they go around the parser, whole and in order (:mod:`openletta.ui.bracketed_paste`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_read, self._wake_write = os.pipe()
        self.exit_event = _WakingEvent(self._wake_write)

    def run_input_thread(self) -> None:
        parser = XTermParser(self._debug)
        pastes = PasteSplitter()
        decode = getincrementaldecoder("utf-8")().decode
        last_input = -INPUT_GRACE
        with selectors.DefaultSelector() as selector:
            selector.register(self.fileno, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while not self.exit_event.is_set():
                recent = time.monotonic() - last_input < INPUT_GRACE
                for key, _mask in selector.select(POLL_SECONDS if recent else None):
                    if key.fd == self._wake_read:
                        os.read(self._wake_read, 512)
                        continue
                    data = os.read(self.fileno, 4096)
                    if not data:  # end of input (stdin is not a terminal)
                        selector.unregister(self.fileno)
                        continue
                    last_input = time.monotonic()
                    for part in pastes.feed(decode(data)):
                        if isinstance(part, str):
                            self._post(parser.feed(part))
                        else:
                            self.process_message(events.Paste(part.text))
                self._post(parser.tick())

    def _post(self, messages: Iterable[Message]) -> None:
        """Post what was read but the parser's own pastes (empty: it reads only their
        markers); the pastes are the splitter's."""
        for message in messages:
            if not isinstance(message, events.Paste):
                self.process_message(message)

    def close(self) -> None:
        super().close()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)


# --- focus (openletta.ui.chat_commands) ------------------------------------------------------


def give_first_focus(screen: Screen[Any]) -> None:
    """Focus what ``screen``'s ``AUTO_FOCUS`` names if nothing has the focus, as Textual does
    when a screen opens, but only while the terminal has the focus: a screen that opened
    while it had not keeps none once it has it again (Textual gives back only the focus a
    widget lost when it left), and the keys typed go nowhere."""
    screen._update_auto_focus()
