"""Classes, and an item's focus, whose change styles only some widgets again
(``steady.restyle_alone``, ``ItemWidget.watch_has_focus``): no CSS rule may match by them a
widget that is not styled again with them, or it would keep its old style."""

from __future__ import annotations

from collections.abc import Iterator

from chat_helpers import demo_chat
from textual.css.model import CombinatorType, Selector, SelectorType

from openletta.ui.widgets import ItemWidget

#: Per class: what, besides the widget that has it, is styled again when it changes.
RESTYLED_WITH = {
    "-whole": set(),
    "-trailing": set(),
    "-memory-beside": {"ToastRack"},
    "-memory-above": {"ToastRack"},
    "-show-internal": {"-internal"},
    "-match": set(),
}


def item_types() -> set[str]:
    """The CSS type names an item widget can have (its classes and their bases)."""
    names: set[str] = set()
    pending = [ItemWidget]
    while pending:
        cls = pending.pop()
        names.update(cls._css_type_names)
        pending.extend(cls.__subclasses__())
    return names


def compounds(selectors: list[Selector]) -> list[list[Selector]]:
    """A selector chain cut into compound selectors (``A.b:focus``), outermost first."""
    cut: list[list[Selector]] = []
    for selector in selectors:
        if cut and selector.combinator == CombinatorType.SAME:
            cut[-1].append(selector)
        else:
            cut.append([selector])
    return cut


def violations(chains: Iterator[list[Selector]]) -> list[str]:
    """The chains that match a widget by a class or focus not styled again with it."""
    items, found = item_types(), []
    for chain in chains:
        *outer, target = compounds(chain)
        target_names = {selector.name for selector in target}
        for compound in outer:
            names = {selector.name for selector in compound}
            for name in names & RESTYLED_WITH.keys():
                if not target_names & RESTYLED_WITH[name]:
                    found.append(" ".join(selector.css for selector in chain))
            focused = any("focus" in selector.pseudo_classes for selector in compound)
            if focused and (names & items or any(
                    selector.type == SelectorType.UNIVERSAL for selector in compound)):
                found.append(" ".join(selector.css for selector in chain))
    return found


async def test_no_rule_matches_a_widget_by_what_does_not_restyle_it(
        demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, _screen):
        await pilot.press("f2")  # the memory panel's widgets bring their default CSS
        await pilot.press("ctrl+t")
        chains = [selector_set.selectors for rule in app.stylesheet.rules
                  for selector_set in rule.selector_set]
        assert violations(iter(chains)) == []
        # The rule that shows internal items is allowed; the same rule for the scroller
        # holding them (not styled again with the class) is found.
        shown = next(chain for chain in chains
                     if any(selector.name == "-show-internal" for selector in chain))
        assert violations(iter([shown[:-1]])) == ["ChatView .-show-internal ChatScroll"]
