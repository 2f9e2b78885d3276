"""Our pick lists stop at their ends: ↓ on the last row (↑ on the first) stays put, where
Textual's lists wrap around (and Enter then picks the row at the other end)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from openletta.ui.widgets.pick_list import PickList, PickSelectionList


class Lists(App[None]):
    def __init__(self, listing: OptionList) -> None:
        super().__init__()
        self.listing = listing

    def compose(self) -> ComposeResult:
        yield self.listing


def listing(kind: str) -> OptionList:
    """Three rows of ``kind``, the last one disabled (never highlighted)."""
    if kind == "options":
        return PickList(Option("first"), Option("second"), Option("off", disabled=True))
    return PickSelectionList[str](("first", "a"), ("second", "b"),
                                  ("off", "c")).disable_option_at_index(2)


@pytest.mark.parametrize("kind", ["options", "selections"])
async def test_the_arrows_stop_at_the_first_and_the_last_row_that_can_be_picked(
        kind: str) -> None:
    app = Lists(listing(kind))
    async with app.run_test() as pilot:
        rows = app.listing
        rows.focus()
        rows.highlighted = 0
        await pilot.press("up")
        assert rows.highlighted == 0
        await pilot.press("down", "down", "down")
        assert rows.highlighted == 1  # the disabled row after it counts for none
        await pilot.press("up", "up")
        assert rows.highlighted == 0
        rows.highlighted = None
        await pilot.press("down")  # nothing highlighted: ↓ goes to the first row
        assert rows.highlighted == 0


async def test_a_box_not_checked_is_empty_not_an_x_of_another_colour() -> None:
    """Checked and unchecked rows differ by their glyph, not by colour alone."""
    rows = PickSelectionList[str](("checked", "a", True), ("unchecked", "b", False))
    app = Lists(rows)
    async with app.run_test() as pilot:
        await pilot.pause()
        checked, unchecked = (rows.render_line(y).text for y in (0, 1))
        assert checked.startswith("▐X▌ checked")
        assert unchecked.startswith("▐ ▌ unchecked")
