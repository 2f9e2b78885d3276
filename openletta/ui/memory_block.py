"""One memory block in the memory panel: its label, gauge and value, and its editor.

Editing is deliberate: ``e`` opens the value (the cursor at its end, its size counted as it is
typed, in red past the block's limit), Ctrl+S asks the panel to save only that block (a value
over the limit, which the server does not refuse, only at a second Ctrl+S), Esc cancels (a
second Esc when something was typed). When the block changed on the server meanwhile, its
newer value is shown above the editor, which keeps what was typed: Ctrl+S then saves it over
the newer value, Esc discards it.
"""

from __future__ import annotations

import difflib
import re
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static, TextArea

from openletta.api.resources import Block
from openletta.display import DisplayText, pictured_text
from openletta.ui.prompt import NEWLINE_KEYS
from openletta.ui.renderers.base import ADDED, MUTED, REMOVED
from openletta.ui.steady import SteadyTextArea

GAUGE_CELLS = 8
#: What Enter ("what changed") says on a block that has no change to show.
NO_CHANGE = ("No change to show in {}: a block that a turn changes is marked ● changed, "
             "until the next turn ends.")
#: What a first Ctrl+S says of a value over the block's limit (a second one saves it).
OVER_LIMIT = ("Over the limit by {:,} characters: save anyway? Ctrl+S again saves it (every "
              "turn then carries it in the context window); Esc cancels the edit.")
_WORDS = re.compile(r"\s+|\S+")

