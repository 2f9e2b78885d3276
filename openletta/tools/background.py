"""Blocking work of a local tool (reading, writing, walking files) off the event loop.

Each piece runs in a daemon thread of its own, not in the loop's default executor: a call
the user stopped while its thread is stuck (a file system that does not answer) is given
up on at once, and its thread never keeps the app from exiting, as an executor's would
(``asyncio.run`` waits for those).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")


async def in_thread(function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)`` run in a daemon thread; cancelling the await abandons it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result, error = function(*args), None
        except BaseException as raised:  # handed to the awaiting task
            result, error = None, raised
        with contextlib.suppress(RuntimeError):  # the loop is closed: no one waits
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name=f"local tool: {getattr(function, '__name__', '?')}",
                     daemon=True).start()
    return await future
