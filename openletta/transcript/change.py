"""What one operation did to a transcript: the items added, changed, prepended or removed."""

from __future__ import annotations

from dataclasses import dataclass, field

from openletta.transcript.items import Item


@dataclass
class Change:
    """What one operation did to the transcript, in display order."""

    added: list[Item] = field(default_factory=list)
    changed: list[Item] = field(default_factory=list)
    #: Items inserted at the top (an older history page), in display order.
    prepended: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)

    _reported: set[int] = field(default_factory=set, repr=False)

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.prepended or self.removed)

    def add(self, item: Item) -> None:
        """Record ``item`` as new."""
        self.added.append(item)
        self._reported.add(id(item))

    def touch(self, item: Item) -> None:
        """Record ``item`` as changed unless it is already reported."""
        if id(item) not in self._reported:
            self._reported.add(id(item))
            self.changed.append(item)

