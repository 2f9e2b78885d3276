"""Which slice of the chat's items is mounted: the window arithmetic of the chat view.

The chat view keeps widgets for about ``MAX_MOUNTED`` consecutive items, a window over the
transcript that moves with the user. :class:`ChatWindow` holds the items and that window,
``items[hidden_above:mounted_end]``, with no Textual in sight: each event (items appended,
prepended or removed, the user at the top or the bottom, a jump to an item) changes the window
and answers with a :class:`Move`, the items whose widgets the view must mount and unmount.

The rules: while the view follows the bottom, the oldest mounted items go once more than
``kept + slack`` would be mounted, down to ``kept``: the newest items that fill a few screens
(the view estimates how many, ``MAX_MOUNTED`` at most), ``slack`` being ``PRUNE_SLACK`` or
``kept``, the smaller (not one in view or busy, nor any newer); new items go straight
below while some already wait there. A batch mounted above (below) unmounts the newest (oldest)
down to ``MAX_MOUNTED`` once over the same limit; an item that must stay (the view says which:
one in view, one busy) stays, with all above (below) it.
An empty window opens with the newest screenful of its items (estimated, at most
``OPENING_BATCH``). An item jumped to is mounted with a screenful below it, so that it can be
scrolled to the top; far away, in a new window with ``WINDOW_LEAD`` items above it. With
nothing hidden above, reaching the top asks the server for an older page (once, until it
arrives or fails); :meth:`ChatWindow.earlier_label` says which of these the "earlier" row
shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from openletta.display import counted

#: Items kept mounted while following the bottom, and how far beyond that before pruning.
MAX_MOUNTED = 40
PRUNE_SLACK = 10
#: Items mounted again per click on the "earlier" row, or per scroll past either end.
EARLIER_BATCH = 6
#: Items mounted when a page opens into an empty view, or on a jump to the bottom (more follow
#: if they do not fill the view).
OPENING_BATCH = 20
#: Items kept above an item the view jumps to when it mounts a new window around it.
WINDOW_LEAD = 10
#: What the "earlier" row says once the server has nothing older.
BEGINNING = "beginning of the conversation"

T = TypeVar("T")

#: How to mount an item (and a screenful below it): ``("above", n)`` / ``("below", n)``: ``n``
#: more items next to the window; ``("window", index)``: a new window around ``items[index]``.
Reach = tuple[Literal["above", "below", "window"], int]


def _never(_item: object) -> bool:
    return False


@dataclass(frozen=True)
class Move(Generic[T]):
    """What a change of the window asks of the view, each list in display order."""

    mount: list[T] = field(default_factory=list)
    unmount: list[T] = field(default_factory=list)
    #: Appended into an empty window, which shows only the newest: fill the view from above.
    opening: bool = False


class ChatWindow(Generic[T]):
    """The items of a chat and the range of them that is mounted.

    Items are found with ``==`` (identity for transcript items); the window is
    ``items[hidden_above:mounted_end]``, and the view has a widget for each item in it.
    """

    def __init__(self, *, limit: int = MAX_MOUNTED, slack: int = PRUNE_SLACK,
                 batch: int = EARLIER_BATCH, opening: int = OPENING_BATCH,
                 lead: int = WINDOW_LEAD,
                 screenful: Callable[[Sequence[T]], int] = len,
                 kept: Callable[[Sequence[T]], int] | None = None) -> None:
        """``screenful``: how many of the newest of some items fill the view (estimated);
        ``kept``: how many of the newest mounted items stay mounted while the view follows
        the bottom (``limit`` at most; by default ``limit``)."""
        self.limit, self.slack, self.batch = limit, slack, batch
        self.opening, self.lead = opening, lead
        self.screenful = screenful
        self.kept = kept
        self.items: list[T] = []
        self._start = 0
        self._end = 0
        #: An older page was asked for and has not arrived yet.
        self.loading_earlier = False
        #: The last older page asked for could not be loaded.
        self.earlier_failed = False

    # --- queries ----------------------------------------------------------------------------

    @property
    def hidden_above(self) -> int:
        """Items above the window (also the index of the first mounted item)."""
        return self._start

    @property
    def mounted_end(self) -> int:
        """Index after the newest mounted item."""
        return self._end

    @property
    def hidden_below(self) -> int:
        """Items below the window."""
        return len(self.items) - self._end

    @property
    def mounted(self) -> list[T]:
        """The mounted items, in display order."""
        return self.items[self._start:self._end]

    @property
    def mounted_count(self) -> int:
        return self._end - self._start

    @property
    def first_mounted(self) -> T | None:
        return self.items[self._start] if self._start < self._end else None

    @property
    def last_mounted(self) -> T | None:
        return self.items[self._end - 1] if self._start < self._end else None

    @property
    def can_fill_above(self) -> bool:
        """Whether a batch can go above without the window growing beyond the limit."""
        return bool(self._start) and self.mounted_count + self.batch <= self.limit + self.slack

    @property
    def filling_above(self) -> int:
        """How many of the items above the window fill the view (estimated)."""
        return self.screenful(self.items[:self._start])

    @property
    def filling_below(self) -> int:
        """How many of the items below the window fill the view (estimated)."""
        return self._screenful_from(self._end) - self._end

    def reach(self, item: T) -> Reach | None:
        """How to mount ``item`` and a screenful below it: ``None`` if they are mounted (or all
        that follow it) or ``item`` is unknown, else with the items between it and the window
        if they are few, or in a window of its own."""
        if item not in self.items:
            return None
        index = self.items.index(item)
        if self._start - self.limit <= index < self._start:
            return "above", self._start - index
        end = self._screenful_from(index)
        if self._start <= index and end <= self._end:
            return None
        if self._start <= index < self._end + self.limit:
            return "below", end - self._end
        return "window", index

    def _screenful_from(self, index: int) -> int:
        """The index after the items from ``index`` on that fill the view (estimated)."""
        return index + self.screenful(self.items[index:][::-1])

    # --- changes to the items ---------------------------------------------------------------

    def append(self, items: Sequence[T], *, following: bool,
               stays: Callable[[T], bool] = _never) -> Move[T]:
        """New items at the end: they wait below while others do; into an empty window only
        the newest ``screenful`` go, ``opening`` at most; while ``following`` the bottom, the
        oldest mounted go (and then the oldest new ones) once more than ``kept`` and its slack
        would be mounted (:meth:`_kept`), down to ``kept``: none that ``stays``, nor any
        newer."""
        waiting = self._end < len(self.items)
        self.items.extend(items)
        if waiting:
            return Move()
        new = list(items)
        kept = self._kept(self.mounted + new)
        excess = self.mounted_count + len(new) - kept
        first = (min(len(new), self.opening, max(1, self.screenful(new)))
                 if not self.mounted_count else len(new))
        opening = first < len(new)
        pruned: list[T] = []
        skipped = 0
        if opening:
            skipped = len(new) - first
        elif following and excess > min(self.slack, kept):
            pruned = self.mounted[:excess]
            pruned = pruned[:next((index for index, item in enumerate(pruned) if stays(item)),
                                  len(pruned))]
            if len(pruned) == self.mounted_count:  # the oldest new ones go straight above
                skipped = excess - len(pruned)
        self._start += len(pruned) + skipped
        self._end = len(self.items)
        return Move(mount=new[skipped:], unmount=pruned, opening=opening)

    def _kept(self, items: Sequence[T]) -> int:
        """How many of ``items`` (the newest mounted, and new ones) stay mounted while the
        view follows the bottom."""
        return self.limit if self.kept is None else max(1, min(self.limit, self.kept(items)))

    def prepend(self, items: Sequence[T]) -> bool:
        """An older page goes above; True if the window was at the top (so it should show the
        page's newest items now)."""
        at_top = not self._start
        self.items[0:0] = items
        self._start += len(items)
        self._end += len(items)
        self.loading_earlier = False
        return at_top

    def remove(self, item: T) -> None:
        """Drop ``item``, wherever it is (the view drops its widget if it has one)."""
        index = self.items.index(item)
        del self.items[index]
        if index < self._start:
            self._start -= 1
        if index < self._end:
            self._end -= 1

    def unmount_all(self) -> None:
        """Everything goes above (the view was cleared)."""
        self._start = self._end = len(self.items)

    # --- moves of the window ----------------------------------------------------------------

    def show_above(self, count: int | None = None, *,
                   stays: Callable[[T], bool] = _never) -> Move[T]:
        """Mount up to ``count`` (default ``batch``) items above, and unmount the newest beyond
        ``limit`` once over ``limit + slack`` (not these); an item that ``stays`` stays, with all
        above it."""
        count = min(self.batch if count is None else count, self._start)
        mount = self.items[self._start - count:self._start]
        self._start -= count
        excess = self.mounted_count - self.limit
        if excess <= self.slack:
            return Move(mount)
        doomed = self.items[max(self._end - excess, self._start + count):self._end]
        for index in range(len(doomed) - 1, -1, -1):
            if stays(doomed[index]):
                doomed = doomed[index + 1:]
                break
        self._end -= len(doomed)
        return Move(mount, doomed)

    def show_below(self, count: int | None = None, *,
                   stays: Callable[[T], bool] = _never) -> Move[T]:
        """Mount up to ``count`` (default ``batch``) items below, and unmount the oldest beyond
        ``limit`` once over ``limit + slack`` (not these); an item that ``stays`` stays, with all
        below it."""
        count = min(self.batch if count is None else count, self.hidden_below)
        mount = self.items[self._end:self._end + count]
        self._end += count
        excess = self.mounted_count - self.limit
        if excess <= self.slack:
            return Move(mount)
        pruned = self.items[self._start:min(self._start + excess, self._end - count)]
        pruned = pruned[:next((index for index, item in enumerate(pruned) if stays(item)),
                              len(pruned))]
        self._start += len(pruned)
        return Move(mount, pruned)

    def remount(self, start: int, count: int | None = None) -> Move[T]:
        """Unmount everything and mount ``count`` (default ``limit``) items from ``start`` on,
        moved back so that the window is full if the items allow."""
        count = self.limit if count is None else count
        start = max(0, min(start, len(self.items) - count))
        end = min(len(self.items), start + count)
        unmount = self.mounted
        self._start, self._end = start, end
        return Move(self.items[start:end], unmount)

    def around(self, index: int) -> Move[T]:
        """A new window with ``lead`` items above ``items[index]`` and a screenful from it on
        (``limit`` items at least)."""
        start = index - self.lead
        return self.remount(start, max(self.limit, self._screenful_from(index) - start))

    def bottom(self) -> Move[T]:
        """Jump to the newest items: a new window of the last ``opening`` of them."""
        return self.remount(len(self.items) - self.opening, self.opening)

    # --- older pages ------------------------------------------------------------------------

    def ask_older_page(self, *, more_on_server: bool | None) -> bool:
        """The user reached the top: True if an older page should be asked for now (nothing
        known is hidden above, the server has more, and none is on its way already)."""
        if self._start or not more_on_server or self.loading_earlier:
            return False
        self.loading_earlier, self.earlier_failed = True, False
        return True

    def older_page_failed(self) -> None:
        """The older page asked for did not come."""
        self.loading_earlier, self.earlier_failed = False, True

    def earlier_label(self, *, more_on_server: bool | None) -> tuple[str, str]:
        """What the "earlier" row says about what is above, and its class (or ``""``)."""
        if self._start:
            return f"↑ {counted(self._start, 'earlier item')} (PageUp or a click shows them)", ""
        if self.loading_earlier:
            return "loading earlier messages…", ""
        if self.earlier_failed:
            return ("↑ could not load earlier messages: click or PageUp to try again",
                    "-failed")
        if more_on_server:
            return "↑ load earlier messages (click)", ""
        return BEGINNING, "-beginning" if more_on_server is False else ""
