"""Letta's memory tools on cards: the block, and a diff or the text added."""

from __future__ import annotations

import pytest
from test_renderers import call, styles_of_line, text_of

from openletta.transcript import ToolStatus
from openletta.ui.renderers import renderer_for
from openletta.ui.renderers.base import ADDED, REMOVED
from openletta.ui.renderers.memory import MemoryRenderer

RENDERER = MemoryRenderer()


@pytest.mark.parametrize("name", ["memory_insert", "memory_replace", "memory_rethink", "memory",
                                  "core_memory_append", "Core_Memory_Replace"])
def test_every_memory_tool_has_the_memory_renderer(name: str) -> None:
    assert isinstance(renderer_for(name), MemoryRenderer)


def test_a_replace_is_a_diff_of_the_block() -> None:
    item = call("memory_replace", {"label": "human", "old_str": "Name: Ana\nLikes: tea",
                                   "new_str": "Name: Ana\nLikes: coffee"})
    assert RENDERER.summary(item) == "human  +1 −1"
    blocks = RENDERER.body(item, 80)
    assert "Likes: tea" in text_of(blocks) and "Likes: coffee" in text_of(blocks)
    assert REMOVED in styles_of_line(blocks, "Likes: tea")
    assert ADDED in styles_of_line(blocks, "Likes: coffee")


def test_an_insert_shows_the_text_added() -> None:
    item = call("memory_insert", {"label": "persona",
                                  "new_string": "Prefers short answers.\nUses metric."})
    assert RENDERER.summary(item) == "persona  +2 lines"
    blocks = RENDERER.body(item, 80)
    assert text_of(blocks).splitlines() == ["+ Prefers short answers.", "+ Uses metric."]
    assert ADDED in styles_of_line(blocks, "Prefers short")


def test_a_rethink_shows_the_new_value_and_an_error_shows_why() -> None:
    item = call("memory_rethink", {"label": "human", "new_memory": "All new."},
                status=ToolStatus.ERROR)
    item.result = "Error executing function memory_rethink: ValueError: block is read-only"
    assert RENDERER.summary(item) == "human  rewritten (1 line)"
    shown = text_of(RENDERER.body(item, 80))
    assert "All new." in shown and "block is read-only" in shown


def test_server_text_is_shown_literally() -> None:
    item = call("core_memory_append", {"label": "human", "content": "[bold]x[/] \x1b[2Jy"})
    shown = text_of(RENDERER.body(item, 80))
    assert "[bold]x[/]" in shown and "\x1b" not in shown
