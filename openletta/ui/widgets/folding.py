"""Long text that folds to its first lines until the user opens it (a paste, a summary)."""

from __future__ import annotations

from textual.content import Content

from openletta.ui.renderers.base import MUTED

#: Text of more lines, or more characters, than this folds (a long single line is a paste).
FOLD_AFTER_LINES = 12
FOLD_AFTER_CHARACTERS = 1_500
#: The lines folded text shows, and at most this many of its characters.
FOLDED_LINES = 8
FOLDED_CHARACTERS = 800


def folds(lines: list[str]) -> bool:
    """Whether text of these lines folds."""
    return len(lines) > FOLD_AFTER_LINES or sum(map(len, lines)) > FOLD_AFTER_CHARACTERS


def folded(lines: list[str], *, expanded: bool) -> Content:
    """``lines`` as shown: whole when short or ``expanded`` (then saying how to fold them),
    else the first :data:`FOLDED_LINES` (at most :data:`FOLDED_CHARACTERS` of them) and how
    much more there is."""
    if not folds(lines):
        return Content("\n".join(lines))
    if expanded:
        return Content.assemble("\n".join(lines), ("\nEnter folds it", MUTED))
    shown = "\n".join(lines[:FOLDED_LINES])
    if len(shown) > FOLDED_CHARACTERS:
        shown = shown[:FOLDED_CHARACTERS] + "…"
    hidden = len(lines) - FOLDED_LINES
    more = (f"{hidden:,} more lines" if hidden > 0
            else f"{sum(map(len, lines)) + len(lines) - 1 - FOLDED_CHARACTERS:,} more characters")
    return Content.assemble(shown, (f"\n… {more} — Enter to expand", MUTED))
