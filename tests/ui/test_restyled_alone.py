"""Classes, and an item's focus, whose change styles only some widgets again
(``steady.restyle_alone``, ``ItemWidget.watch_has_focus``): no CSS rule may match by them a
widget that is not styled again with them, or it would keep its old style."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chat_helpers import demo_chat, send
from textual.css.model import CombinatorType, Selector, SelectorType
from textual.pilot import Pilot
from textual.widget import Widget
from widget_app import backgrounds

from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets import AssistantMessage, ItemWidget
from openletta.ui.widgets.paragraph import SteadyParagraph

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


async def focus(pilot: Pilot[None], screen: ChatScreen, reply: Widget) -> None:
    reply.focus(scroll_visible=False)


async def find(pilot: Pilot[None], screen: ChatScreen, reply: Widget) -> None:
    await pilot.press("ctrl+f", *"end of the long answer", "enter")


async def leave_find(pilot: Pilot[None], screen: ChatScreen, reply: Widget) -> None:
    await pilot.press("escape")


@pytest.mark.parametrize(("tint", "untint"), [(focus, leave_find), (find, leave_find)])
async def test_a_tinted_reply_is_painted_whole_on_its_new_background(
        demo_server, make_app, wait_until, tint, untint) -> None:
    """A reply focused or marked by Find takes another background. (In the app, what a
    widget painted is kept until its lines change: the reply's blocks kept the background
    they were painted on, unless painted again with it.)"""
    async with demo_chat(make_app, demo_server.base_url, wait_until, (100, 40)) as (
            app, pilot, screen):
        await send(pilot, screen, "long", wait_until)
        reply = screen.view.scroll.query(AssistantMessage).last()
        block = [paragraph for paragraph in reply.query(SteadyParagraph)
                 if 0 <= paragraph.region.y < screen.view.scroll.region.bottom][-1]
        before = backgrounds(app, reply, block)
        assert before[0] == before[1]
        await tint(pilot, screen, reply)
        await wait_until(pilot, lambda: backgrounds(app, reply, block)[0] != before[0],
                         what="the new background")
        padding, text = backgrounds(app, reply, block)
        assert text == padding, "the reply's text is painted on its new background"
        await untint(pilot, screen, reply)
        await wait_until(pilot, lambda: backgrounds(app, reply, block) == before,
                         what="its own background again")
