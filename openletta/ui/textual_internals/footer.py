"""Textual's private API for the key bar: the footer's key widgets, set up and enabled in place."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# --- footer (openletta.ui.key_bar) ------------------------------------------------------------


def footer_keys(footer: Footer) -> list[FooterKey]:
    """The key widgets a footer shows (Textual does not export ``FooterKey``)."""
    return list(footer.query(FooterKey))


def preset_footer_key(widget: Widget, compact: bool) -> None:
    """Give ``widget``, if it is a footer's key for a binding, about to mount, its footer's
    ``compact``.

    A key's ``compact`` starts as ``True`` and its watcher (run as the key mounts) adds the
    ``-compact`` class; then the footer's value, bound to it, takes the class away again:
    two restyles of every key each time a footer is built, for nothing. (The command palette
    key is not bound to the footer's value: it stays compact.)
    """
    if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
        widget.set_reactive(FooterKey.compact, compact)


def set_footer_key_enabled(key: FooterKey, enabled: bool) -> None:
    """Enable or disable one footer key in place.

    Textual only sets a key's state when it builds the footer's keys (``_disabled`` decides
    what a click does; the ``-disabled`` class how it looks: ``text-style: dim``), and builds
    them all again on every change of a screen's bindings. A class changed in place styles
    the key again through the whole stylesheet, the key and each of its component classes
    (~1.5 ms of CPU, twice a turn for Esc); the class is changed without that, and the look
    it gives is set on the key itself.
    """
    if key._disabled == (not enabled) and key.has_class("-disabled") == (not enabled):
        return
    key._disabled = not enabled
    key.set_class(not enabled, "-disabled", update=False)  # what a restyle will find
    key.styles.text_style = "none" if enabled else "dim"
