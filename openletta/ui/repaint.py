"""Which parts of the screen a layout changed (for :class:`~openletta.ui.textual_internals.
FrugalCompositor`, which repaints only those)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import TypeVar

from textual.geometry import Region
from textual.map_geometry import MapGeometry

#: A widget, to the functions here only a key of a compositor's map.
W = TypeVar("W")


def moved_regions(old_map: Mapping[W, MapGeometry], new_map: Mapping[W, MapGeometry]
                  ) -> set[Region]:
    """The screen regions a layout changed: where a widget appeared, went, or moved (both
    places). Textual marks every widget whose geometry changed in any way, and so repaints
    every widget in the view when one far above it is hidden or removed: each widget after
    it in the DOM paints in a new place in the order (``MapGeometry.order`` counts widgets)
    and at a new offset in its container, though not one cell on screen changed. Here an
    order that changed counts only when two widgets now paint in another order than before.
    """
    regions: set[Region] = set()
    reordered: list[W] = []
    for widget, geometry in new_map.items():
        old = old_map.get(widget)
        if old is None or old.region != geometry.region or old.clip != geometry.clip:
            regions.add(geometry.visible_region)
            if old is not None:
                regions.add(old.visible_region)
        elif old.order != geometry.order:
            reordered.append(widget)
    regions.update(old.visible_region for widget, old in old_map.items()
                   if widget not in new_map)
    if reordered and not _same_painting_order(old_map, new_map):
        regions.update(new_map[widget].visible_region for widget in reordered)
    return {region for region in regions if region}  # on screen: not empty


def _same_painting_order(old_map: Mapping[W, MapGeometry],
                         new_map: Mapping[W, MapGeometry]) -> bool:
    """Whether the widgets on both maps paint in the same order relative to each other."""
    common = sorted((widget for widget in new_map if widget in old_map),
                    key=lambda widget: old_map[widget].order)
    orders = [new_map[widget].order for widget in common]
    return all(earlier < later for earlier, later in pairwise(orders))
