"""A widget made and mounted the first time it is shown, not with its screen.

The chat screen's memory panel and find bar stay hidden until the user asks for them, and most
runs never do: made with the screen, they were imported, composed, styled and laid out at
every launch, before the chat could show. :class:`MountedWhenShown` makes its widget the first
time :meth:`~MountedWhenShown.shown` is awaited, mounts it where it belongs among its parent's
children, and hands out the same widget from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from textual.widget import AwaitMount, Widget

W = TypeVar("W", bound=Widget)


class MountedWhenShown(Generic[W]):
    """The widget ``make`` makes, mounted in ``parent`` before ``before`` once first shown."""

    def __init__(self, parent: Widget, make: Callable[[], W], *, before: Widget) -> None:
        self._parent, self._make, self._before = parent, make, before
        self._widget: W | None = None
        self._mounting: AwaitMount | None = None

    @property
    def widget(self) -> W | None:
        """The widget, once it has been shown (``None``: never asked for yet)."""
        return self._widget

    async def shown(self) -> W:
        """The widget, made and mounted the first time (asked again while it mounts: the same
        widget, once mounted), for the caller to show."""
        if self._widget is None:
            self._widget = self._make()
            self._mounting = self._parent.mount(self._widget, before=self._before)
        assert self._mounting is not None
        await self._mounting
        return self._widget
