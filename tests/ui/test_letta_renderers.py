"""Renderers of Letta's built-in tools: searches, archival memory, the web, code, send_message.

The results below have the shapes Letta 0.16.8 returns (files named in each test). A tool's
``func_return`` reaches the client through ``letta/schemas/message.py``
(``Message._parse_tool_response``), which sends ``str(message)``: a dict or list result
arrives as its Python ``str()``, not as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_helpers import open_chat, send
from test_renderers import NARROW, WIDE, call, styles_of_line, text_of

from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import renderer_for
from openletta.ui.renderers.archival_memory import ArchivalInsertRenderer, ArchivalSearchRenderer
from openletta.ui.renderers.base import BAD, MUTED, ToolRenderer
from openletta.ui.renderers.conversation_search import ConversationSearchRenderer, parse_value
from openletta.ui.renderers.fetch_webpage import FetchWebpageRenderer
from openletta.ui.renderers.run_code import RunCodeRenderer, parse_run
from openletta.ui.renderers.send_message import SendMessageRenderer
from openletta.ui.renderers.web_search import WebSearchRenderer

MINE: dict[str, type[ToolRenderer]] = {
    "conversation_search": ConversationSearchRenderer,
    "archival_memory_search": ArchivalSearchRenderer,
    "archival_memory_insert": ArchivalInsertRenderer,
    "web_search": WebSearchRenderer,
    "fetch_webpage": FetchWebpageRenderer,
    "run_code": RunCodeRenderer,
    "send_message": SendMessageRenderer,
}


def shown(name: str, arguments: dict[str, Any], result: str | None,
          status: ToolStatus = ToolStatus.SUCCESS, width: int = NARROW) -> tuple[str, str]:
    """The summary line and the body's plain text of a call of ``name``."""
    item = call(name, arguments, status, result)
    renderer = renderer_for(name)
    return renderer.summary(item), text_of(renderer.body(item, width))


@pytest.mark.parametrize(("name", "renderer"), [
    *MINE.items(), ("Conversation_Search", ConversationSearchRenderer),
    ("conversation_search_date", ConversationSearchRenderer),
    ("run_code_with_tools", RunCodeRenderer), ("WebFetch", FetchWebpageRenderer),
])
def test_letta_tools_have_their_renderers(name: str, renderer: type[ToolRenderer]) -> None:
    assert type(renderer_for(name)) is renderer


# --- conversation_search -------------------------------------------------------------------

# letta/services/tool_executor/core_tool_executor.py, LettaCoreToolExecutor.conversation_search
CONVERSATION = str({"message": "Showing 2 results:", "results": [
    {"timestamp": "2025-09-03T10:15:42.123456-07:00", "time_ago": "2d ago", "role": "user",
     "relevance": {"rrf_score": 0.0325, "vector_rank": 1, "fts_rank": 2,
                   "search_mode": "hybrid"},
     "content": "I'm planning a trip to Paris in May"},
    {"timestamp": "2025-09-03T10:16:05.000001-07:00", "time_ago": "2d ago", "role": "assistant",
     "thinking": "The user wants travel tips.",
     "content": "Paris in May is lovely: book the Louvre early. " * 10},
]})


def test_conversation_search_lists_date_role_and_snippet() -> None:
    summary, body = shown("conversation_search", {"query": "Paris", "roles": ["user", "assistant"],
                                                  "limit": 5}, CONVERSATION)
    assert summary == "Paris  roles: user, assistant  limit 5"
    lines = body.split("\n")
    assert lines[0] == "Showing 2 results:"
    assert lines[1] == "2025-09-03 10:15  (2d ago)  user  I'm planning a trip to Paris in May"
    assert lines[2].startswith("2025-09-03 10:16  (2d ago)  assistant  Paris in May is lovely")
    assert lines[2].endswith("…") and len(lines[2]) <= 2 * NARROW  # about two lines
    assert len(lines) == 3


def test_conversation_search_without_results_says_so() -> None:
    summary, body = shown("conversation_search", {"start_date": "2024-01-15"},
                          str({"message": "No results found.", "results": []}))
    assert summary == "(any message)  from 2024-01-15"
    assert body == "No results found."


