"""When Python's garbage collector does its slow work.

A full collection walks every object the process tracks. Scrolling a long history makes and
drops many widgets, so with Python's defaults a full collection ran every few scrolls and
paused the screen for 100–300 ms. The app (when run from the command line) calls
:func:`settle_after_startup` once connected: the objects of start-up, which live as long as
the process, leave the collector's reach, and full collections come at most a quarter as
often. Most of them then run where nobody waits for the screen: :func:`collect_while_waiting`
while a request to the server is out (the client's ``on_wait``; a page of older history, a
message being answered), :func:`collect_if_due` when the user has stopped scrolling.
"""

from __future__ import annotations

import gc

#: Collections of the middle generation between two full collections, by Python's default.
FULL_DUE = 10
#: The same, at the latest, when no quiet moment came to run one (4x Python's default).
FULL_LATEST = 40
#: While waiting for the server: late enough that the wait for the next page of history
#: (about a dozen middle collections later when scrolling back) still comes before
#: ``FULL_LATEST``, so a full collection seldom has to interrupt the screen's work.
WAIT_DUE = 25


def settle_after_startup() -> None:
    """Freeze the objects made so far (never collected again) and space full collections.

    For a process that runs one app: whatever start-up left unreachable stays in memory.
    """
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_LATEST)


def collect_if_due(due: int = FULL_DUE) -> bool:
    """Run a full collection if ``due`` middle collections ran since the last; ``True`` if so.

    Call it at a quiet moment: it takes about as long as a screen layout, or longer.
    """
    if gc.get_count()[2] < due:
        return False
    gc.collect()
    return True


def collect_while_waiting() -> None:
    """The client's ``on_wait``: run the full collection that will soon be due anyway."""
    collect_if_due(WAIT_DUE)
