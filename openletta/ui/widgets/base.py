"""The base class of the widgets that show transcript items, and the rule that an item
which cannot be shown never takes the chat down with it."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Protocol, runtime_checkable

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.visual import VisualType
from textual.widget import Widget

from openletta.transcript import Item
from openletta.ui.clipboard import copy_text, copy_to_clipboard
from openletta.ui.steady import refresh_content, repaint_inside, restyle_alone
from openletta.ui.textual_internals import size_without_relayout

log = logging.getLogger(__name__)

#: The methods through which an item widget shows its item; each is guarded (see
#: :class:`ItemWidget`), in every subclass, without the subclass doing anything.
GUARDED_METHODS = ("compose", "render", "sync", "on_resize")


def guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` of an :class:`ItemWidget`, with any exception turned into
    :meth:`ItemWidget.fail` (works for plain, async and generator methods)."""
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def guarded_coroutine(self: ItemWidget, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except Exception as error:
                self.fail(error)
                return None
        wrapper: Callable[..., Any] = guarded_coroutine
    elif inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def guarded_generator(self: ItemWidget, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from method(self, *args, **kwargs)
            except Exception as error:
                self.fail(error)
        wrapper = guarded_generator
    else:
        @functools.wraps(method)
        def guarded_call(self: ItemWidget, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except Exception as error:
                self.fail(error)
                return Content() if method.__name__ == "render" else None
        wrapper = guarded_call
    wrapper._guarded = True  # type: ignore[attr-defined]
    return wrapper


class ItemWidget(Widget):
    """Shows one transcript item; :meth:`sync` brings the display up to date with it.

    The chat view mutates nothing: the accumulator mutates ``item`` and the view calls
    :meth:`sync` (coalesced, at most ~30 times a second, and once more when the item is
    final). ``sync`` must be cheap and idempotent and must never block.

    An exception in any of :data:`GUARDED_METHODS` (or a method decorated with
    :func:`guarded`) does not reach Textual: the widget hides, logs the error and posts
    :class:`Failed`, and the chat view puts a "could not display this item" card in its
    place. The rest of the chat keeps working.

    A subclass sets ``item`` in its constructor. Find item widgets with ``isinstance``, not
    a CSS type query: :class:`AssistantMessage` takes its CSS type from ``Markdown``.
    """

    item: Item

    DEFAULT_CSS = "ItemWidget { height: auto; }"
    virtual_size = size_without_relayout()
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "expand", "Expand", id="item.expand"),
        Binding("enter", "collapse", "Collapse", id="item.collapse"),
        Binding("c", "copy", "Copy", id="item.copy"),
        Binding("home", "screen.oldest", "Oldest", show=False, id="item.oldest"),
        Binding("end", "screen.newest", "Newest", show=False, id="item.newest"),
    ]

    #: Set once the widget failed to show its item.
    failed: Exception | None = None

    class Failed(Message):
        """The widget could not show its item; ``error`` says why."""

        def __init__(self, widget: ItemWidget, error: Exception) -> None:
            super().__init__()
            self.widget = widget
            self.error = error

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in GUARDED_METHODS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_guarded", False):
                setattr(cls, name, guarded(method))

    def watch_has_focus(self, _has_focus: bool) -> None:
        """Style this widget alone as it gains or loses the focus (the rules for an item's
        focus match the item itself), and paint again what is inside it, on its new
        background. (Textual styles the item again with all inside it: a reply holding a
        60-item list took 0.3-0.5 s at each focus change.)"""
        restyle_alone(self)
        repaint_inside(self)

    def fail(self, error: Exception) -> None:
        """Give up showing the item: hide, log ``error`` and ask to be replaced."""
        if self.failed is not None:
            return
        self.failed = error
        log.error("Could not display the %s item %s", self.item.kind, self.item.key,
                  exc_info=error)
        self.display = False
        self.post_message(self.Failed(self, error))

    @property
    def busy(self) -> bool:
        """True while the widget holds something the user is working with (kept mounted)."""
        return False

    def on_mount(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Re-read ``self.item`` and update what is shown (only what changed)."""

    def can_fold(self) -> bool:
        """Whether part of the item can fold away (a long output, a thought, a paste): then
        :class:`Folds` too, and Enter expands or collapses it."""
        return False

    def toggle_fold(self) -> None:
        """Expand the folded item, or collapse it again (Enter, a click)."""
        if (folding := self._folding()) is not None:
            folding.expanded = not folding.expanded
            self.refresh_bindings()  # the key bar says what Enter does now

    def _folding(self) -> Folds | None:
        return self if self.can_fold() and isinstance(self, Folds) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``c`` only where there is something to copy (a footer or a divider has nothing,
        and there ``c`` is the message's); Enter expands what is folded, or collapses it."""
        if action in ("expand", "collapse"):
            folding = self._folding()
            return folding is not None and folding.expanded == (action == "collapse")
        return action != "copy" or copy_text(self.item) is not None

    def action_expand(self) -> None:
        """Show the folded part."""
        self.toggle_fold()

    def action_collapse(self) -> None:
        """Fold it again."""
        self.toggle_fold()

    def action_copy(self) -> None:
        """Copy what this item says (the reply, the tool output, …) to the clipboard."""
        found = copy_text(self.item)
        if found is None:
            self.notify("Nothing to copy here yet.", title="Copy", severity="warning")
        else:
            copy_to_clipboard(self, *found)


@runtime_checkable
class Folds(Protocol):
    """A widget that folds part of what it shows (a long output, a thought, a paste)."""

    expanded: bool


class TextItemWidget(ItemWidget):
    """An item drawn by the widget itself as one block of text, with no child widgets.

    Nothing to compose, style or lay out but the widget, and its text is ready before it
    mounts (mounting takes one layout): a long history mounts many of these. Subclasses say
    what the text depends on (:meth:`state`) and draw it (:meth:`draw`).
    """

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self._state: Hashable = None
        self._drawn: VisualType = ""
        self.sync()

    def state(self) -> Hashable:
        """What the text depends on; it is drawn again only when this changes."""
        raise NotImplementedError

    def draw(self) -> VisualType:
        """The text for the current state (server text made safe: never markup)."""
        raise NotImplementedError

    def sync(self) -> None:
        state = self.state()
        if state != self._state:
            self._state = state
            self._drawn = self.draw()
            refresh_content(self)

    def render(self) -> VisualType:
        return self._drawn

