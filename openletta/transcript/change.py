"""What one operation did to a transcript: the items added, changed, prepended or removed."""

from __future__ import annotations

from openletta.transcript.items import Item


class Change:
    """What one operation did to the transcript, in display order.

    A stream makes one per chunk: plain slots, no dataclass defaults (half the cost).
    """

    __slots__ = ("_reported", "added", "changed", "prepended", "removed")

    def __init__(self) -> None:
        self.added: list[Item] = []
        self.changed: list[Item] = []
        #: Items inserted at the top (an older history page), in display order.
        self.prepended: list[Item] = []
        self.removed: list[Item] = []
        #: Items are hashed by identity (``eq=False``): no ``id()`` call per chunk.
        self._reported: set[Item] = set()

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.prepended or self.removed)

    def add(self, item: Item) -> None:
        """Record ``item`` as new."""
        self.added.append(item)
        self._reported.add(item)

    def touch(self, item: Item) -> None:
        """Record ``item`` as changed unless it is already reported."""
        if item not in self._reported:
            self._reported.add(item)
            self.changed.append(item)

