"""Markdown export of a transcript."""

from __future__ import annotations

import re
from pathlib import Path

from openletta.api.sse import parse_sse_file
from openletta.redaction import register_secret
from openletta.transcript import Transcript
from openletta.transcript.export import to_document, to_markdown
from openletta.transcript.items import (
    AssistantItem,
    ErrorItem,
    EventItem,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    UserItem,
)

FIXTURES = Path(__file__).parent / "fixtures"


def transcript_of(capture: str, prompt: str) -> Transcript:
    transcript = Transcript()
    transcript.add_user(prompt)
    transcript.feed_all(parse_sse_file(FIXTURES / capture).messages)
    return transcript


def test_export_of_a_captured_tool_turn() -> None:
    transcript = transcript_of("read_tool_steps.sse", "What is the hostname?")
    markdown = to_markdown(transcript.visible_items(), "Test agent")
    assert markdown == """\
# Test agent

## You

What is the hostname?

## Agent

> **Reasoning**
>
> Reading /etc/hostname.

### Tool call: `read_file` (success)

Arguments:

```json
{
  "path": "/etc/hostname"
}
```

Result:

```
vm
```

> **Reasoning**
>
> The read_file tool finished with status OK; summarising for the user.

Tool `read_file` finished (status: OK). Result: vm
"""


def test_export_of_a_denied_approval() -> None:
    transcript = transcript_of("approval_request_tokens.sse", "Run ls")
    call = transcript.pending_approvals[0]
    transcript.record_decisions({call.tool_call_id: (False, "not now")})
    markdown = to_markdown(transcript.visible_items(), "agent")
    assert f"### Tool call: `{call.name}` (denied)" in markdown
    assert "*Denied. Reason: not now*" in markdown


def test_each_turn_gets_you_and_agent_headings() -> None:
    items = [
        UserItem(key="u1", text="first"),
        AssistantItem(key="a1", text="**one**"),
        UserItem(key="u2", text="second"),
        ReasoningItem(key="r2", text="thinking"),
        AssistantItem(key="a2", text="two"),
    ]
    markdown = to_markdown(items, "agent")
    assert re.findall(r"^## .*$", markdown, re.MULTILINE) == [
        "## You", "## Agent", "## You", "## Agent"]
    assert "\n**one**\n" in markdown


def test_a_replys_headings_go_under_the_transcripts_and_the_users_lines_stay_lines() -> None:
    reply = "# Plan\n\n```sh\n# not a heading\n```\n\n## Step\n\n##### deep\n#tag"
    items = [UserItem(key="u", text="first line\nsecond line\n\n# not mine"),
             AssistantItem(key="a", text=reply)]
    markdown = to_markdown(items, "agent")
    lines = markdown.split("\n")
    assert [line for line in lines if re.match(r"#+ ", line)] == [
        "# agent", "## You", "## Agent", "### Plan", "# not a heading", "#### Step",
        "###### deep"]  # (the one in the fence is code)
    assert "```sh\n# not a heading\n```" in markdown and "\n#tag" in markdown
    assert "first line  \nsecond line\n\n\\# not mine" in markdown  # as typed


def test_fences_outgrow_backticks_inside() -> None:
    result = "Use ```python\nprint(1)\n``` and ````` too"
    call = ToolCallItem(key="c", name="run", arguments_text='{"code": "```"}',
                        status=ToolStatus.SUCCESS, result=result)
    markdown = to_markdown([call], "agent")
    assert "``````\n" + result + "\n``````" in markdown
    assert '````json\n{\n  "code": "```"\n}\n````' in markdown


def test_tool_details() -> None:
    call = ToolCallItem(key="c", name="bash", arguments_text='{"command": "ls', needs_approval=True,
                        approved=True, auto_approved=True, status=ToolStatus.ERROR,
                        stdout=["out 1\n", "out 2\n"], stderr=["boom\n"])
    markdown = to_markdown([call], "agent")
    assert "### Tool call: `bash` (error)" in markdown
    assert "*Auto-approved.*" in markdown  # (the card's words)
    assert 'Arguments (incomplete):\n\n```\n{"command": "ls\n```' in markdown
    assert "Output:\n\n```\nout 1\nout 2\n```" in markdown
    assert "Errors:\n\n```\nboom\n```" in markdown
    assert "Result:" not in markdown


