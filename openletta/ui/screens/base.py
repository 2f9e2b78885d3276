"""Behaviour shared by the app and its screens."""

from __future__ import annotations

from textual.dom import DOMNode
from textual.worker import Worker, WorkerState


class ReportsWorkerErrors(DOMNode):
    """Shows a notification when one of this node's workers fails unexpectedly.

    Expected failures (``LettaError``) are handled where they happen; this catches the rest so
    the user sees a message instead of silence, and never a traceback.

    List it after the ``Screen`` or ``App`` base: Textual takes a class's CSS type names (and
    so ``Screen``'s default styles) from the first base only.
    """

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.app.notify(f"Unexpected error: {event.worker.error!r}", title="openletta",
                            severity="error")
