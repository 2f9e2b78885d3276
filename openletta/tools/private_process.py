"""Keeping openletta's own memory from the commands its local tools run.

A child gets an environment without ``LETTA_API_KEY`` (see :class:`Workspace`), but on Linux
any process of the same user may read ``/proc/<pid>/environ`` and ``/proc/<pid>/mem`` of
another, so a command could read the key from openletta itself. Marking openletta's process
not dumpable (``prctl(PR_SET_DUMPABLE, 0)``) closes that: those files become root's, ptrace
by the same user is refused, and no core dump is written. The children it starts are
dumpable again once they exec, as any program is.
"""

from __future__ import annotations

import ctypes
import logging
import sys

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3


def _prctl(option: int, value: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result: int = libc.prctl(option, value, 0, 0, 0)
    return result


def keep_memory_private() -> bool:
    """Make this process not dumpable (Linux only); whether it is now. Fails silently
    elsewhere, or where the system refuses."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        _prctl(PR_SET_DUMPABLE, 0)
        private = _prctl(PR_GET_DUMPABLE) == 0
    except (OSError, AttributeError) as error:
        log.info("could not mark the process not dumpable: %s", error)
        return False
    return private
