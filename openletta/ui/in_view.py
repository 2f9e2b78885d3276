"""Scrolling the chat so that part of an item shows, with as much of the item as fits.

The part is what the user must see (an approval's choices, or the field it opened); the item
is what it belongs to (the call's card). Shown, in order of preference: the item whole, the
item from its top through the part, the part whole ending on the view's last row (what comes
before it above), the part from its top. Each by the least scroll, so that nothing moves when
it already shows.
"""

from __future__ import annotations

from textual.widget import Widget

#: Rows of content, from the first to the one after the last.
Rows = tuple[int, int]


def scroll_target(top: int, height: int, item: Rows, part: Rows) -> int:
    """The first row to show in a view of ``height`` rows whose first row is ``top`` (the
    module says what it shows of ``item`` and its ``part``)."""
    for first, end in (item, (item[0], part[1]), part):
        if end - first <= height:
            return min(max(top, end - height), first)
    return part[0]


def bring_into_view(item: Widget, part: Widget, *, row: int | None = None) -> None:
    """Scroll the view ``item`` is in (its parent) to show ``part``, a widget inside it, as
    :func:`scroll_target` says, and its ``row`` (the cursor's, in a part taller than the
    view); nothing before both are laid out."""
    view = item.parent
    if not isinstance(view, Widget) or not item.region or not part.region:
        return
    first = item.virtual_region.y
    part_first = first + part.region.y - item.region.y
    rows = (first, first + item.region.height), (part_first, part_first + part.region.height)
    height = view.scrollable_content_region.height
    target = scroll_target(round(view.scroll_y), height, *rows)
    if row is not None:
        target = min(max(target, part_first + row + 1 - height), part_first + row)
    if target != round(view.scroll_y):
        view.scroll_to(y=target, animate=False, immediate=True)


def fits_through(item: Widget, part: Widget, *, less: int = 0) -> bool:
    """Whether ``item`` from its top through ``part`` fits the view it is in (its parent),
    with ``less`` rows fewer (a line shown only while it does not)."""
    view = item.parent
    rows = part.region.bottom - item.region.y - less
    return not isinstance(view, Widget) or rows <= view.scrollable_content_region.height
