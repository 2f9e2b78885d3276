"""A tool card's title line: the tool, the summary of its call, and its badges, fitted to
the line by leaving out what matters least first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from openletta.display import literal_text
from openletta.transcript import ToolCallItem
from openletta.ui.renderers import ToolRenderer
from openletta.ui.renderers.base import MUTED

#: The cells a card's title keeps on a narrow line before badges are dropped (or the
#: title's own length, or half the line, if more).
TITLE_ROOM = 16
#: The fewest cells of a path kept when its start is cut ("…" and the end of the path).
_PATH_ROOM = 8


@dataclass(frozen=True)
class CardTitle:
    """The parts of a card's title: the tool's ``name``, the ``subject`` of the call (a
    path, a command) and ``detail`` (a size, lines changed: left out first)."""

    name: str = ""
    subject: str = ""
    detail: str = ""
    #: Whether the subject is a path (cut, it keeps its end: the file's name).
    subject_is_path: bool = False

    @property
    def full(self) -> Content:
        return self._assemble(self.subject, self.detail)

    @property
    def short(self) -> Content:
        """The title without its detail."""
        return self._assemble(self.subject, "")

    def fit(self, room: int) -> Content:
        """The title in ``room`` cells: whole, else without its detail, else cut with "…"
        (a path loses its start, anything else its end)."""
        if self.full.cell_length <= room:
            return self.full
        short = self.short
        if short.cell_length <= room:
            return short
        subject_room = room - cell_len(self.name) - 2
        if self.subject_is_path and subject_room >= _PATH_ROOM:
            return self._assemble("…" + _last_cells(self.subject, subject_room - 1), "")
        if subject_room >= 2:  # (one "…" where it is cut, also after a "…" of the summary's)
            start = _last_cells(self.subject[::-1], subject_room - 1)[::-1]
            return self._assemble(start.rstrip(" …") + "…", "")
        return short.truncate(room, ellipsis=True)

    def _assemble(self, subject: str, detail: str) -> Content:
        return Content.assemble((self.name, "bold"), "  ", (subject + detail, MUTED))


def _last_cells(text: str, cells: int) -> str:
    """The end of ``text`` that fits in ``cells`` cells."""
    kept, used = len(text), 0
    while kept > 0 and used + cell_len(text[kept - 1]) <= cells:
        kept -= 1
        used += cell_len(text[kept])
    return text[kept:]


def card_title(item: ToolCallItem, renderer: ToolRenderer) -> CardTitle:
    """The title of a card: the tool's name, and the summary of its arguments as far as they
    arrived (once a key of them is whole)."""
    item = item.so_far()
    subject, detail = renderer.summary_parts(item) if item.arguments is not None else ("", "")
    return CardTitle(literal_text(item.name) or "tool", subject, detail,
                     renderer.subject_is_path)


class CardHeader(Widget):
    """The card's title line: tool name and summary (cut to fit), then the badges.

    One widget drawing the whole line; the badges take their styles from the component
    classes below, which the status classes of the card set in ``widgets.tcss``.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "card-header--auto", "card-header--badge", "card-header--elapsed",
        "card-header--place",
    }

    title: reactive[CardTitle] = reactive(CardTitle)
    badge = reactive("")
    #: Where the call runs, when it matters: ``here`` or ``server``.
    place = reactive("")
    elapsed = reactive("")
    #: How the call was approved (``approved``, ``auto-approved``, ``edited by you``).
    note = reactive("")
    #: Whether the call waits for approval: then where it runs is the badge kept longest.
    asking = reactive(False)

    def __init__(self) -> None:
        super().__init__(classes="card-header")

    def render(self) -> Content:
        width = self.content_region.width
        badges = self._badges()
        # On a narrow line what matters least goes first: the time, the title's detail (a
        # size before the path), then where it runs, the note, and the status last; but for a
        # call that waits for approval, where it would run is what the user must see (the
        # prompt says it waits). The title's detail shows only whole, where there is room.
        order = (("elapsed", "detail", "note", "badge", "place") if self.asking
                 else ("elapsed", "detail", "place", "note", "badge"))
        detail = bool(self.title.detail)
        for least_needed in order:
            wanted = (self.title.full.cell_length if detail else
                      min(self.title.short.cell_length, max(TITLE_ROOM, width // 2)))
            if width - sum(badge.cell_length for badge in badges.values()) >= wanted:
                break
            if least_needed == "detail":
                detail = False
            else:
                badges.pop(least_needed, None)
        right = Content.assemble(*badges.values())
        room = max(0, width - right.cell_length)
        return self.title.fit(room).truncate(room, pad=True) + right

    def _badges(self) -> dict[str, Content]:
        """The badges shown right of the title, in their order, by name."""
        style = self.get_visual_style
        shown = {
            "place": Content.assemble(" ", (self.place, style("card-header--place"))),
            "note": Content.assemble(" ", (f" {self.note} ", style("card-header--auto"))),
            "badge": Content.assemble(" ", (f" {self.badge} ", style("card-header--badge"))),
            "elapsed": Content.assemble(" ", (self.elapsed, style("card-header--elapsed"))),
        }
        present = {"place": self.place, "note": self.note, "badge": True,
                   "elapsed": self.elapsed}
        return {name: badge for name, badge in shown.items() if present[name]}
