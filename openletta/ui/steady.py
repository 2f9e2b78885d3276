"""Repaint a widget whose content changed without laying the screen out when its size holds;
text fields that do not repaint at all while nothing happens.

Textual lays out the whole screen (every mounted widget) when any widget asks for a layout,
and a widget whose content changes asks by default. Streaming changes the same few widgets
many times a second, and most changes (words added to a line) leave their height alone.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.content import Content
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input
from textual.widgets.text_area import Edit, EditResult, Location

from openletta.display import field_pictures
from openletta.ui.editor_text import RawEdit, RawLines, pasted_text, typed_text
from openletta.ui.textual_internals import KeptThemeTextArea, OrderedUndoTextArea


def same_content(content: Content, shown: Content) -> bool:
    """Whether ``content`` looks as ``shown`` does (Content's ``==`` compares text only)."""
    return content is shown or (content.plain == shown.plain and content.spans == shown.spans)


def restyle_alone(*widgets: Widget) -> None:
    """Apply the CSS again to ``widgets`` alone (those mounted), after a class changed with
    ``update=False``.

    Textual restyles a widget whose class changed with everything inside it, about a
    millisecond a widget. The caller names the widgets that the rules for the class match:
    the one whose class changed, and any inside it that a rule matches by that class.
    """
    if mounted := [widget for widget in widgets if widget.is_attached]:
        mounted[0].app.stylesheet.update_nodes(mounted)


def repaint_inside(widget: Widget) -> None:
    """Paint again all inside ``widget``, whose background changed (restyled alone): each
    widget in it worked out its colours on the old one, and keeps what it painted."""
    for inside in widget.walk_children(Widget):
        inside.notify_style_update()
        inside.refresh()


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


async def ran_own_binding(field: Widget, event: events.Key) -> bool:
    """Run ``field``'s own binding of ``event``'s key now, if the key runs one of its (it
    would, once the key went up through the field's parents); whether it did. One that
    skips (Ctrl+C's copy with nothing selected) leaves the key to the parents' bindings.

    Textual types a character when a field reads its key, but runs the field's bindings
    (Backspace, F7 that selects all, Ctrl+Z, the arrows) only once the key went up through
    its parents: in a burst of keys read together (a paste without bracketed paste, fast
    typing over a slow link) the keys behind one were read before it acted (F7 then
    Backspace deleted one character, then selected the rest). Run here, each acts in order.
    """
    active = field.screen.active_bindings.get(event.key)
    if active is None or active.node is not field or not active.enabled:
        return False
    if not await field.app.run_action(active.binding.action, field):
        return False
    event.stop()
    event.prevent_default()
    return True


class SteadyInput(Input):
    """A text field whose cursor does not blink: a blinking cursor repaints the screen twice
    a second, which would be all the CPU an idle screen uses (the prompt does the same).

    Its value never holds a character that could act on the terminal, nor one that reorders
    or hides text (a bidi override would draw what follows it reversed): each is shown as
    one visible character (:func:`~openletta.display.field_pictures`, as the prompt shows
    them) and is that character from then on (what it filters or searches by, a reason
    sent). It types what a
    key types (:func:`~openletta.ui.editor_text.typed_text`), not only printable characters,
    and its own keys act as they are read (:func:`ran_own_binding`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_blink = False

    def validate_value(self, value: str) -> str:
        return field_pictures(value)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return typed_text(character) is not None

    async def _on_key(self, event: events.Key) -> None:
        typed = typed_text(event.character)
        if typed is None and await ran_own_binding(self, event):
            return
        if typed is None or event.is_printable:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(typed)
        else:
            self.replace(typed, *selection)


class SteadyTextArea(OrderedUndoTextArea, KeptThemeTextArea):
    """A multi-line text field whose cursor does not blink (as :class:`SteadyInput`), that
    draws blank lines while it has no width (Textual's text area fails wrapping its
    placeholder at width 0: the chat's prompt when the memory panel takes the whole screen),
    that edits as the keys come (:func:`ran_own_binding`: F7 then Backspace read together
    clear it), and that shows no character acting on the terminal.

    Its document never holds a control character but newline and tab, nor a line break but
    newline, whatever way text comes in: the text it is made with and :meth:`load_text` (or
    ``text =``), and every :meth:`edit` (typing, a paste, ``insert``, ``replace``, undo and
    redo). Each is shown as one visible character, and so is each character that reorders or
    hides text (:func:`~openletta.display.field_pictures`: ``ESC`` as ``␛``, a bidi override
    as ``⍰``), so that cursor columns stay right. :attr:`raw_text` is the text as it came
    and was typed, those characters and all: what the field hands on (a message sent, a
    block saved, a command run); ``text`` is what it shows. A Control Picture the user typed
    or pasted (a ``␛`` copied from a tool call shown in the chat) stays that picture: the
    field keeps track of which characters it pictured
    (:class:`~openletta.ui.editor_text.RawLines`), so a text given to it and not edited is
    handed on unchanged. Text cut or copied from the field is
    the text shown, pictures and all.

    A key types what :func:`~openletta.ui.editor_text.typed_text` says (a no-break space or
    a zero-width joiner too); a paste's line breaks are newlines
    (:func:`~openletta.ui.editor_text.pasted_text`), and the paste stays in this field.
    Ctrl+U and Ctrl+K delete to the start and end of the text's line, not of the screen row
    a long line wraps to.
    """

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(field_pictures(text), **kwargs)
        self.cursor_blink = False
        self._raw = RawLines(text)
        #: How many edits the field has had (whether the user typed there since a moment).
        self.edits = 0

    @property
    def raw_text(self) -> str:
        """The text as it came and was typed (what ``text`` shows, its pictures undone)."""
        raw = self._raw.text
        if field_pictures(raw) != self.text:  # changed behind edit's back: keep what shows
            self._raw.reset(raw := self.text)
        return raw

    def load_text(self, text: str) -> None:
        self._raw.reset(text)
        super().load_text(field_pictures(text))

    def edit(self, edit: Edit) -> EditResult:
        self.edits += 1
        return super().edit(edit if isinstance(edit, RawEdit) else RawEdit(edit, self._raw))

    def paste(self, text: str) -> None:
        """Put pasted ``text`` in place of the selection, the cursor after it."""
        if not self.read_only:
            result = self.replace(pasted_text(text), *self.selection,
                                  maintain_selection_offset=False)
            self.move_cursor(result.end_location)

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()  # Textual's would take its carriage returns as they are
        self.paste(event.text)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return super().check_consume_key(key, character) or (
            not self.read_only and typed_text(character) is not None)

    async def _on_key(self, event: events.Key) -> None:
        if self.read_only:
            await super()._on_key(event)
            return
        typed = typed_text(event.character)
        if typed is None:
            if not await ran_own_binding(self, event):
                await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        self.replace(typed, *self.selection, maintain_selection_offset=False)

    def action_delete_to_start_of_line(self) -> None:
        """Delete from the cursor to the start of its line: the line of the text, up to the
        newline before it, not the row a long line wraps to (Ctrl+U that cleared half of a
        command left the rest to run with what was typed after it). At the start of a line,
        as Textual's: the selection, or the newline before it."""
        row, column = self.selection.end
        if column == 0:
            super().action_delete_to_start_of_line()
        else:
            self._delete_typed(self.selection.end, (row, 0))

    def action_delete_to_end_of_line(self) -> None:
        """Delete from the cursor to the end of its line of the text (not of its row)."""
        row, _column = self.selection.end
        self._delete_typed(self.selection.end, (row, len(self.document[row])))

    async def action_delete_to_end_of_line_or_delete_line(self) -> None:
        """Ctrl+K, as Textual's on the line of the text: delete to its end; on an empty line,
        the line; at the end of a line, the newline after it."""
        selection = self.selection
        row, column = selection.end
        length = len(self.document[row])
        if length == 0:
            await self.run_action("delete_line")
        elif selection.is_empty and column == length:
            await self.run_action("delete_right")
        else:
            self.action_delete_to_end_of_line()

    def _delete_typed(self, start: Location, end: Location) -> None:
        """Delete between ``start`` and ``end`` for a key (unless the field is read-only)."""
        if not self.read_only:
            self.delete(start, end, maintain_selection_offset=False)

    def render_line(self, y: int) -> Strip:
        if self.content_size.width <= 0:
            return Strip.blank(self.size.width)
        return super().render_line(y)
