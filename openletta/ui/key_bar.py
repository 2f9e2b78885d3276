"""KeyBar: Textual's key footer, rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from openletta.ui.textual_internals import (
    footer_keys,
    preset_footer_key,
    set_footer_key_enabled,
)

#: Per key shown: key, action, label and tooltip.
KeyLabels = tuple[tuple[str, str, str, str], ...]


class KeyBar(Footer):
    """The footer of key bindings.

    Textual's footer builds all its key widgets again whenever a screen's bindings may have
    changed: on every focus change, and on each turn's start and end (Esc enables). That
    costs a few milliseconds of CPU each time, for a footer that almost never changes: this
    one rebuilds only when the keys shown change, and enables or disables keys in place.
    """

    _labels: KeyLabels | None = None
    #: True from asking for the keys to be built until they are (``compose``).
    _keys_pending = False

    def compose(self) -> ComposeResult:
        self._keys_pending = False
        for widget in super().compose():
            preset_footer_key(widget, self.compact)
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        if not (screen.app.app_focus and screen is self.screen):
            super().bindings_changed(screen)
            return
        shown = [(binding, enabled, tooltip)
                 for _node, binding, enabled, tooltip in screen.active_bindings.values()
                 if binding.show]
        labels = tuple((binding.key, binding.action, binding.description, tooltip)
                       for binding, _enabled, tooltip in shown)
        keys = footer_keys(self)
        if labels != self._labels or (not self._keys_pending and len(keys) < len(
                {binding.action for binding, _, _ in shown})):
            self._labels, self._keys_pending = labels, self.is_attached
            super().bindings_changed(screen)
            return
        if self._keys_pending:
            return  # the keys about to be built will show their state
        enabled = {(binding.key, binding.action): on for binding, on, _ in shown}
        for key in keys:
            if (key.key, key.action) in enabled:
                set_footer_key_enabled(key, enabled[key.key, key.action])