def test_conversation_search_reads_older_servers_text() -> None:
    # letta/functions/function_sets/base.py, conversation_search: "Found N results: <json>"
    result = "Found 1 results: " + json.dumps([{"role": "user", "content": "hello there"}])
    assert shown("conversation_search", {"query": "hello"}, result)[1] == (
        "Found 1 results:\nuser  hello there")
    # Letta 0.8 (core_tool_executor.py): the stored JSON of each user message
    packed = json.dumps({"type": "user_message", "message": "hi", "time": "2024-09-01 10:00:00"})
    result = f"Showing 1 of 1 results (page 0/0): {json.dumps([packed])}"
    assert shown("conversation_search", {"query": "hi"}, result)[1].endswith(
        "\n2024-09-01 10:00  hi")


def test_conversation_search_error() -> None:
    result = ("Error executing function conversation_search: ValueError: Invalid start_date "
              "format: May. Use ISO 8601 format (YYYY-MM-DD or YYYY-MM-DDTHH:MM)")
    body = shown("conversation_search", {"start_date": "May"}, result, ToolStatus.ERROR)[1]
    assert body.startswith("Invalid start_date format: May.")


def test_results_are_parsed_as_json_or_python_literals_only() -> None:
    assert parse_value('{"a": [1]}') == {"a": [1]}
    assert parse_value("{'a': [True, None]}") == {"a": [True, None]}
    assert parse_value("[__import__('os')]") is None
    assert parse_value("plain") is None


# --- archival memory -----------------------------------------------------------------------

# letta/services/agent_manager.py, search_agent_archival_memory_async: a list of dicts
ARCHIVAL = str([
    {"id": "passage-8f2c", "timestamp": "2025-08-30 17:02:11.5+00:00",
     "content": "Meeting on 2025-08-30: Q2 roadmap, John leads optimisation.",
     "tags": ["meetings", "roadmap"], "relevance": {"rrf_score": 0.5, "vector_rank": 1}},
    {"id": "passage-91aa", "timestamp": "2025-07-01T09:00:00+00:00",
     "content": "Ana prefers tea.", "tags": []},
])


def test_archival_search_lists_date_tags_and_snippet() -> None:
    summary, body = shown("archival_memory_search", {"query": "roadmap", "tags": ["meetings"],
                                                     "top_k": 3}, ARCHIVAL)
    assert summary == "roadmap  tags: meetings  top 3"
    assert body == ("2025-08-30 17:02  tags: meetings, roadmap  Meeting on 2025-08-30: Q2 "
                    "roadmap, John leads optimisation.\n2025-07-01 09:00  Ana prefers tea.")


def test_archival_search_reads_older_servers_pair() -> None:
    # Letta 0.8, core_tool_executor.py archival_memory_search: (results, count)
    result = str(([{"timestamp": "2024-05-01 08:00:00+00:00", "content": "Ana likes tea."}], 1))
    assert shown("archival_memory_search", {"query": "tea"}, result)[1] == (
        "2024-05-01 08:00  Ana likes tea.")


def test_archival_insert_shows_the_text_tags_and_outcome() -> None:
    # core_tool_executor.py, archival_memory_insert returns None ("None" on the wire)
    arguments = {"content": "Met John.\nHe likes tea.", "tags": ["people", "john"]}
    summary, body = shown("archival_memory_insert", arguments, "None")
    assert summary == "Met John.…  tags: people, john"
    assert body == "Met John.\nHe likes tea.\ntags: people, john\n✓ inserted"
    body = shown("archival_memory_insert", arguments, "Error executing function "
                 "archival_memory_insert: ValueError: no embedding", ToolStatus.ERROR)[1]
    assert body.endswith("\nno embedding")


# --- web -----------------------------------------------------------------------------------

# letta/services/tool_executor/builtin_tool_executor.py, web_search (Exa)
WEB = json.dumps({"query": "letta agents", "results": [
    {"title": "Letta: stateful agents", "url": "https://www.letta.com/",
     "published_date": "2025-01-02T00:00:00.000Z", "author": None,
     "highlights": ["Letta builds agents with memory."],
     "summary": "Letta is a platform for stateful agents."},
    {"title": "letta-ai/letta", "url": "https://github.com/letta-ai/letta",
     "published_date": None, "author": "letta-ai", "highlights": ["An open source framework."]},
]}, indent=2)


