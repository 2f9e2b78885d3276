"""Finding items by text: what is searched and what is left out."""

from __future__ import annotations

from openletta.transcript import (
    AssistantItem,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    UserItem,
)
from openletta.transcript.search import find_items

ITEMS = [
    SystemItem(key="s", text="You are Sam. Remember the Deploy key."),
    UserItem(key="u", text="Please deploy the site"),
    ReasoningItem(key="r", text="The user wants a deploy.", done=True),
    ReasoningItem(key="h", text="deploy", hidden=True),
    ToolCallItem(key="t", name="bash", arguments_text='{"command": "make"}',
                 status=ToolStatus.SUCCESS, stdout=["DEPLOYED to prod\n"]),
    AssistantItem(key="a", text="Done: the site is live.", done=True),
]


def keys(items) -> list[str]:
    return [item.key for item in items]


def test_matches_ignore_case_and_include_tool_output() -> None:
    assert keys(find_items(ITEMS, "deploy")) == ["u", "r", "t"]
    assert keys(find_items(ITEMS, "  SITE ")) == ["u", "a"]


def test_internal_items_only_when_shown_and_hidden_reasoning_never() -> None:
    assert keys(find_items(ITEMS, "deploy", include_internal=True)) == ["s", "u", "r", "t"]


def test_an_empty_query_matches_nothing() -> None:
    assert find_items(ITEMS, "   ") == []
