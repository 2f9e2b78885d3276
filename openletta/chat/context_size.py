"""The context's size a chat shows before a turn of its own counts it: read from the newest
run's last LLM call, or, once a compaction is newer than any turn, the server's estimate.

No Textual here. One rule decides which: the model's count of a run from before a
compaction is not the context's size any more, and until a turn runs nothing counts the
compacted context but the server's estimate (``GET /v1/agents/{id}/context``), which is
then shown as one (:attr:`~openletta.transcript.Transcript.context_estimated`). So the size
shown right after ``/compact`` and after opening the thread again is the same.
"""

from __future__ import annotations

import asyncio

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.resources import Agent, Step
from openletta.chat.replies import OnChange
from openletta.transcript import Transcript


def counted_tokens(step: Step) -> int:
    """The tokens an LLM call counted: its whole context, prompt and completion."""
    return step.total_tokens or (step.prompt_tokens or 0) + (step.completion_tokens or 0)


class ContextSize:
    """The context-size reads of a :class:`~openletta.chat.session.ChatSession`."""

    client: LettaClient
    agent: Agent
    conversation_id: str | None
    transcript: Transcript

    async def read_context_size(self, on_change: OnChange, *, newer: bool = False
                                ) -> str | None:
        """The context's size before a turn of this session gives it: the tokens of the
        newest run's last LLM call (history has no usage), or the server's estimate when a
        compaction is newer than any turn; nothing if the server cannot tell. ``newer``:
        turns (or a compaction) newer than the size shown were read (another client's), so
        theirs replaces it, unless a size came meanwhile (a turn here). Returns the model
        the newest run's last call ran on, if it was read."""
        runs, shown = self.transcript.newest_runs(), self.transcript.context_tokens
        if shown is not None and not newer:
            return None
        estimated = self.transcript.compacted_since_last_turn()
        if estimated:
            last, tokens = await asyncio.gather(self._last_step(runs), self.estimated_context())
        else:
            last = await self._last_step(runs)
            tokens = counted_tokens(last) if last else None
        if tokens and self.transcript.context_tokens == shown:
            on_change(self.transcript.set_context_tokens(tokens, replacing=True,
                                                         estimated=estimated))
        return (last.model_handle or last.model) if last else None

    async def show_estimated_context(self, on_change: OnChange) -> None:
        """Show the server's estimate as the context's size (after a compaction); what is
        shown stays when the server cannot say."""
        estimate = await self.estimated_context()
        if estimate is not None:
            on_change(self.transcript.set_context_tokens(estimate, replacing=True,
                                                         estimated=True))

    async def estimated_context(self) -> int | None:
        """The server's estimate of the context's size now (``None`` if it cannot say)."""
        try:
            window = await self.client.get_context(self.agent.id, self.conversation_id)
        except LettaError:
            return None
        return window.context_window_size_current or None

    async def _last_step(self, runs: tuple[str, ...]) -> Step | None:
        """The last LLM call of the newest of ``runs`` (``None``: none, or not known)."""
        if not runs:
            return None
        try:
            steps = await self.client.list_run_steps(runs[-1])
        except LettaError:
            return None
        return steps[-1] if steps else None