def test_web_search_lists_title_url_and_snippet() -> None:
    summary, body = shown("web_search", {"query": "letta agents", "num_results": 2}, WEB)
    assert summary == "letta agents  results 2"
    assert body == ("Letta: stateful agents\nhttps://www.letta.com/  2025-01-02 00:00\n"
                    "Letta is a platform for stateful agents.\n"
                    "letta-ai/letta\nhttps://github.com/letta-ai/letta\nAn open source framework.")


def test_web_search_failure_in_the_result_is_an_error() -> None:
    item = call("web_search", {"query": "x"},
                result=json.dumps({"query": "x", "error": "Search failed: 401 Unauthorized"}))
    blocks = WebSearchRenderer().body(item, NARROW)
    assert text_of(blocks) == "Search failed: 401 Unauthorized"
    assert BAD in styles_of_line(blocks, "401")


def test_web_search_reads_older_per_query_results() -> None:
    # builtin_tool_executor.py before 0.12 (Firecrawl): results keyed by query, with sources
    result = json.dumps({"api_key_source": "system_settings", "results": {"tesla q1": {
        "query": "tesla q1", "question": "Net profit?", "total_sources": 1,
        "total_citations": 1, "sources": [{"url": "https://ir.tesla.com", "title": "Q1 2025",
                                           "description": "Update",
                                           "citations": [{"text": "Net income $409M"}]}]}}})
    summary, body = shown("web_search", {"tasks": [{"query": "tesla q1", "question": "?"}]},
                          result)
    assert summary == "tesla q1"
    assert body == "Q1 2025\nhttps://ir.tesla.com\nUpdate"


def test_fetch_webpage_shows_title_and_an_excerpt() -> None:
    # builtin_tool_executor.py, fetch_webpage with Exa: title, published_date, author, text
    page = json.dumps({"title": "Example Domain", "published_date": None, "author": "IANA",
                       "text": "".join(f"line {n}\n" for n in range(50))})
    summary, body = shown("fetch_webpage", {"url": "https://example.com"}, page)
    lines = body.split("\n")
    assert summary == "https://example.com"
    assert lines[:4] == ["Example Domain", "IANA", "line 0", "line 1"]
    assert lines[-1] == "… 20 more lines not shown"


def test_fetch_webpage_markdown_text_is_shown_as_text() -> None:
    # builtin_tool_executor.py, fetch_webpage without Exa: trafilatura's Markdown
    body = shown("fetch_webpage", {"url": "https://example.com"}, "# Example\n\n[bold]x[/]")[1]
    assert body == "# Example\n\n[bold]x[/]"


# --- run_code ------------------------------------------------------------------------------

# builtin_tool_executor.py, run_code: _llm_friendly_result as JSON
RUN = json.dumps({"results": ["42"], "logs": {"stdout": ["hello\n", "world\n"],
                                              "stderr": ["DeprecationWarning: x\n"]}})


def test_run_code_shows_code_output_result_and_stderr() -> None:
    item = call("run_code", {"code": "print('hello')\nprint('world')\n6 * 7",
                             "language": "python"}, result=RUN)
    blocks = RunCodeRenderer().body(item, NARROW)
    assert RunCodeRenderer().summary(item) == "python  print('hello')…"
    assert text_of(blocks) == ("print('hello')\nprint('world')\n6 * 7\nhello\nworld\nresult\n42\n"
                               "stderr\nDeprecationWarning: x\n✓ done")
    assert BAD in styles_of_line(blocks, "DeprecationWarning")


def test_run_code_error_and_the_with_tools_shape() -> None:
    error = {"name": "ZeroDivisionError", "value": "division by zero", "traceback": ""}
    run = parse_run(json.dumps({"results": [], "logs": {"stdout": [], "stderr": []},
                                "error": error}))
    assert run is not None and (run.error, run.failed) == ("ZeroDivisionError: division by zero",
                                                          True)
    # builtin_tool_executor.py, run_code_with_tools: status, func_return, stdout, stderr
    result = json.dumps({"status": "error", "func_return": None, "stdout": [],
                         "stderr": ["Traceback (most recent call last):\nNameError: y\n"]})
    body = shown("run_code_with_tools", {"code": "y"}, result)[1]
    assert body == "y\nstderr\nTraceback (most recent call last):\nNameError: y\n✗ failed"


