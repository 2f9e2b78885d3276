"""The context size shown after ``/compact``: the model's count, shrunk as the server's
estimate shrank (the two count differently: the estimate alone would make it jump)."""

from __future__ import annotations

from typing import Any

from openletta.api.errors import ServerError
from openletta.api.history import HistoryPage
from openletta.api.resources import Agent, Compaction, ContextWindow
from openletta.chat.session import ChatSession


class CompactingClient:
    """Compacts; the server estimates the context at ``estimates`` before and after."""

    def __init__(self, *estimates: int | None) -> None:
        self.estimates = list(estimates)

    async def compact(self, agent_id: str, conversation_id: str | None) -> Compaction:
        return Compaction(summary="older talk", num_messages_before=9, num_messages_after=2)

    async def list_messages(self, agent_id: str, **_options: Any) -> HistoryPage:
        return HistoryPage([], None, False)

    async def get_context(self, agent_id: str, conversation_id: str | None) -> ContextWindow:
        estimate = self.estimates.pop(0)
        if estimate is None:
            raise ServerError("the context cannot be read")
        return ContextWindow(context_window_size_max=30_000,
                             context_window_size_current=estimate)


async def shown_after_compacting(model_count: int | None, *estimates: int | None
                                 ) -> int | None:
    session = ChatSession(CompactingClient(*estimates), Agent(id="agent-1"))  # type: ignore[arg-type]
    if model_count is not None:
        session.transcript.set_context_tokens(model_count)
    await session.compact(lambda change: None)
    return session.transcript.context_tokens


async def test_the_models_count_shrinks_by_the_share_the_servers_estimate_did() -> None:
    assert await shown_after_compacting(1_000, 3_000, 2_400) == 800  # not 2,400: it fell


async def test_with_no_count_shown_yet_the_estimate_is_shown() -> None:
    assert await shown_after_compacting(None, 3_000, 2_400) == 2_400


async def test_an_estimate_the_server_cannot_give_leaves_what_it_can() -> None:
    assert await shown_after_compacting(1_000, None, 2_400) == 2_400
    assert await shown_after_compacting(1_000, 3_000, None) == 1_000
