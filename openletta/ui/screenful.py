"""How many of the newest items fill the chat view, estimated from their text.

A chat opens at its newest items, and building and laying out their widgets is most of what
stands between the history's arrival and its first frame: a long Markdown reply alone costs
tens of milliseconds. So the view opens with about a screenful of them
(:class:`~openletta.ui.chat_window.ChatWindow`; more come as the user scrolls up, and at once
if they do not fill the view), which the estimate here decides before any widget exists. It
errs on the side of more: a screenful is :data:`MARGIN` times the view's height (a view's worth
to scroll back through before more are mounted), and items whose height does not follow their
text count as small.
"""

from __future__ import annotations

from collections.abc import Sequence

from openletta.transcript import AssistantItem, Item, UserItem

#: How many view heights the estimated rows of the first items should add up to.
MARGIN = 2
#: Rows of an item whose height does not follow its text (a folded thought, a tool call
#: card, a footer, a notice): a low guess, so that too many items are mounted, not too few.
SMALL_ITEM_ROWS = 2
#: Rows around a message (its margins).
MESSAGE_MARGIN = 2
#: Views the newest items kept mounted fill while the chat follows its bottom (as many as a
#: chat opens with, so that a turn late in a session lays out about as much as the first),
#: and how many items are kept however tall they are (two turns).
KEPT_SCREENS = MARGIN
KEPT_AT_LEAST = 8


def estimated_rows(item: Item, width: int) -> int:
    """About how many rows ``item`` takes at ``width`` columns (0 for hidden items)."""
    if item.internal:
        return 0
    if not isinstance(item, UserItem | AssistantItem):
        return SMALL_ITEM_ROWS
    width = max(width, 1)
    return MESSAGE_MARGIN + sum(1 + len(line) // width for line in item.text.splitlines())


def screenful(items: Sequence[Item], width: int, height: int, *, screens: int = MARGIN) -> int:
    """How many of the newest ``items`` fill ``screens`` views of ``width`` × ``height`` (at
    least one, all of them if they do not)."""
    budget = screens * height
    rows = 0
    for count, item in enumerate(reversed(items), 1):
        rows += estimated_rows(item, width)
        if rows >= budget:
            return count
    return len(items)


def kept_while_following(items: Sequence[Item], width: int, height: int) -> int:
    """How many of the newest ``items`` stay mounted while the chat follows its bottom: those
    that fill :data:`KEPT_SCREENS` views, :data:`KEPT_AT_LEAST` at least.

    Every layout of the screen walks every mounted widget, and a streamed reply lays the
    screen out at each block: a long reply cost 60 % more with twelve long replies mounted
    above it than with two (40 items were kept, however tall), and 20 % more after 30 short
    turns when four views of them were kept than at the start of the session."""
    return max(KEPT_AT_LEAST, screenful(items, width, height, screens=KEPT_SCREENS))
