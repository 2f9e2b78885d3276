"""Every use of Textual's private API, in one package, each with its reason.

Checked with the Textual version pinned in ``pyproject.toml``: a Textual upgrade starts by
reading this package. ``tests/ui/test_textual_internals.py`` fails if another module under
``openletta/`` imports a private Textual module or reaches for a private Textual attribute.

Not here, because they are public or documented, though they look private or low-level:

* ``Widget.arrange`` (overridden by :class:`~openletta.ui.chat_scroll.ChatScroll` to keep a
  widget in place, and by :class:`~openletta.ui.kept_at_bottom.KeptAtBottom` to give the
  anchor the view's new height) and ``DOMNode.set_reactive`` (which moves its scroll without
  watchers) are public methods; ``arrange`` is documented as "best left alone" unless you
  know what it does.
* ``TextArea._on_key``, which :class:`~openletta.ui.prompt.Prompt` overrides to act on keys
  before the text area inserts them: Textual's TextArea guide ("Extending TextArea") says to
  override ``_on_key`` for exactly that.
"""

from openletta.ui.textual_internals.anchor import anchor_holds, note_view_height
from openletta.ui.textual_internals.callbacks import parameters_counted_once
from openletta.ui.textual_internals.crash import KeepsBeforeCrash
from openletta.ui.textual_internals.css_cache import parsed_css_kept
from openletta.ui.textual_internals.footer import (
    FooterKey,
    footer_keys,
    preset_footer_key,
    set_footer_key_enabled,
)
from openletta.ui.textual_internals.handlers import handlers_found_once
from openletta.ui.textual_internals.layout import (
    FrugalCompositor,
    FrugalScreen,
    FrugalScroll,
    remove_hidden,
    size_without_relayout,
)
from openletta.ui.textual_internals.markdown import (
    CellTable,
    MarkdownBlockQuote,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
    UpdatedInPlace,
    copy_block_context,
    fence_highlighted_code,
    markdown_block_content,
    markdown_block_document,
    markdown_block_token,
    markdown_child_blocks,
    set_markdown_block_content,
    update_block,
)
from openletta.ui.textual_internals.styles import KeptComponentStyles
from openletta.ui.textual_internals.terminal import (
    INPUT_GRACE,
    QuietLinuxDriver,
    give_first_focus,
    start_with_theme,
    withdraw_notification,
    write_to_terminal,
)
from openletta.ui.textual_internals.text_area import KeptThemeTextArea, OrderedUndoTextArea

__all__ = [
    "INPUT_GRACE",
    "CellTable",
    "FooterKey",
    "FrugalCompositor",
    "FrugalScreen",
    "FrugalScroll",
    "KeepsBeforeCrash",
    "KeptComponentStyles",
    "KeptThemeTextArea",
    "MarkdownBlockQuote",
    "MarkdownBullet",
    "MarkdownBulletList",
    "MarkdownListItem",
    "MarkdownOrderedList",
    "MarkdownParagraph",
    "OrderedUndoTextArea",
    "QuietLinuxDriver",
    "UpdatedInPlace",
    "anchor_holds",
    "copy_block_context",
    "fence_highlighted_code",
    "footer_keys",
    "give_first_focus",
    "handlers_found_once",
    "markdown_block_content",
    "markdown_block_document",
    "markdown_block_token",
    "markdown_child_blocks",
    "note_view_height",
    "parameters_counted_once",
    "parsed_css_kept",
    "preset_footer_key",
    "remove_hidden",
    "set_footer_key_enabled",
    "set_markdown_block_content",
    "size_without_relayout",
    "start_with_theme",
    "update_block",
    "withdraw_notification",
    "write_to_terminal",
]
