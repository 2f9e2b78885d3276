"""Long text that folds to its first lines until the user opens it (a paste, a summary)."""

from __future__ import annotations

from textual.content import Content

from openletta.ui.renderers.base import MUTED

#: Text of more lines than this folds.
FOLD_AFTER_LINES = 12
#: The lines folded text shows.
FOLDED_LINES = 8


def folds(lines: list[str]) -> bool:
    """Whether text of these lines folds."""
    return len(lines) > FOLD_AFTER_LINES


def folded(lines: list[str], *, expanded: bool) -> Content:
    """``lines`` as shown: whole when short or ``expanded`` (then saying how to fold them),
    else the first :data:`FOLDED_LINES` and how many more there are."""
    if not folds(lines):
        return Content("\n".join(lines))
    if expanded:
        return Content.assemble("\n".join(lines), ("\nEnter folds it", MUTED))
    hidden = len(lines) - FOLDED_LINES
    return Content.assemble("\n".join(lines[:FOLDED_LINES]),
                            (f"\n… {hidden:,} more lines — Enter to expand", MUTED))