def test_run_code_plain_result_and_other_languages() -> None:
    body = shown("run_code", {"code": "console.log(1)", "language": "js"}, "1\n[red]x[/]")[1]
    assert body == "console.log(1)\n1\n[red]x[/]"
    assert shown("run_code", {"code": "x", "language": "no-such-lang"}, None,
                 ToolStatus.RUNNING)[1] == "x"


# --- send_message --------------------------------------------------------------------------


@pytest.mark.parametrize("result", ["None", "Sent message successfully.", None])
def test_send_message_is_the_reply_as_plain_text(result: str | None) -> None:
    # core_tool_executor.py, send_message returns "Sent message successfully."
    summary, body = shown("send_message", {"message": "Hi *Ana*!\n[bold]not markup[/]"},
                          result)
    assert summary == "Hi *Ana*!…"
    assert body == "Hi *Ana*!\n[bold]not markup[/]"


def test_send_message_unusual_result_is_muted() -> None:
    item = call("send_message", {"message": "Hi"}, result="queued")
    blocks = SendMessageRenderer().body(item, NARROW)
    assert text_of(blocks) == "Hi\nqueued"
    assert MUTED in styles_of_line(blocks, "queued")


# --- malformed results ---------------------------------------------------------------------

MALFORMED = [
    "", "not json at all", "[bold]markup[/] \x1b]52;c;SGk=\x07\x1b[2J\x1b[31mred\x1b[0m",
    "{'results': 'not a list'}", '{"results": [1, null, "x", [2], {"role": 3}]}',
    "[{'timestamp': 5, 'content': {'nested': True}, 'tags': 'x', 'title': None}]",
    '{"results": {"q": "not a task"}}', '{"logs": 3, "results": {}, "error": 7}',
    '{"text": null, "title": ["x"]}', "Found 2 results: [oops", "{" * 500, "[" * 100_000,
    "Error: [bold]x[/]: [1, 2",
]


@pytest.mark.parametrize("name", MINE)
@pytest.mark.parametrize("result", MALFORMED)
def test_malformed_results_degrade_to_text(name: str, result: str) -> None:
    renderer = renderer_for(name)
    for status in (ToolStatus.SUCCESS, ToolStatus.ERROR):
        item = call(name, {"query": "q", "code": "x", "url": "u", "message": "m"}, status, result)
        assert "\n" not in renderer.summary(item)
        for width in (1, NARROW, WIDE):
            text = text_of(renderer.body(item, width))
            assert "\x1b" not in text and "\x07" not in text


@pytest.mark.parametrize("name", MINE)
def test_markup_in_results_stays_literal(name: str) -> None:
    results = {
        "conversation_search": str({"results": [{"role": "user", "content": "[b]x[/b]"}]}),
        "archival_memory_search": str([{"content": "[b]x[/b]", "tags": ["[i]t[/i]"]}]),
        "web_search": json.dumps({"results": [{"title": "[b]x[/b]", "url": "u"}]}),
        "fetch_webpage": json.dumps({"title": "T", "text": "[b]x[/b]"}),
        "run_code": json.dumps({"logs": {"stdout": ["[b]x[/b]\n"]}}),
    }
    arguments = {"content": "[b]x[/b]", "message": "[b]x[/b]", "code": "c"}
    assert "[b]x[/b]" in shown(name, arguments, results.get(name, "[b]x[/b]"))[1]


@pytest.mark.parametrize(("prompt", "tool", "shown_text"), [
    ("search our history", "conversation_search", "Hello! I am the openletta demo agent."),
    ("find it on the web", "web_search", "https://github.com/letta-ai/letta"),
    ("compute some python", "run_code", "385"),
    ("archive: tea, no sugar", "archival_memory_insert", "tea, no sugar"),
    ("show me the passages", "archival_memory_search", "The user prefers openletta's dark"),
    ("fetch that page", "fetch_webpage", "Agent memory | Letta"),
    ("a legacy agent, please", "send_message", "Hello from an older agent type!"),
])
async def test_the_demo_shows_each_letta_tool_with_its_renderer(
        demo_server, make_app, wait_until, prompt: str, tool: str, shown_text: str) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, prompt, wait_until)
        call = next(item for item in screen.session.transcript.items
                    if isinstance(item, ToolCallItem))
        assert call.name == tool and call.status is ToolStatus.SUCCESS
        assert shown_text in text_of(renderer_for(tool).body(call, 100))
