"""Esc while a request waits for the server's answer.

Closing such a request does not undo it: a Letta server that read it takes it all the same,
and its run goes on unseen. So Esc takes the request over
(:class:`~openletta.chat.replies.SendInFlight`) and waits for the answer, for
:data:`STOP_WAIT_SECONDS` at most, the status saying :data:`STOPPING`. Taken, the request is
shown as a turn Esc stopped at once, and its run is cancelled, as Esc a moment later would
(the turn then says whether the server kept it); refused, it was not sent. With no answer in
time the wait ends, the message goes back to the prompt as maybe not sent, and a task beside
the chat waits on: if the server takes the request after all, its run is stopped then.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from openletta.api.errors import LettaError
from openletta.chat.replies import SendInFlight, read_until_named
from openletta.chat.session import Outgoing
from openletta.chat.turn_state import STOPPING, Phase
from openletta.chat.turn_tasks import TurnTasks
from openletta.transcript.interruption import HELD, TOLD

#: How long Esc waits for the server to answer the request it stopped.
STOP_WAIT_SECONDS = 10.0
TAKEN = ("Your message had reached the server when you pressed Esc: its reply was stopped "
         "at once.")
UNANSWERED = ("Maybe not sent: the server had not answered when you pressed Esc. Your message "
              "is in the prompt; if the server takes it after all, openletta stops its reply.")
TAKEN_LATE = ("The server took your message after all, after Esc: openletta stopped its reply. "
              "Sending it again looks first whether the server kept it.")


@dataclass(frozen=True)
class Settled:
    """How a request Esc stopped ended: ``taken`` (its turn shown, stopped; ``run_id`` the
    run to cancel, when its stream named it), refused with ``error``, or neither (no
    answer in time: it is watched beside the chat)."""

    taken: bool = False
    run_id: str | None = None
    error: LettaError | None = None


class StoppedSends:
    """What Esc does with a request the server has not answered yet (see the module)."""

    def __init__(self, tasks: TurnTasks) -> None:
        self._tasks = tasks

    @property
    def stopping(self) -> bool:
        """Whether Esc waits for the server's answer to a request now."""
        return self._tasks.state.connection == STOPPING

    async def stop_send(self, flight: SendInFlight, text: str) -> None:
        """Esc came while the server had not answered the request of ``text``: the turn ends
        as its answer says (see the module)."""
        tasks = self._tasks
        settled = await self.settle(flight)
        outgoing = Outgoing(text) if flight.otid is None else Outgoing(text, flight.otid)
        if settled.error is not None:
            tasks.send_failed(outgoing, settled.error)
            return
        if settled.taken:
            if tasks.held is not None:  # its answers went with it
                tasks.held = None
                tasks.listener.transcript_changed(
                    tasks.session.transcript.reword_event(HELD, TOLD))
            tasks.listener.report(TAKEN, title="Interrupt", severity="information")
        else:
            tasks.unconfirmed = outgoing
            tasks.listener.restore_prompt(text)
            tasks.listener.report(UNANSWERED, title="Interrupt", severity="warning",
                                  notice=True)
        tasks.return_queue()
        tasks.update(phase=Phase.IDLE, sending=None, stop_reason="interrupted")
        if settled.taken:  # (beside the turn: a message sent now does not stop the cancel)
            tasks.start_side_task(lambda: tasks.cancel_on_server(settled.run_id))

    async def settle(self, flight: SendInFlight) -> Settled:
        """Wait for the server's answer to ``flight`` (:data:`STOP_WAIT_SECONDS` at most); a
        request it took is shown as a turn Esc stopped (its run is not cancelled yet)."""
        tasks = self._tasks
        tasks.update(connection=STOPPING)
        try:
            try:
                async with asyncio.timeout(STOP_WAIT_SECONDS):
                    await asyncio.shield(flight.opening)
            except TimeoutError:
                tasks.start_side_task(lambda: self._stop_when_taken(flight))
                return Settled()
            except LettaError as error:
                return Settled(error=error)
            except asyncio.CancelledError:
                await flight.abandon()
                raise
            run_id = await tasks.session.stop_accepted(flight, tasks.on_change)
            return Settled(taken=True, run_id=run_id)
        finally:
            tasks.update(connection=None)

    async def _stop_when_taken(self, flight: SendInFlight) -> None:
        """The server did not answer ``flight`` while Esc waited: if it takes it yet, its
        run is stopped at once."""
        try:
            await flight.opening
        except LettaError:
            return
        except asyncio.CancelledError:
            await flight.abandon()
            raise
        try:
            await read_until_named(flight.stream)
        finally:
            await flight.stream.aclose()
        session = self._tasks.session
        if flight.stream.run_id is not None:
            await self._tasks.cancel_on_server(flight.stream.run_id)
        else:
            try:
                await session.client.cancel(session.agent.id,
                                            conversation_id=session.conversation_id)
            except LettaError:
                return
        self._tasks.listener.report(TAKEN_LATE, title="Interrupt", severity="warning",
                                    notice=True)
