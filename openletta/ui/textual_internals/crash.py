"""Textual's private API for an error no handler caught: what must outlive the app is kept
before it ends."""

from __future__ import annotations

import logging

from textual.app import App

log = logging.getLogger(__name__)

# --- errors (openletta.ui.app) -----------------------------------------------------------------


class KeepsBeforeCrash(App[None]):
    """An app that runs :meth:`keep_before_crash` when an error ends it.

    Textual ends the app on an exception no handler caught (``_handle_exception``, the one
    way every such error goes: handlers, workers, timers); :meth:`App.exit` is not called,
    so what quitting keeps would be lost with it.
    """

    def keep_before_crash(self) -> None:
        """Keep what must outlive the app; its widgets are still there."""

    def _handle_exception(self, error: Exception) -> None:
        try:
            self.keep_before_crash()
        except Exception:  # the error that ends the app is the one to report
            log.exception("could not keep what the app holds before it ends")
        super()._handle_exception(error)
