"""When Python's garbage collector does its slow work.

A full collection walks every object the process tracks. Scrolling a long history makes and
drops many widgets, so with Python's defaults a full collection ran every few scrolls and
paused the screen for 100–300 ms. The command line pauses the collector while the app is
imported and starts (:func:`pause_for_startup`: about 150 young and one full collection,
60 ms, for objects that nearly all live as long as the process), and the app calls
:func:`settle_after_startup` after its first connection attempt: the objects of start-up
leave the collector's reach, the collector runs again, young collections start after 10,000
new objects instead of 700 (a turn makes and drops many short-lived ones), and full
collections come at most a quarter as often. The ones that come due run where nobody waits
for the screen, a little early: :func:`collect_while_waiting` while a request to the server
is out (the client's ``on_wait``; a page of older history, a message being answered),
:func:`collect_if_due` when the user has stopped scrolling. Early, not extra: each walks the
whole heap, so running them more often than Python would made a long chat's turns dearer.

Python 3.14's incremental collector has no middle generation and no long pauses to move
(``gc.get_threshold()[2]`` is 0 there): start-up objects are frozen and the rest is left to it.
"""

from __future__ import annotations

import gc

#: New objects (allocations less deallocations) that start a young collection.
YOUNG_LIMIT = 10_000
#: Collections of the middle generation between two full collections, at the latest (4x
#: Python's default).
FULL_LATEST = 40
#: At a quiet moment: a full collection this close to due runs now.
FULL_DUE = 30
#: While waiting for the server: a little later than at a quiet moment, so that scrolling
#: back (a page request after a few middle collections) seldom has to pay for one.
WAIT_DUE = 35


def generational() -> bool:
    """Whether the collector has three generations (not the incremental one of 3.14)."""
    return gc.get_threshold()[2] > 0


def pause_for_startup() -> None:
    """Stop collecting until :func:`settle_after_startup` (start-up makes objects that stay)."""
    gc.disable()


def settle_after_startup() -> None:
    """Freeze the objects made so far (never collected again), space collections and let the
    collector run (again, after :func:`pause_for_startup`).

    For a process that runs one app: whatever start-up left unreachable stays in memory.
    """
    gc.freeze()
    gc.enable()
    if generational():
        _, middle, _ = gc.get_threshold()
        gc.set_threshold(YOUNG_LIMIT, middle, FULL_LATEST)


def collect_if_due(due: int = FULL_DUE) -> bool:
    """Run a full collection if ``due`` middle collections ran since the last; ``True`` if so.

    Call it at a quiet moment: it takes about as long as a screen layout, or longer.
    """
    if not generational() or gc.get_count()[2] < due:
        return False
    gc.collect()
    return True


def collect_while_waiting() -> None:
    """The client's ``on_wait``: run the full collection that will soon be due anyway."""
    collect_if_due(WAIT_DUE)
