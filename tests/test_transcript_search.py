"""Finding items by text: what is searched (what each item shows) and what is left out."""

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
from openletta.ui.shown_text import shown_text

ITEMS = [
    SystemItem(key="s", text="You are Sam. Remember the Deploy key."),
    UserItem(key="u", text="Please deploy the site"),
    ReasoningItem(key="r", text="The user wants a deploy.", done=True),
    ReasoningItem(key="h", text="deploy", hidden=True),
    ToolCallItem(key="t", name="bash", arguments_text='{"command": "make"}',
                 status=ToolStatus.SUCCESS, stdout=["DEPLOYED to prod\n"],
                 result='{"stdout": "DEPLOYED to prod\\n"}'),
    AssistantItem(key="a", text="Done: the site is live.", done=True),
]
REPLY = AssistantItem(key="md", done=True, text=(
    "# Report\n\nThe **build** passed; see [the log](https://ci.example.invalid/run/7).\n\n"
    "Run `make check`:\n\n```sh\nmake check\n```\n\n| step | time |\n|---|---|\n| lint | 3 s |\n"))


def keys(items) -> list[str]:
    return [item.key for item in items]


def find(items, query: str, **options: bool) -> list[str]:
    return keys(find_items(items, query, shown_text, **options))


def test_matches_ignore_case_and_include_tool_output() -> None:
    assert find(ITEMS, "deploy") == ["u", "r", "t"]
    assert find(ITEMS, "  SITE ") == ["u", "a"]


def test_internal_items_only_when_shown_and_hidden_reasoning_never() -> None:
    assert find(ITEMS, "deploy", include_internal=True) == ["s", "u", "r", "t"]


def test_an_empty_query_matches_nothing() -> None:
    assert find(ITEMS, "   ") == []


def test_a_reply_matches_on_its_rendered_text_not_its_markdown() -> None:
    for shown in ("Report", "build passed", "the log", "make check", "lint", "3 s"):
        assert find([REPLY], shown) == ["md"], shown
    for hidden in ("**", "# Report", "](http", "ci.example.invalid", "`make", "| lint",
                   "```", "---"):
        assert find([REPLY], hidden) == [], hidden


def test_a_tool_call_matches_on_what_its_card_shows_not_its_json() -> None:
    (call,) = [item for item in ITEMS if isinstance(item, ToolCallItem)]
    assert find([call], "$ make") == ["t"]
    assert find([call], '"command"') == [] and find([call], '"stdout"') == []
