"""The agent named on the command line, asked for while Python is still importing the app.

Importing Textual, the models and the app takes most of a launch (0.4–0.5 s on a small
machine), and until now the first request left only after it. :class:`EarlyOpening` sends
the first attempt's requests (health, the agent, and for an id its newest page of history,
the same ones :class:`~openletta.chat.opening.Opening` sends) from a thread with an event loop
and a client of its own, as soon as the command line is read, so that the server's answers are
waited for while the app imports. The app's first connection attempt takes them instead of
asking again; any later attempt asks the usual way.

This module imports nothing heavy at its top: the thread imports the client itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from openletta.api.client import LettaClient
    from openletta.api.history import HistoryPage
    from openletta.api.resources import Health
    from openletta.chat.opening import FoundAgent, Namesakes, Opening

#: Agent ids start with this (the agent and its history can be asked for together).
AGENT_ID_PREFIX = "agent-"
T = TypeVar("T")


class EarlyOpening:
    """The first attempt's requests for ``ref`` on ``base_url``, started at once in a thread."""

    def __init__(self, base_url: str, api_key: str | None, ref: str,
                 conversation: str | None) -> None:
        self.base_url = base_url
        self.ref = ref
        self._api_key = api_key
        self._conversation = conversation
        self._health: Future[Health] = Future()
        self._agent: Future[FoundAgent | Namesakes | None] = Future()
        self._page: Future[HistoryPage] | None = (
            Future() if ref.startswith(AGENT_ID_PREFIX) else None)
        threading.Thread(target=asyncio.run, args=(self._ask(),), name="early-opening",
                         daemon=True).start()

    async def health(self) -> Health:
        """The server's answer to the health check (or its error)."""
        return await asyncio.wrap_future(self._health)

    def opening(self) -> Opening:
        """The agent and page requests as an :class:`Opening` of the caller's event loop
        (cancelling it drops their answers)."""
        from openletta.chat.opening import Opening

        page = asyncio.wrap_future(self._page) if self._page is not None else None
        return Opening(self.ref, asyncio.wrap_future(self._agent), page)

    async def _ask(self) -> None:
        futures: list[Future[Any]] = [self._health, self._agent]
        if self._page is not None:
            futures.append(self._page)
        try:
            from openletta.api.client import LettaClient

            async with LettaClient(self.base_url, api_key=self._api_key) as client:
                await asyncio.gather(*self._requests(client))
        except BaseException as error:  # e.g. an unusable base URL: each asker gets it
            for future in futures:
                _settle(future, error=error)

    def _requests(self, client: LettaClient) -> list[Awaitable[None]]:
        from openletta.chat.opening import find_agent
        from openletta.chat.session import newest_page

        requests: list[Awaitable[None]] = [
            _answer(self._health, client.health()),
            _answer(self._agent, find_agent(client, self.ref))]
        if self._page is not None:
            requests.append(_answer(self._page,
                                    newest_page(client, self.ref, self._conversation)))
        return requests


async def _answer(future: Future[T], request: Awaitable[T]) -> None:
    """Settle ``future`` with what ``request`` gives (or raises)."""
    try:
        result = await request
    except Exception as error:
        _settle(future, error=error)
    else:
        _settle(future, result)


def _settle(future: Future[Any], result: Any = None, *, error: BaseException | None = None
            ) -> None:
    """Give ``future`` its result or error, unless it is settled already (or was cancelled:
    nobody waits for it any more)."""
    with contextlib.suppress(InvalidStateError):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