def word_diff(old: str, new: str, *, removed: bool = True) -> Content:
    """``old`` → ``new`` word by word: removed words struck in red (or left out: ``new`` as
    it reads), added ones in green."""
    before, after = _WORDS.findall(old), _WORDS.findall(new)
    parts: list[tuple[str, str] | str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(pictured_text("".join(before[i1:i2])))
            continue
        if i2 > i1 and removed:
            parts.append((pictured_text("".join(before[i1:i2])), f"{REMOVED} strike"))
        if j2 > j1:
            parts.append((pictured_text("".join(after[j1:j2])), ADDED))
    return Content.assemble(*parts)


def shown_value(value: str) -> Content:
    """A block's value as its editor shows it: control characters as pictures (``␛``)."""
    return Content(pictured_text(value))


def usage_gauge(used: int, limit: int | None) -> str:
    """``▰▰▱▱▱▱▱▱ 1,234/5,000 chars`` (no bar when the block has no limit)."""
    if not limit:
        return f"{used:,} chars"
    filled = min(GAUGE_CELLS, round(GAUGE_CELLS * used / limit))
    return f"{'▰' * filled}{'▱' * (GAUGE_CELLS - filled)} {used:,}/{limit:,} chars"


def over_limit(used: int, limit: int | None) -> int:
    """How many characters ``used`` is over ``limit`` (``0`` when within it, or none)."""
    return max(0, used - limit) if limit else 0


class BlockView(Vertical, can_focus=True):
    """One memory block: label and gauge, description, value (or its editor)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_diff", "Show change", id="memory.diff"),
        Binding("e", "edit", "Edit block", id="memory.edit"),
        Binding("escape", "leave", "Back to the prompt", id="memory.leave"),
        Binding("down", "step(1)", "Next block", show=False),
        Binding("up", "step(-1)", "Previous block", show=False),
    ]

    class Left(Message):
        """The user leaves the panel for the prompt (it stays open)."""

    class EditClosed(Message):
        """The block's editor closed (saved or cancelled)."""

    class SaveRequested(Message):
        """The user saves ``value`` over the block as the view last read it."""

        def __init__(self, view: BlockView, value: str) -> None:
            super().__init__()
            self.view, self.value = view, value

    def __init__(self, block: Block, previous: str | None) -> None:
        changed = previous is not None and previous != block.value
        super().__init__(classes="memory-block -changed" if changed else "memory-block")
        self.block = block
        self.previous = previous if changed else None
        self._diff_shown = False
        self._value = Static(shown_value(block.value), classes="memory-value")
        self._title = Static(self._title_of(len(block.value)), classes="memory-title")
        self._editor: BlockEditor | None = None

    def _title_of(self, used: int) -> Content:
        block = self.block
        badge = "  ● changed" if self.previous is not None else ""
        gauge = (f"  {usage_gauge(used, block.limit)}", MUTED)
        if (over := over_limit(used, block.limit)) > 0:
            gauge = (f"  {usage_gauge(used, block.limit)} · {over:,} over the limit",
                     "bold $text-error")
        return Content.assemble((DisplayText(block.label), "bold"), gauge, (badge, "bold"))

    def compose(self) -> ComposeResult:
        block = self.block
        yield self._title
        if block.description:
            yield Static(Content.styled(DisplayText(block.description), MUTED),
                         classes="memory-description")
        yield self._value
        yield Static("", classes="memory-error")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that do something now (none of the block's while it is edited:
        Enter then starts a new line)."""
        if action == "toggle_diff":
            return self.previous is not None and self._editor is None
        if action == "edit":
            return self._editor is None and not self.block.read_only
        return True

    def action_toggle_diff(self) -> None:
        """Show the change since the previous read as a word diff, or the value again."""
        if self.previous is None or self._editor is not None:
            return
        self._diff_shown = not self._diff_shown
        self._value.update(word_diff(self.previous, self.block.value) if self._diff_shown
                           else shown_value(self.block.value))

    def say_if_unchanged(self) -> None:
        """Say that the block has no change to show, if so (Enter's "what changed" is not
        offered then, and would do nothing)."""
        if self.previous is None and self._editor is None:
            self.notify(NO_CHANGE.format(self.block.label), title="Memory")

    def action_leave(self) -> None:
        """Back to the prompt; the panel stays open (and refreshes after turns)."""
        self.post_message(self.Left())

    def action_step(self, step: int) -> None:
        """Focus the next (``1``) or previous (``-1``) block."""
        views = list(self.parent.query_children(BlockView)) if self.parent else []
        index = views.index(self) + step
        if 0 <= index < len(views):
            views[index].focus()

    @on(TextArea.Changed)
    def _typed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._title.update(self._title_of(len(event.text_area.text)))

    def action_edit(self) -> None:
        """Open the value for editing (Ctrl+S saves this block only, Esc cancels), or go
        back to the editor open."""
        if self._editor is not None:
            self._editor.focus()
            return
        if self.block.read_only:
            return
        self._editor = BlockEditor(self.block.value)
        self._editor.move_cursor(self._editor.document.end)
        self._value.display = False
        self.mount(self._editor, after=self._value)
        self._editor.focus()
        self.refresh_bindings()

    @property
    def editing(self) -> bool:
        """Whether the block's value is open in its editor."""
        return self._editor is not None

    def close_editor(self) -> None:
        """Back to the value (after a save, or a cancel)."""
        if self._editor is not None:
            self._editor.remove()
            self._editor = None
            self.post_message(self.EditClosed())
        self._title.update(self._title_of(len(self.block.value)))
        if self._value.has_class("-newer"):
            self._value.remove_class("-newer")
            self._value.border_title = None
            self._value.update(shown_value(self.block.value))
        self._value.display = True
        self.focus()
        self.refresh_bindings()

    def show_newer(self, newer: Block, note: str) -> None:
        """The block is ``newer`` on the server while it is edited: it is shown above the
        editor (what is new marked), what was typed stays, ``note`` under it. Ctrl+S now
        saves over ``newer`` (the value shown), Esc discards what was typed at once."""
        if self._editor is None or newer.value == self.block.value:
            return
        self._value.update(word_diff(self.block.value, newer.value, removed=False))
        self._value.add_class("-newer")
        self._value.border_title = "on the server now"
        self._value.display = True
        self._editor.border_title = "yours"
        self._editor.discard_at_once()
        self.block = newer
        self._title.update(self._title_of(len(self._editor.text)))
        self.show_error(note)

    def show_error(self, message: str) -> None:
        """Say why a save did not happen (or what a second Esc does), under the block;
        ``""`` hides it."""
        error = self.query_one(".memory-error", Static)
        error.update(Content.styled(DisplayText(message), "$text-error"))
        error.display = bool(message)
        if message:  # under a tall editor it may be out of the panel's view
            self.call_after_refresh(error.scroll_visible, animate=False)


class BlockEditor(SteadyTextArea):
    """The value of a block being edited (Enter, Shift+Enter or Ctrl+J start a new line)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save block", priority=True, id="memory.save"),
        Binding("escape", "cancel", "Cancel edit", priority=True, id="memory.cancel"),
    ]

    def __init__(self, value: str) -> None:
        super().__init__(value)
        self._original = value
        #: Whether Esc said once that it discards what was typed.
        self._warned = False
        #: The value a first Ctrl+S said is over the block's limit (a second one saves it).
        self._over_asked: str | None = None

    def discard_at_once(self) -> None:
        """Esc discards what was typed without a second Esc (a note said so already)."""
        self._warned = True

    async def _on_key(self, event: events.Key) -> None:
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)

    def action_save(self) -> None:
        """Ask the panel to save the value; one over the block's limit only when asked twice
        for the same value (the first time says by how much, and keeps it open)."""
        view = self.parent
        if not isinstance(view, BlockView):
            return
        value = self.raw_text
        over = over_limit(len(value), view.block.limit)
        if over and self._over_asked != value:
            self._over_asked = value
            view.show_error(OVER_LIMIT.format(over))
            return
        view.post_message(BlockView.SaveRequested(view, value))

    def action_cancel(self) -> None:
        """Close the editor; when something was typed, only at the second Esc."""
        view = self.parent
        if not isinstance(view, BlockView):
            return
        if self.raw_text != self._original and not self._warned:
            self._warned = True
            view.show_error("Not saved: Esc again discards what you typed; Ctrl+S saves it.")
            return
        view.show_error("")
        view.close_editor()
