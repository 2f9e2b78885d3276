"""KeyBar: Textual's key footer, rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from openletta.ui.textual_internals import (
    FooterKey,
    footer_keys,
    preset_footer_key,
    set_footer_key_enabled,
)

#: Per key shown: key, action, label and tooltip.
KeyLabels = tuple[tuple[str, str, str, str], ...]
#: The actions of the keys kept when the bar is too narrow for all: the help, and Esc that
#: stops a turn (the key that matters most while one runs).
KEPT_ACTIONS = frozenset({"help", "app.help", "interrupt"})


class KeyBar(Footer):
    """The footer of key bindings.

    Textual's footer builds all its key widgets again whenever a screen's bindings may have
    changed: on every focus change, and on each turn's start and end (Esc enables). That
    costs a few milliseconds of CPU each time, for a footer that almost never changes: this
    one rebuilds only when the keys shown change, and enables or disables keys in place.

    Keys that do not fit whole are not shown (the last ones first), where Textual's footer
    cuts the line off in the middle of a key; the help key, Esc's Stop and the command
    palette's key always show.
    """

    _labels: KeyLabels | None = None
    #: True from asking for the keys to be built until they are (``compose``).
    _keys_pending = False

    def compose(self) -> ComposeResult:
        self._keys_pending = False
        for widget in super().compose():
            preset_footer_key(widget, self.compact)
            yield widget
        self.call_after_refresh(self._hide_keys_that_do_not_fit)

    def on_resize(self) -> None:
        keys = footer_keys(self)
        if any(not key.display for key in keys):
            for key in keys:
                key.display = True  # laid out again whole, to be measured
        self.call_after_refresh(self._hide_keys_that_do_not_fit)

    def _hide_keys_that_do_not_fit(self) -> None:
        keys = footer_keys(self)
        if any(key.display and not key.region for key in keys):  # not laid out yet
            self.call_after_refresh(self._hide_keys_that_do_not_fit)
            return
        right = min([self.content_region.right, *(key.region.x for key in keys
                                                  if key.has_class("-command-palette"))])
        flow = [key for key in keys if not key.has_class("-command-palette")]
        over = max((key.region.right for key in flow), default=right) - right
        hidden: set[FooterKey] = set()
        for key in reversed(flow):
            if over <= 0:
                break
            if key.action not in KEPT_ACTIONS:
                hidden.add(key)
                over -= key.region.width
        for key in flow:
            key.display = key not in hidden

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
