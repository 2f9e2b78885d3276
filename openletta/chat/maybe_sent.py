"""A message whose request broke after it may have reached the server: looked for there
before anything is sent again (Letta would answer a second copy), shown with its reply when
it is found, given back to the prompt when it is not."""

from __future__ import annotations

from openletta.api.errors import APIConnectionError, LettaError
from openletta.chat.approval_flow import CatchUp
from openletta.chat.session import Outgoing
from openletta.chat.turn_state import Phase
from openletta.chat.turn_tasks import ARRIVED, NOT_ARRIVED, TurnTasks


class MaybeSent:
    """Looks for messages maybe sent; ``catch_up`` follows the reply of one found."""

    def __init__(self, tasks: TurnTasks, *, catch_up: CatchUp) -> None:
        self._tasks = tasks
        self._catch_up = catch_up

    async def show_if_sent(self, outgoing: Outgoing) -> bool:
        """Whether the server has ``outgoing`` (its request broke); if it has, it leaves the
        prompt, and it and the reply are shown (followed while it goes on)."""
        if not await self._tasks.session.show_if_sent(outgoing.otid, self._tasks.on_change):
            return False
        self._tasks.held = None  # its answers went in the same request
        self._tasks.listener.withdraw_prompt(outgoing.text)
        self._tasks.listener.report(ARRIVED, title="Sent", severity="information", notice=True)
        self._tasks.update(phase=Phase.WAITING, sending=None)
        await self._catch_up()
        return True

    async def confirm_sent(self, outgoing: Outgoing) -> None:
        """The server is back after ``outgoing``'s request broke: show it if it arrived, or
        say it is in the prompt to send."""
        try:
            if await self.show_if_sent(outgoing):
                return
        except LettaError as error:
            self._tasks.unconfirmed = outgoing
            self._tasks.update(phase=Phase.IDLE, offline=isinstance(error, APIConnectionError))
            return
        if self._tasks.queue:  # typed meanwhile: it goes back after the message not sent
            self._tasks.listener.withdraw_prompt(outgoing.text)
            self._tasks.queue.appendleft(outgoing.text)
            self._tasks.return_queue()
        self._tasks.update(phase=Phase.IDLE)
        self._tasks.listener.report(NOT_ARRIVED, title="Send failed", severity="warning",
                                    notice=True)
