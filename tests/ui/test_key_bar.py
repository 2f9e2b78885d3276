"""The chat's key bar is built once its screen's keys are known, and then only when the keys
it shows change; a key that is enabled or disabled (Esc during a turn) changes in place."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from chat_helpers import open_chat, send
from textual.app import ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget

from openletta.ui.key_bar import KeyBar
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.textual_internals import footer_keys
from openletta.ui.widgets.reasoning import ReasoningBlock
from openletta.ui.widgets.user import UserMessage


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The screen of every key bar built (composed), in order."""
    built: list[str] = []
    compose = KeyBar.compose

    def counted(bar: KeyBar) -> Iterator[ComposeResult]:
        built.append(type(bar.screen).__name__)
        yield from compose(bar)

    monkeypatch.setattr(KeyBar, "compose", counted)
    return built


@pytest.fixture
def restyled_keys(monkeypatch: pytest.MonkeyPatch) -> list[Widget]:
    """Footer keys styled again after they mounted (a class of theirs changed)."""
    keys: list[Widget] = []
    update_nodes = Stylesheet.update_nodes

    def counted(sheet: Stylesheet, nodes: Iterable[DOMNode], *args: Any, **kwargs: Any) -> None:
        nodes = list(nodes)
        keys.extend(node for node in nodes if isinstance(node, Widget)
                    and isinstance(node.parent, KeyBar))
        update_nodes(sheet, nodes, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "update_nodes", counted)
    return keys


def stop_key(screen: ChatScreen) -> Widget:
    return next(key for key in footer_keys(screen.query_one(KeyBar)) if key.action == "interrupt")


def stop_key_enabled(screen: ChatScreen) -> bool:
    """Whether Esc's key is enabled, and looks it (a disabled key is dim)."""
    key = stop_key(screen)
    assert bool(key.rich_style.dim) == key.has_class("-disabled")
    return not key.has_class("-disabled")


async def test_the_chat_key_bar_is_built_once_and_enables_esc_in_place(
        make_app, wait_until, builds: list[str], restyled_keys: list[Widget]) -> None:
    app = make_app(demo=True, demo_speed=1.0, agent="demo-agent")  # a turn takes a while
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await wait_until(pilot, lambda: footer_keys(screen.query_one(KeyBar)), what="the keys")
        assert builds.count("ChatScreen") == 2  # empty as it mounts, then with its keys
        # A key is not made compact and then not compact again (the palette key stays compact)
        assert [key for key in restyled_keys if not key.has_class("-command-palette")] == []
        assert not stop_key_enabled(screen)
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: stop_key_enabled(screen), what="Esc enabled")
        await wait_until(pilot, lambda: not screen.busy and not stop_key_enabled(screen),
                         what="the turn over, Esc disabled")
        assert builds.count("ChatScreen") == 2
        assert stop_key(screen) not in restyled_keys  # not styled anew through the stylesheet
        shown = [key.action for key in footer_keys(screen.query_one(KeyBar))]
        assert shown[:3] == ["app.switch_agent", "interrupt", "toggle_internal"]


def shown_keys(bar: KeyBar) -> list[str]:
    return [key.action for key in footer_keys(bar) if key.display]


async def test_keys_that_do_not_fit_are_hidden_whole_the_last_first_but_help(
        make_app, wait_until) -> None:
    app = make_app(demo=True, agent="demo-agent")
    async with app.run_test(size=(64, 24)) as pilot:
        screen = await open_chat(pilot, wait_until)
        bar = screen.query_one(KeyBar)
        every = [key.action for key in footer_keys(bar)]
        palette = next(key for key in footer_keys(bar) if key.has_class("-command-palette"))
        await wait_until(pilot, lambda: len(shown_keys(bar)) < len(every), what="keys hidden")
        shown = shown_keys(bar)
        assert "help" in every and shown[-2:] == ["help", palette.action]  # help stays
        assert shown == [*every[:len(shown) - 2], "help", palette.action]  # the first ones
        assert all(key.region.right <= palette.region.x
                   for key in footer_keys(bar) if key.display and key is not palette)
        await pilot.resize_terminal(140, 24)
        await wait_until(pilot, lambda: shown_keys(bar) == every, what="every key back")
        await pilot.resize_terminal(44, 24)
        await wait_until(pilot, lambda: len(shown_keys(bar)) < len(shown) - 1,
                         what="more keys hidden")
        await pilot.resize_terminal(34, 24)
        await wait_until(pilot, lambda: "app.switch_agent" not in shown_keys(bar),
                         what="the first key hidden too")
        assert {"interrupt", "help"} <= set(shown_keys(bar))  # Esc's Stop stays
        assert all(key.region.right <= palette.region.x
                   for key in footer_keys(bar) if key.display and key is not palette)


async def test_enter_on_a_folding_item_says_whether_it_expands_or_collapses(
        make_app, wait_until) -> None:
    """A finished thought shows ``Expand`` on Enter, then ``Collapse``; a short message of the
    user's folds nothing, and Enter is not offered there."""
    app = make_app(demo=True, agent="demo-agent")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        bar = screen.query_one(KeyBar)

        def enter_label() -> str | None:
            return next((key.description for key in footer_keys(bar) if key.key == "enter"),
                        None)

        await wait_until(pilot, lambda: screen.query(ReasoningBlock) and
                         screen.query_one(ReasoningBlock).can_focus, what="the thought done")
        thought = screen.query_one(ReasoningBlock)
        thought.focus()
        await wait_until(pilot, lambda: enter_label() == "Expand", what="Enter expands")
        await pilot.press("enter")
        assert thought.expanded
        await wait_until(pilot, lambda: enter_label() == "Collapse", what="Enter collapses")
        await pilot.press("enter")
        await wait_until(pilot, lambda: enter_label() == "Expand", what="Enter expands again")
        assert not thought.expanded
        screen.query_one(UserMessage).focus()
        await wait_until(pilot, lambda: enter_label() is None, what="no Enter offered")