def test_waiting_call_and_odd_tool_name() -> None:
    call = ToolCallItem(key="c", name="a`b", needs_approval=True,
                        status=ToolStatus.AWAITING_APPROVAL)
    markdown = to_markdown([call], "agent")
    assert "### Tool call: ``a`b`` (awaiting approval)" in markdown
    assert "*Waiting for approval.*" in markdown


def test_a_call_never_run_says_why_as_its_card_does() -> None:
    call = ToolCallItem(key="c", name="read_file", arguments_text='{"path": "todo.txt"}',
                        status=ToolStatus.NOT_RUN)
    markdown = to_markdown([call], "agent")
    assert "(not run)" in markdown
    assert "*Not run: the agent runs one call at a time (or its step ended first)" in markdown


def test_errors_events_and_hidden_reasoning_are_notes() -> None:
    items = [
        ReasoningItem(key="r", hidden=True, state="redacted"),
        EventItem(key="e", event_type="compaction", text="Compacting context"),
        ErrorItem(key="x", error_type="llm_error", message="The model failed",
                  detail="line 1\nline 2"),
    ]
    markdown = to_markdown(items, "agent")
    assert "> *Reasoning hidden (redacted)*" in markdown
    assert "> **Compaction:** Compacting context" in markdown
    assert "> **Error** (llm_error): The model failed\n>\n> line 1\n> line 2" in markdown
    assert "## Agent" in markdown  # opened by the reasoning, not by the notes


def test_internal_items_only_on_request() -> None:
    items = [SystemItem(key="s", text="You are a helpful agent."),
             UserItem(key="u", text="hi")]
    assert "helpful" not in to_markdown(items, "agent")
    shown = to_markdown(items, "agent", include_internal=True)
    assert "### System (system)\n\n```\nYou are a helpful agent.\n```" in shown


def test_the_count_is_of_what_the_document_holds() -> None:
    """The system prompt (internal) and reasoning with no text are not in the file, so not
    counted."""
    items = [SystemItem(key="s", text="You are a helpful agent."), ReasoningItem(key="r"),
             UserItem(key="u", text="hi"), AssistantItem(key="a", text="Hello!")]
    assert to_document(items, "agent").messages == 2
    assert to_document(items, "agent", include_internal=True).messages == 3
    assert to_document(items[:2], "agent").messages == 0


def test_control_characters_are_dropped() -> None:
    items = [UserItem(key="u", text="red \x1b[31mtext\x07\r\nnext\tline"),
             AssistantItem(key="a", text="\x1b]0;title\x07done")]
    markdown = to_markdown(items, "bad\x1b[2J\nname")
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", markdown)
    assert markdown.startswith("# bad name\n")  # sequences go whole, not only their ESC
    assert "red text  \nnext\tline" in markdown


def test_calls_run_here_are_not_said_to_wait_for_approval_once_answered() -> None:
    """A call of a local tool asks for approval, and is answered by running it (or not):
    it has no approval answer of the server's, and waits for nothing once it ended."""
    ran = ToolCallItem(key="a", name="Bash", needs_approval=True, runs_here=True,
                       approved=True, status=ToolStatus.SUCCESS)
    from_history = ToolCallItem(key="b", name="Read", needs_approval=True, client_result=True,
                                status=ToolStatus.SUCCESS)
    stopped = ToolCallItem(key="c", name="Bash", needs_approval=True, runs_here=True,
                           status=ToolStatus.CANCELLED)
    markdown = to_markdown([ran, from_history, stopped], "agent")
    assert "Waiting" not in markdown
    assert markdown.count("*Approved.*") == 1
    assert "### Tool call: `Bash` (cancelled)" in markdown


def test_colours_of_a_commands_output_leave_no_trace_and_secrets_stay_hidden() -> None:
    register_secret("sk-let-0123456789abcdef")
    call = ToolCallItem(key="c", name="bash", status=ToolStatus.SUCCESS,
                        result="\x1b[0m\x1b[01;34msrc\x1b[0m key=sk-let-0123456789abcdef")
    markdown = to_markdown([call], "agent")
    assert "src key=***" in markdown and "[0m" not in markdown


