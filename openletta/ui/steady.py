"""Repaint a widget whose content changed without laying the screen out when its size holds;
text fields that do not repaint at all while nothing happens.

Textual lays out the whole screen (every mounted widget) when any widget asks for a layout,
and a widget whose content changes asks by default. Streaming changes the same few widgets
many times a second, and most changes (words added to a line) leave their height alone.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input

from openletta.ui.textual_internals import OrderedUndoTextArea


def refresh_content(widget: Widget) -> None:
    """Repaint ``widget`` after its content changed; ask for a layout only if it needs one."""
    widget.refresh()  # also forgets the content's cached size
    if layout_needed(widget):
        widget.refresh(layout=True)


def layout_needed(widget: Widget) -> bool:
    """Whether ``widget``'s new content may change its size (call after a refresh): it is
    mounted (mounting lays a widget out, with the content it has then) and has not been laid
    out, is sized by its content's width or holds other widgets, or its content's height at
    its width is not the height it has."""
    if not widget.is_mounted:
        return False
    width, height = widget.content_size
    if not width or widget.is_container:
        return True
    if widget.styles.width is not None and widget.styles.width.is_auto:
        return True
    return widget.get_content_height(widget.container_size, widget.app.size, width) != height


class SteadyInput(Input):
    """A text field whose cursor does not blink: a blinking cursor repaints the screen twice
    a second, which would be all the CPU an idle screen uses (the prompt does the same)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_blink = False


#: Keys that delete, and their actions.
_DELETING_KEYS = {"backspace": "delete_left", "delete": "delete_right"}


class SteadyTextArea(OrderedUndoTextArea):
    """A multi-line text field whose cursor does not blink (as :class:`SteadyInput`), that
    draws blank lines while it has no width (Textual's text area fails wrapping its
    placeholder at width 0: the chat's prompt when the memory panel takes the whole screen),
    and that deletes as the keys come.

    Textual deletes on Backspace and Delete by key bindings, which the app runs once the key
    went up through the widget's parents: in a burst of keys read together (a paste without
    bracketed paste, fast typing over a slow link) the characters behind a Backspace were
    typed before it deleted. Here they are deleted when the key is read, in order.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_blink = False

    async def _on_key(self, event: events.Key) -> None:
        action = _DELETING_KEYS.get(event.key)
        if action is None or self.read_only:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        await self.run_action(action)

    def render_line(self, y: int) -> Strip:
        if self.content_size.width <= 0:
            return Strip.blank(self.size.width)
        return super().render_line(y)
