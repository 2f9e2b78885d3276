"""The quiet line under a finished turn: ``14:32 · 6s · 1.2k tokens · 2 steps``."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from openletta.transcript import TurnFooterItem
from openletta.ui.formatting import format_elapsed, format_tokens
from openletta.ui.renderers.base import WARN
from openletta.ui.widgets.base import TextItemWidget

#: Said under a turn the server dropped (:attr:`TurnFooterItem.unkept`).
UNKEPT = "not kept by the server: the agent will not see this turn"


#: Where a footer's token count goes while its turn's runs are read (the count takes its
#: place: the line does not grow by a field once they are).
TOKENS_READ = "… tokens"


def footer_text(item: TurnFooterItem, today: datetime | None = None, *,
                reading: bool = False) -> str:
    """When the turn ended (local time; with the day when not today), how long, what it
    cost, and that the server dropped it if it did; ``reading``: :data:`TOKENS_READ` while
    the cost is read from the turn's runs."""
    return " · ".join(filter(None, (figures(item, today, reading=reading),
                                    UNKEPT if item.unkept else "")))


def figures(item: TurnFooterItem, today: datetime | None = None, *,
            reading: bool = False) -> str:
    """When the turn ended (local time; with the day when not today), how long, what it cost
    (``reading``: :data:`TOKENS_READ` while that is read from its runs)."""
    parts: list[str] = []
    if item.date is not None:
        local = item.date.astimezone()
        today = today or datetime.now().astimezone()
        same_day = local.date() == today.date()
        parts.append(local.strftime("%H:%M" if same_day else "%b %d %H:%M"))
    if item.duration is not None:
        parts.append("<1s" if item.duration < 1 else format_elapsed(item.duration))
    if item.tokens:
        parts.append(f"{format_tokens(item.tokens)} tokens")
    elif reading and item.unread_runs:
        parts.append(TOKENS_READ)
    if item.steps:
        parts.append(f"{item.steps} step" + ("s" if item.steps > 1 else ""))
    return " · ".join(parts)


class TurnFooter(TextItemWidget, can_focus=True):
    """A :class:`TurnFooterItem`; Enter on it opens the inspector of the turn's runs."""

    item: TurnFooterItem
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "inspect", "Inspect run", id="footer.inspect"),
    ]

    class Inspect(Message):
        """The user wants to see the runs ``run_ids`` of a turn."""

        def __init__(self, run_ids: tuple[str, ...]) -> None:
            super().__init__()
            self.run_ids = run_ids

    def action_inspect(self) -> None:
        self.post_message(self.Inspect(self.item.run_ids))

    def state(self) -> str:
        return footer_text(self.item, reading=True)

    def draw(self) -> Content:
        if not self.item.unkept:
            return Content(self.state())
        shown = figures(self.item, reading=True)
        return Content.assemble(f"{shown} · " if shown else "", (UNKEPT, WARN))
