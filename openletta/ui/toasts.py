"""The app's toasts: plain text, one per topic."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import Notification, Notify, SeverityLevel

from openletta.display import DisplayText, single_line
from openletta.ui.textual_internals import withdraw_notification

#: How long an error's toast stays when its caller sets no time: often nothing else says it
#: (a /compact that failed leaves the chat as it was), and a user who looked away for a few
#: seconds must not miss it (Textual's usual 5 s).
ERROR_SECONDS = 15.0


class Toasts:
    """Shows toasts for ``app``, never as markup (messages are built from server text).

    A toast replaces one still shown with the same title: newer news on a topic (the mode
    switched again, a cancel confirmed after it was asked for) supersedes the older, so
    toasts do not pile up over the chat. An error stays :data:`ERROR_SECONDS` unless its
    caller says how long.
    """

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._by_title: dict[str, Notification] = {}

    def show(self, message: str, *, title: str, severity: SeverityLevel,
             timeout: float | None) -> None:
        """Show ``message`` under ``title``, in place of a toast with that title."""
        title = single_line(title)
        earlier = self._by_title.pop(title, None)
        if earlier is not None:  # after its own Notify, which may still wait in the queue
            self._app.call_later(withdraw_notification, self._app, earlier)
        if timeout is None:
            timeout = ERROR_SECONDS if severity == "error" else self._app.NOTIFICATION_TIMEOUT
        notification = Notification(DisplayText(message), title, severity, timeout,
                                    markup=False)
        self._by_title[title] = notification
        self._app.post_message(Notify(notification))