def test_empty_transcript() -> None:
    assert to_markdown([], "agent") == "# agent\n"


def _local_bash_call(lines: int) -> ToolCallItem:
    """A local Bash call of ``seq 1 lines``: the output as captured and what the agent was
    told of it, as the app holds them."""
    from openletta.tools.budget import ReturnBudget
    from openletta.tools.output import Capture

    capture = Capture()
    capture.add("".join(f"{number}\n" for number in range(1, lines + 1)))
    return ToolCallItem(key="c", name="Bash", arguments_text='{"command": "seq"}',
                        status=ToolStatus.SUCCESS, runs_here=True, stdout=[capture.text()],
                        result=capture.told("Exit code: 0", ReturnBudget(6_000)))


def test_a_long_output_cut_for_the_agent_is_written_once_whole_with_what_the_agent_got() -> None:
    call = _local_bash_call(50_000)
    markdown = to_markdown([call], "agent")
    assert "Result:" not in markdown
    assert markdown.count("Output:") == 1
    output = "".join(call.stdout)
    assert output in markdown
    assert markdown.count("\n2\n") == 1 and markdown.count("\n49999\n") == 1
    assert re.search(r"\*The agent was told `Exit code: 0` and only the first [\d,]+ and last "
                     r"[\d,]+ of 50,000 lines of this output \(its context window holds no "
                     r"more\)\.\*", markdown)


def test_a_result_holding_the_whole_output_is_written_alone() -> None:
    call = _local_bash_call(3)
    assert call.result == "Exit code: 0\n1\n2\n3\n"
    markdown = to_markdown([call], "agent")
    assert "Result:\n\n```\nExit code: 0\n1\n2\n3\n```" in markdown
    assert "Output:" not in markdown and "agent was told" not in markdown


def test_a_call_the_user_edited_says_so_as_its_card_does() -> None:
    call = ToolCallItem(key="c", name="Bash", arguments_text='{"command": "ls -a"}',
                        needs_approval=True, runs_here=True, approved=True, edited=True,
                        status=ToolStatus.SUCCESS, result="a")
    assert "*Edited by you.*" in to_markdown([call], "agent")



def _local_call_and_result(result: str | None) -> list:
    """A local Bash call of ``echo mixed`` (and its ``result``) as the server sends them."""
    from openletta.api.messages import parse_message

    chunks = [{"message_type": "approval_request_message", "id": "message-1",
               "tool_call": {"tool_call_id": "call-1", "name": "Bash",
                             "arguments": '{"command": "echo mixed"}'}}]
    if result is not None:
        chunks.append({"message_type": "tool_return_message", "id": "message-2",
                       "tool_call_id": "call-1", "status": "success", "tool_return": result})
    return [parse_message(chunk) for chunk in chunks]


def _says_edited_with_what_the_agent_asked(markdown: str) -> None:
    assert "*Edited by you.*" in markdown
    asked = markdown.index("The agent asked for:")
    ran = markdown.index("Arguments (as run):")
    assert asked < markdown.index('"command": "echo mixed"') < ran
    assert ran < markdown.index('"command": "seq 1 3"')


def test_a_call_edited_here_and_read_back_from_history_says_so_with_what_the_agent_asked() -> None:
    """History keeps no answer for a call run on a client, only its result, whose note of
    the edit marks the call edited (as the card, the printout and replay show it)."""
    from openletta.transcript.edits import with_edit_note

    transcript = Transcript()
    transcript.load_history(_local_call_and_result(with_edit_note("command", "seq 1 3", "1")))
    _says_edited_with_what_the_agent_asked(to_markdown(transcript.items, "agent"))


def test_a_call_edited_live_keeps_what_the_agent_asked_for() -> None:
    transcript = Transcript()
    transcript.feed_all(_local_call_and_result(None))
    transcript.mark_local("call-1", None)
    transcript.edit_local("call-1", '{"command": "seq 1 3"}')
    transcript.start_local("call-1")
    transcript.finish_local("call-1", "1", ok=True)
    _says_edited_with_what_the_agent_asked(to_markdown(transcript.items, "agent"))
