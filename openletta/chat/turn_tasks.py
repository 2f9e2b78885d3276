"""What a chat controller stands on: the turn state it reports to its listener, the
messages queued meanwhile, and the asyncio tasks it runs (at most one turn task, plus side
tasks), each guarded so that a bug reports itself and leaves the turn idle, never stuck.

No Textual here. :class:`~openletta.chat.controller.ChatController` builds on it, through
:class:`~openletta.chat.approval_flow.ApprovalFlow`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from openletta.api.errors import LettaError
from openletta.chat.approvals import ApprovalRound
from openletta.chat.local_calls import LocalCalls
from openletta.chat.session import FOREGROUND_ONLY, ChatSession
from openletta.chat.turn_state import Phase, TurnListener, TurnState
from openletta.tools.base import ToolOutcome
from openletta.transcript import Change

log = logging.getLogger(__name__)

FOREGROUND_NOTICE = ("The server cannot run replies in the background (self-hosted Letta needs "
                     "Redis for it): a reply whose connection drops cannot be resumed.")

#: Work for a task, made when the task starts (a task cancelled first never makes it).
Work = Callable[[], Awaitable[object]]


class TurnTasks:
    """The state of one conversation's turns and the tasks that change it."""

    def __init__(self, session: ChatSession, listener: TurnListener,
                 local: LocalCalls | None = None) -> None:
        self.session = session
        self._listener = listener
        #: The tools run here (``None``: none are declared to the agent).
        self.local = local
        session.client_tools = local.declarations() if local is not None else []
        self._state = TurnState(permission_mode=local.mode if local is not None else None)
        self._queue: deque[str] = deque()
        self._round: ApprovalRound | None = None
        #: Tools the user approved "for this session": their requests are answered at once.
        self.auto_approve: set[str] = set()
        self._quit_when_answered = False
        self._turn: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()
        #: The local call running now, and whether Esc stopped the local calls of the round.
        self._tool_task: asyncio.Task[ToolOutcome] | None = None
        self._tools_interrupted = False

    @property
    def state(self) -> TurnState:
        return self._state

    async def close(self) -> None:
        """Stop everything the controller runs (the chat is closing)."""
        tasks = [task for task in (self._turn, self._tool_task, *self._side_tasks)
                 if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- reporting ------------------------------------------------------------------------

    def _update(self, **changes: Any) -> None:
        self._state = dataclasses.replace(self._state, **changes, queued=tuple(self._queue))
        self._listener.turn_state_changed(self._state)

    def _publish(self) -> None:
        self._update()

    def _return_queue(self) -> None:
        """Held messages go back to the prompt instead of being sent after a failed turn."""
        if self._queue:
            self._listener.restore_prompt("\n\n".join(self._queue))
            self._queue.clear()
            self._publish()

    def _on_connection(self, state: str) -> None:
        if state == FOREGROUND_ONLY:
            self._listener.report(FOREGROUND_NOTICE, title="Connection", severity="warning")
        else:
            self._update(connection=state)

    def _on_change(self, change: Change) -> None:
        if self._state.sending is not None and self.session.turn_open:
            self._update(phase=Phase.STREAMING, sending=None)
        self._listener.transcript_changed(change)

    async def _cancel_on_server(self, run_id: str | None) -> None:
        try:
            await self.session.cancel_run(run_id, self._listener.transcript_changed)
        except LettaError as error:
            self._listener.report(f"The server did not confirm the cancel: {error.message}",
                                  title="Interrupt", severity="warning")

    # --- tasks ----------------------------------------------------------------------------

    def _start_turn(self, work: Work) -> None:
        self._cancel_turn()
        self._turn = asyncio.get_running_loop().create_task(self._guard(work))

    def _cancel_turn(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
        self._turn = None

    def _start_side_task(self, work: Work) -> None:
        task = asyncio.get_running_loop().create_task(self._guard(work))
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    async def _guard(self, work: Work) -> None:
        """Run ``work``; a bug in it is reported and leaves the turn idle, never stuck."""
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("the turn failed unexpectedly")
            with contextlib.suppress(Exception):
                self._listener.transcript_changed(self.session.interrupt())
            self._round = None
            self._update(phase=Phase.IDLE, sending=None, asking=None, undecided=0)
            self._listener.report(f"Unexpected error: {error!r}", title="openletta",
                                  notice=True)
