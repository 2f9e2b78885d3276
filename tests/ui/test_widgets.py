"""Item widgets mounted in a tiny app: what they show, and how they follow their items."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_helpers import restyled
from textual.pilot import Pilot
from textual.widgets import Markdown
from waiting import wait_until
from widget_app import ItemsApp, backgrounds, shown_text

from openletta.chat.approvals import NO_REASON
from openletta.demo import content
from openletta.tools.output import Capture
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    Item,
    ReasoningItem,
    SystemItem,
    ToolCallItem,
    ToolStatus,
    UserItem,
)
from openletta.ui.formatting import format_elapsed
from openletta.ui.shown_text import shown_text as searched_text
from openletta.ui.widgets import (
    AssistantMessage,
    ErrorBlock,
    EventDivider,
    ReasoningBlock,
    SystemNote,
    ToolCallCard,
    UndisplayableItem,
    UserMessage,
    make_item_widget,
    tool_card,
)
from openletta.ui.widgets.code_block import CodeBlock
from openletta.ui.widgets.error import error_title
from openletta.ui.widgets.markdown_lists import BulletParagraph
from openletta.ui.widgets.reasoning import summary_line
from openletta.ui.widgets.tool_card import denial_reason

SIZE = (100, 40)


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(tool_card, "clock", fake)
    return fake


def call(name: str, arguments: dict[str, Any] | str = "", **fields: Any) -> ToolCallItem:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCallItem(key=f"call:{name}", name=name, arguments_text=text, **fields)


def squeezed(text: str) -> list[str]:
    """The lines of ``text`` with runs of spaces squeezed to one (header layouts pad)."""
    return [" ".join(line.split()) for line in text.split("\n")]


async def synced(pilot: Pilot[None], widget: Any) -> None:
    widget.sync()
    await pilot.pause()


def document_laid_out(widget: Markdown) -> bool:
    """Every block of the Markdown document has its place on screen (it was laid out)."""
    return bool(widget.children) and all(block.region for block in widget.children)


@pytest.mark.parametrize(("item", "widget_class"), [
    (UserItem(key="u"), UserMessage), (ReasoningItem(key="r"), ReasoningBlock),
    (AssistantItem(key="a"), AssistantMessage), (ToolCallItem(key="t"), ToolCallCard),
    (ErrorItem(key="e"), ErrorBlock), (EventItem(key="v"), EventDivider),
    (SystemItem(key="s"), SystemNote),
])
def test_one_widget_class_per_item_kind(item: Item, widget_class: type) -> None:
    widget = make_item_widget(item)
    assert type(widget) is widget_class
    assert widget.item is item


def test_an_unknown_item_kind_gets_the_could_not_display_card() -> None:
    widget = make_item_widget(Item(key="x"))
    assert isinstance(widget, UndisplayableItem)
    assert "no widget shows Item" in str(widget.error)


@pytest.mark.parametrize(("fields", "expected"), [
    ({"text": "a b c d e f g h i j", "duration": 0.4}, "▸ Thought for <1 s · ~13 tokens"),
    ({"text": "word", "duration": None}, "▸ Thought · ~1 token"),
    ({"hidden": True, "state": "omitted"}, "Reasoning hidden by the provider (omitted)"),
])
def test_reasoning_summary_line(fields: dict[str, Any], expected: str) -> None:
    item = ReasoningItem(key="r", done=True, **fields)
    assert summary_line(item, expanded=False) == expected


@pytest.mark.parametrize(("seconds", "expected"), [(0.4, "0s"), (59.9, "59s"), (125, "2m 05s")])
def test_elapsed_format(seconds: float, expected: str) -> None:
    assert format_elapsed(seconds) == expected


def test_denial_reason_from_the_decision_or_the_result() -> None:
    assert denial_reason(call("x", reason="mine", result="User reason: theirs")) == "mine"
    assert denial_reason(call("x", result="Error: request to call tool denied. "
                                          "User reason: not now")) == "not now"
    assert denial_reason(call("x", result="Error: request to call tool denied.")) is None
    assert denial_reason(call("x", reason=" ")) is None
    assert denial_reason(call("x", reason=NO_REASON)) is None  # as history has it
    for none in ("None", "", " ", NO_REASON):  # a denial without a reason, as the server words it
        assert denial_reason(call("x", result="Error: request to call tool denied. "
                                              f"User reason: {none}")) is None


async def test_user_text_is_never_markup_and_shows_its_controls_as_the_prompt_did() -> None:
    """Escapes pasted into the prompt read there as ``␛``: so in the message sent, where
    ``c`` copies them as they were sent."""
    sent = "look: [bold red]markup[/] \x1b[2J\x1b]0;title\x07done\ttab \ud800"
    item = UserItem(key="u", text=sent)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        message = app.widget_of(item)
        assert shown_text(message) == "▌ look: [bold red]markup[/] ␛[2J␛]0;title␇done    tab ⍰"
        assert searched_text(item) == "look: [bold red]markup[/] ␛[2J␛]0;title␇done\ttab ⍰"
        message.focus()
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard, what="copied")
        assert app.clipboard == sent.replace("\ud800", "\ufffd")  # (UTF-8 has no surrogates)


async def test_a_long_message_folds_until_enter_opens_it() -> None:
    item = UserItem(key="u", text="\n".join(f"line {n}" for n in range(1, 301)))
    short = UserItem(key="s", text="\n".join(f"line {n}" for n in range(1, 13)))
    app = ItemsApp([item, short])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.widget_of(item)
        assert shown_text(widget).split("\n")[-2:] == [
            "▌ line 8", "▌ … 292 more lines — Enter to expand"]
        widget.focus()
        await pilot.press("enter")
        assert widget.size.height == 301
        assert str(widget.render()).split("\n")[-2:] == ["line 300", "Enter folds it"]
        await pilot.press("enter")
        await pilot.pause()
        assert widget.size.height == 9
        assert shown_text(app.widget_of(short)).split("\n")[-1] == "▌ line 12"  # 12 lines: all
        app.widget_of(short).focus()
        await pilot.press("enter")
        assert shown_text(app.widget_of(short)).split("\n")[-1] == "▌ line 12"


async def test_a_long_single_line_folds_by_its_characters() -> None:
    item = UserItem(key="u", text="x" * 20_000)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.widget_of(item)
        assert shown_text(widget).split("\n")[-1] == (
            "▌ … 19,200 more characters — Enter to expand")
        assert widget.size.height < 15  # 800 characters, not the 20,000 (200 rows)
        widget.focus()
        await pilot.press("enter")
        assert widget.size.height > 150


async def test_a_long_summary_folds_under_its_divider_until_enter_opens_it() -> None:
    long = EventItem(key="v", event_type="compaction_summary",
                     text="\n".join(f"point {n}" for n in range(1, 31)))
    short = EventItem(key="w", event_type="compaction_summary", text="one line [b]kept[/b]")
    app = ItemsApp([long, short])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.widget_of(long)
        lines = shown_text(widget).split("\n")
        assert "Compaction summary" in lines[0] and lines[1].strip() == "point 1"
        assert [line.strip() for line in lines[-2:]] == [
            "point 8", "… 22 more lines — Enter to expand"]
        widget.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert [line.strip() for line in shown_text(widget).split("\n")[-2:]] == [
            "point 30", "Enter folds it"]
        quiet = app.widget_of(short)
        assert shown_text(quiet).split("\n")[-1].strip() == "one line [b]kept[/b]"
        quiet.focus()
        await pilot.press("enter")  # nothing folded: nothing to open
        assert isinstance(quiet, EventDivider) and not quiet.expanded


async def test_assistant_streams_then_renders_the_final_text() -> None:
    item = AssistantItem(key="a")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        chunks = ["Here is ", "**code**:\n\n```py", "thon\nprint('hi')\n", "```\n\nBye [b]x[/b]"]
        for chunk in chunks:
            item.text += chunk
            await synced(pilot, widget)
        await wait_until(pilot, lambda: "Bye" in shown_text(widget), what="the stream drawn")
        assert widget.source.startswith("Here is **code**")
        item.done = True
        await synced(pilot, widget)
        await wait_until(pilot, lambda: document_laid_out(widget), what="the final render laid out")
        assert widget.source == item.text
        text = shown_text(widget)
        assert "Here is code:" in text
        assert "print('hi')" in text
        assert "Bye [b]x[/b]" in text


async def test_one_blank_line_parts_a_streamed_reply_from_the_card_after_it() -> None:
    reply = AssistantItem(key="a")
    card = ToolCallItem(key="t", name="bash", arguments_text='{"command": "ls"}',
                        status=ToolStatus.SUCCESS, result="a.txt")
    app = ItemsApp([reply, card])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(reply)
        for chunk in ["Looking ", "around.\n\n- one\n", "- two\n\n", "Then ls:"]:
            reply.text += chunk
            await synced(pilot, widget)
        await wait_until(pilot, lambda: "Then ls:" in shown_text(widget), what="the stream")

        def reply_lines() -> int:
            return widget.region.height + widget.styles.margin.bottom

        streaming = reply_lines()
        reply.done = True
        await synced(pilot, widget)
        await wait_until(pilot, lambda: widget.children[-1].has_class("-trailing"),
                         what="the reply's last block marked")
        await pilot.pause()
        assert reply_lines() == streaming  # what follows does not move as the reply ends
        blocks = list(widget.children)
        assert [block.has_class("-trailing") for block in blocks] == [
            False] * (len(blocks) - 1) + [True]  # only the last block, as blocks arrived
        gap = app.widget_of(card).region.y - blocks[-1].region.bottom
        assert gap == 1  # not two: the last paragraph's margin and the card's


async def test_the_end_of_a_long_reply_restyles_only_what_it_marks(monkeypatch) -> None:
    reply = AssistantItem(key="a")
    app = ItemsApp([reply])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(reply)
        reply.text = "Steps:\n\n" + "".join(f"- step {n}\n" for n in range(40))
        await synced(pilot, widget)
        await wait_until(pilot, lambda: len(widget.children) == 2
                         and len(widget.children[-1].children) == 40, what="the list streamed")
        styled = restyled(app, monkeypatch)
        reply.done = True
        await synced(pilot, widget)
        await wait_until(pilot, lambda: widget.children[-1].has_class("-trailing"),
                         what="the reply's last block marked")
        listed = widget.children[-1]
        assert widget.has_class("-whole")
        # The reply and its list: not the list's 40 items, nor the reply's every block.
        assert widget in styled and listed in styled
        assert not any(node in styled for node in listed.walk_children())


async def test_a_focused_reply_restyles_alone_and_paints_its_items_on_its_background(
        monkeypatch) -> None:
    reply = AssistantItem(key="a", text="Steps:\n\n" + "".join(
        f"- step {n}\n" for n in range(20)), done=True)
    app = ItemsApp([reply])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(reply)
        await wait_until(pilot, lambda: len(widget.query(BulletParagraph)) == 20,
                         what="the list shown")
        app.set_focus(None)  # (not the scroller, which restyles all it holds as it blurs)
        await pilot.pause()
        item = widget.query_one(BulletParagraph)
        before = backgrounds(app, widget, item)
        assert before[0] == before[1]
        styled = restyled(app, monkeypatch)
        widget.focus()
        await wait_until(pilot, lambda: backgrounds(app, widget, item)[0] != before[0],
                         what="the focus background")
        padding, text = backgrounds(app, widget, item)
        assert text == padding, "the items are painted on the focused reply's background"
        assert widget in styled and not any(
            node in styled for node in widget.query(BulletParagraph))
        widget.blur()
        await wait_until(pilot, lambda: backgrounds(app, widget, item) == before, what="unfocused")


async def test_a_reply_opened_again_after_it_ended_goes_on_streaming() -> None:
    """A reply that dropped, and is taken up once the server is back, is open again."""
    item = AssistantItem(key="a")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        item.text, item.done = "First part, ", True
        await synced(pilot, widget)
        await wait_until(pilot, lambda: "First part" in shown_text(widget), what="the end")
        item.done = False
        item.text += "then **the rest**"
        await synced(pilot, widget)
        item.done = True
        await synced(pilot, widget)
        await wait_until(pilot, lambda: "the rest" in shown_text(widget), what="the rest")
        assert widget.source == "First part, then **the rest**"
        assert "First part, then the rest" in shown_text(widget)


async def test_a_streamed_code_fence_survives_a_recompose_without_a_final_render() -> None:
    """The finished reply is not rendered again, so each streamed fence must hold its whole
    code itself: a recompose must not blank it (Textual issue 6518)."""
    item = AssistantItem(key="a")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        for chunk in ["Run:\n\n```python\n", "total = 0\n", "for n in range(3):\n",
                      "    total += n\n", "```\n\nDone."]:
            item.text += chunk
            await synced(pilot, widget)
        item.done = True
        await synced(pilot, widget)
        await wait_until(pilot, lambda: document_laid_out(widget), what="the reply laid out")
        fence = widget.query_one(CodeBlock)
        code = "total = 0\nfor n in range(3):\n    total += n"
        assert fence.code.rstrip("\n") == code
        await fence.recompose()
        await pilot.pause()
        assert all(line in shown_text(fence) for line in code.splitlines())


async def stream_reply(pilot: Pilot[None], widget: AssistantMessage, chunks: list[str]) -> None:
    """Stream ``chunks`` into the reply ``widget`` shows, end it (if any came) and wait until
    it is laid out, ending in "More."."""
    for chunk in chunks:
        widget.item.text += chunk
        await synced(pilot, widget)
    if chunks:
        widget.item.done = True
        await synced(pilot, widget)
    await wait_until(pilot, lambda: document_laid_out(widget) and "More." in shown_text(
        widget), what="the reply laid out")


@pytest.mark.parametrize("streamed", [True, False])
async def test_a_heading_that_opens_a_reply_has_no_gap_above_it_and_later_ones_do(
        streamed: bool) -> None:
    text = "# Title\n\nSome text.\n\n## Later\n\nMore."
    item = AssistantItem(key="a", text="" if streamed else text, done=not streamed)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        await stream_reply(pilot, widget, ["# Ti", "tle\n\nSome", " text.\n\n## Later\n\nMore."]
                           if streamed else [])
        title, text, later, _more = widget.children
        assert title.region.y == widget.content_region.y
        assert text.region.y == title.region.bottom + 1
        assert later.styles.margin.top == 2


class HearingApp(ItemsApp):
    """Notes each table of contents that reaches the app."""

    def __init__(self, items: list[Item]) -> None:
        super().__init__(items)
        self.contents: list[Markdown.TableOfContentsUpdated] = []

    def on_markdown_table_of_contents_updated(
            self, message: Markdown.TableOfContentsUpdated) -> None:
        self.contents.append(message)


async def test_a_reply_sends_no_table_of_contents_up_the_chat() -> None:
    """Textual's Markdown posts its table of contents after every update: a reply has no use
    for one, and each went up through the chat to the app."""
    item = AssistantItem(key="a")
    app = HearingApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        await stream_reply(pilot, widget, ["# Title\n\nSome", " text.\n\n## Later\n\nMore."])
        assert app.contents == []


async def test_assistant_sync_is_coalesced_and_ordered() -> None:
    item = AssistantItem(key="a")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        for word in ["one", "two", "three", "four", "five", "six"]:
            item.text += word + " "
            widget.sync()  # no pause: several syncs pile up
        item.done = True
        widget.sync()
        await wait_until(pilot, lambda: document_laid_out(widget), what="the reply laid out")
        assert widget.source == "one two three four five six "
        assert "one two three four five six" in shown_text(widget)


async def test_assistant_escapes_never_reach_the_markdown() -> None:
    item = AssistantItem(key="a", text="hi \x1b]52;c;SGk=\x07there \x1b[31mred", done=True)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        assert isinstance(widget, AssistantMessage)
        await wait_until(pilot, lambda: widget.source, what="the reply's document written")
        assert widget.source == "hi there red"


async def test_reasoning_streams_then_collapses_and_expands_on_enter() -> None:
    item = ReasoningItem(key="r", text="The user wants")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        await pilot.pause()
        assert shown_text(widget) == " The user wants"
        item.text += " a short greeting, so I will keep it brief"
        item.done, item.duration = True, 3.2
        await synced(pilot, widget)
        assert shown_text(widget) == " ▸ Thought for 3 s · ~16 tokens"
        widget.focus()
        await pilot.press("enter")
        assert shown_text(widget) == (
            " ▾ Thought for 3 s · ~16 tokens\n"
            "   The user wants a short greeting, so I will keep it brief")
        await pilot.click(widget)
        assert shown_text(widget) == " ▸ Thought for 3 s · ~16 tokens"


async def test_only_finished_reasoning_invites_a_click() -> None:
    """The pointer and the brighter hover are for reasoning that expands on a click: not
    while it streams, nor for hidden reasoning."""
    streaming = ReasoningItem(key="r", text="The user wants")
    hidden = ReasoningItem(key="h", text="gAAAAB", hidden=True, state="redacted", done=True)
    app = ItemsApp([streaming, hidden])
    async with app.run_test(size=SIZE) as pilot:
        widget, stub = app.widget_of(streaming), app.widget_of(hidden)
        await pilot.hover(widget)
        await pilot.pause()
        assert widget.styles.pointer == "default"
        resting = widget.styles.color
        streaming.done, streaming.duration = True, 1.0
        await synced(pilot, widget)
        await pilot.hover(stub)
        await pilot.hover(widget)
        await pilot.pause()
        assert widget.styles.pointer == "pointer" and widget.styles.color != resting
        await pilot.hover(stub)
        await pilot.pause()
        assert stub.styles.pointer == "default"


async def test_hidden_reasoning_is_a_stub() -> None:
    item = ReasoningItem(key="r", text="gAAAAB-encrypted", hidden=True, state="redacted",
                         done=True)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.widget_of(item)
        assert shown_text(widget) == " Reasoning hidden by the provider (redacted)"
        assert not widget.can_focus


async def test_a_call_the_turn_never_ran_says_so_with_no_time(clock: FakeClock) -> None:
    item = call("read_file", {"path": "todo.txt"}, status=ToolStatus.RUNNING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await synced(pilot, card)
        clock.now += 2
        item.status = ToolStatus.NOT_RUN  # the agent ran only the first call of its step
        await synced(pilot, card)
        assert card.has_class("-not-run") and card._ticker is None
        assert squeezed(shown_text(card))[0].endswith("todo.txt not run")
        assert "Not run: the agent runs one call at a time" in squeezed(shown_text(card))[-1]


async def test_a_server_call_waiting_with_its_run_shows_no_running_time(
        clock: FakeClock) -> None:
    item = call("bash", {"command": "ls"}, status=ToolStatus.RUNNING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        clock.now += 2
        await wait_until(pilot, lambda: squeezed(shown_text(card))[0].endswith("running 2s"),
                         what="the running time to tick")
        item.status = ToolStatus.WAITING  # the run stopped for another call's approval
        await synced(pilot, card)
        clock.now += 5
        await synced(pilot, card)
        assert squeezed(shown_text(card))[0] == "▌ bash ls runs on server waiting"
        item.status = ToolStatus.NOT_RUN
        await synced(pilot, card)
        assert squeezed(shown_text(card))[0] == "▌ bash ls not run"


async def test_tool_card_streaming_running_success(clock: FakeClock) -> None:
    item = call("bash", status=ToolStatus.STREAMING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        item.arguments_text = '{"comm'
        await synced(pilot, card)
        assert card.has_class("-streaming")
        assert squeezed(shown_text(card)) == ["▌ bash runs on server streaming…"]
        item.arguments_text = '{"command": "ls -'  # shown as far as it arrived
        await synced(pilot, card)
        assert squeezed(shown_text(card)) == ["▌ bash ls - runs on server streaming…",
                                              "▌ $ ls -"]
        item.arguments_text += 'la"}'
        item.status = ToolStatus.RUNNING
        await synced(pilot, card)
        assert card.has_class("-running") and not card.has_class("-streaming")
        assert squeezed(shown_text(card)) == ["▌ bash ls -la runs on server running 0s",
                                              "▌ $ ls -la"]
        clock.now += 3  # the elapsed time ticks once a second while running
        await wait_until(pilot, lambda: squeezed(shown_text(card))[0].endswith("running 3s"),
                         what="the running time to tick")
        assert squeezed(shown_text(card))[0] == "▌ bash ls -la runs on server running 3s"
        clock.now += 4
        item.status, item.result = ToolStatus.SUCCESS, "a.txt\nb.txt\n"
        await synced(pilot, card)
        assert card.has_class("-success")
        assert squeezed(shown_text(card)) == [
            "▌ bash ls -la runs on server ✓ success 7s",
            "▌ $ ls -la",
            "▌ a.txt",
            "▌ b.txt",
            "▌ ✓ done",
        ]
        assert card._ticker is None  # the ticker stopped with the final status
        clock.now += 60
        await pilot.pause()
        assert squeezed(shown_text(card))[0] == "▌ bash ls -la runs on server ✓ success 7s"


async def test_a_file_written_shows_its_path_and_lines_while_its_arguments_stream() -> None:
    item = call("write_file", '{"path": "/p/notes.md", "content": "# Notes\\n\\n- fir',
                status=ToolStatus.STREAMING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await synced(pilot, card)
        assert squeezed(shown_text(card)) == [
            "▌ write_file /p/notes.md (14 bytes, 3 lines) runs on server streaming…",
            "▌ 1 │ # Notes", "▌ 2 │", "▌ 3 │ - fir"]
        assert item.arguments is None  # (the call itself is not whole before it is)
        item.arguments_text += 'st\\u00e9\\n"}'
        item.status = ToolStatus.AWAITING_APPROVAL
        await synced(pilot, card)
        assert squeezed(shown_text(card))[3] == "▌ 3 │ - firsté"


async def test_a_long_file_streaming_counts_its_lines_in_the_fold_until_it_is_whole() -> None:
    lines = "".join(f"line {number}\\n" for number in range(1, 101))
    item = call("write_file", '{"path": "/p/a.txt", "content": "' + lines[:len(lines) // 2],
                status=ToolStatus.STREAMING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await synced(pilot, card)
        first = squeezed(shown_text(card))
        assert first[1:3] == ["▌ 1 │ line 1", "▌ 2 │ line 2"]
        assert first[-1] == "▌ … 43 more lines — Enter to expand"  # 8 shown of 51 so far
        item.arguments_text += lines[len(lines) // 2:]
        await synced(pilot, card)
        assert squeezed(shown_text(card))[-1] == "▌ … 92 more lines — Enter to expand"
        card.toggle_fold()
        await synced(pilot, card)
        assert squeezed(shown_text(card))[-2:] == ["▌ … more lines not shown",
                                                   "▌ ▴ Enter to collapse"]
        item.arguments_text += '"}'
        item.status = ToolStatus.AWAITING_APPROVAL
        await synced(pilot, card)
        assert squeezed(shown_text(card))[-2:] == ["▌ … 80 more lines not shown",
                                                   "▌ ▴ Enter to collapse"]


async def test_arguments_that_are_no_object_stream_as_their_text() -> None:
    item = call("bash", "[1, 2", status=ToolStatus.STREAMING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await synced(pilot, card)
        assert squeezed(shown_text(card)) == ["▌ bash runs on server streaming…", "▌ [1, 2"]


async def test_tool_output_markup_and_escapes_are_literal() -> None:
    item = call("bash", {"command": "echo '[bold]'"}, status=ToolStatus.SUCCESS,
                result="[bold]not bold[/bold] \x1b]52;c;SGk=\x07\x1b[2J\x1b[5;5Hend\n")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "▌ [bold]not bold[/bold] end" in shown_text(app.widget_of(item)).split("\n")


async def test_tool_card_title_is_literal() -> None:
    item = call("[red]evil[/red]", {"a": 1}, status=ToolStatus.SUCCESS, result="ok")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert shown_text(app.widget_of(item)).startswith("▌ [red]evil[/red]  a=1")


async def test_a_folded_card_counts_the_lines_its_output_leaves_out() -> None:
    """300,001 lines of output, of which the card shows 400: folded, it says how many lines
    follow the eight shown (lines 8 to 300,001 and the exit line), those its body leaves out
    included."""
    lines = "".join(f"{n}\n" for n in range(1, 300_002))
    capture = Capture()
    capture.add(lines)
    item = call("Bash", {"command": "seq 300001"}, status=ToolStatus.SUCCESS,
                result=f"Exit code: 0\n{capture.text()}", stdout=[capture.text()])
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hint = shown_text(app.widget_of(item)).split("\n")[-1]
        assert hint == "▌ … 299,995 more lines — Enter to expand"


async def test_long_body_folds_and_expands_on_enter() -> None:
    output = "\n".join(f"line {n}" for n in range(1, 31))
    item = call("bash", {"command": "seq"}, status=ToolStatus.SUCCESS, result=output)
    app = ItemsApp([item])
    async with app.run_test(size=(100, 50)) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        lines = shown_text(card).split("\n")
        assert lines[1:] == ["▌ $ seq", *[f"▌ line {n}" for n in range(1, 8)],
                             "▌ … 24 more lines — Enter to expand"]
        card.focus()
        await pilot.press("enter")
        lines = shown_text(card).split("\n")
        assert lines[-3:] == ["▌ line 30", "▌ ✓ done", "▌ ▴ Enter to collapse"]
        await pilot.press("enter")
        assert len(shown_text(card).split("\n")) == 10


async def test_short_body_does_not_fold() -> None:
    item = call("bash", {"command": "true"}, status=ToolStatus.SUCCESS, result="")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        assert not card.has_class("-foldable")
        card.focus()
        await pilot.press("enter")
        assert not card.expanded


async def test_denied_card_shows_the_reason() -> None:
    item = call("bash", {"command": "rm -rf /"}, status=ToolStatus.DENIED, needs_approval=True,
                approved=False, result="Error: request to call tool denied. User reason: no way")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        assert card.has_class("-denied")
        assert shown_text(card).split("\n")[1:] == ["▌ $ rm -rf /", "▌ ⊘ Denied: no way"]
        # Denied, it ran nowhere: history cannot tell whether it was a server's or a client's.
        assert "runs on server" not in shown_text(card).split("\n")[0]
        item.status, item.approved = ToolStatus.AWAITING_APPROVAL, None
        await synced(pilot, card)
        assert "runs on server" in shown_text(card).split("\n")[0]


async def test_muted_parts_of_a_card_look_like_muted_text(clock: FakeClock) -> None:
    """The call's summary (a renderer's muted style) is as dim as the elapsed time (CSS)."""
    item = call("bash", {"command": "make"}, status=ToolStatus.RUNNING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        header = app.screen._compositor.render_strips()[card.region.y]
        colours = {segment.text: segment.style.color for segment in header}
        assert colours["make"] == colours["0s"]
        assert colours["make"] != colours["bash"]


async def test_auto_approved_badge_and_no_open_prompt() -> None:
    item = call("edit_file", {"path": "a", "old": "x", "new": "y"},
                status=ToolStatus.AWAITING_APPROVAL, needs_approval=True)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        assert isinstance(card, ToolCallCard)
        await pilot.pause()
        assert "awaiting approval" in shown_text(card).split("\n")[0]
        assert "auto-approved" not in shown_text(card)
        assert not card.busy
        item.approved, item.auto_approved, item.status = True, True, ToolStatus.RUNNING
        await synced(pilot, card)
        assert "auto-approved" in shown_text(card).split("\n")[0]


async def test_a_narrow_card_keeps_its_tool_and_path_and_drops_badges_first(
        clock: FakeClock) -> None:
    item = call("edit_file", {"path": "/home/demo/project/src/greeting.py", "old": "x",
                              "new": "y"}, status=ToolStatus.RUNNING, approved=True,
                auto_approved=True)
    app = ItemsApp([item])
    async with app.run_test(size=(120, 10)) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        wide = shown_text(card).split("\n")[0]
        assert "greeting.py" in wide and "auto-approved" in wide and "running" in wide
        await pilot.resize_terminal(44, 10)
        await pilot.pause()
        narrow = shown_text(card).split("\n")[0]
        # (the path keeps its end, the file's name)
        assert narrow.startswith("▌ edit_file  …") and "greeting.py" in narrow
        assert "running" in narrow
        assert "0s" not in narrow


@pytest.mark.parametrize(("runs_here", "place"), [(True, "⌂ runs here"),
                                                  (False, "runs on server")])
async def test_a_narrow_card_waiting_for_approval_keeps_where_it_runs(
        runs_here: bool, place: str) -> None:
    """At 60 columns an approval's card keeps where the call would run, its most important
    badge (its prompt says that it waits), and the tool and the start of the command."""
    item = call("Bash", {"command": "for i in 1 2 3; do echo line $i; sleep 0.5; done"},
                status=ToolStatus.AWAITING_APPROVAL, needs_approval=True, runs_here=runs_here)
    app = ItemsApp([item])
    async with app.run_test(size=(60, 10)) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        title = shown_text(card).split("\n")[0]
        assert title.startswith("▌ Bash  for i in 1 2 3") and title.rstrip().endswith(place)


async def test_edit_card_goes_side_by_side_when_wide() -> None:
    item = call("edit_file", {"path": "a.py", "old": "x = 1", "new": "x = 2"},
                status=ToolStatus.SUCCESS, result="edited a.py")
    app = ItemsApp([item])
    async with app.run_test(size=(90, 20)) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        assert shown_text(card).split("\n")[1:3] == ["▌ - x = 1", "▌ + x = 2"]
        await pilot.resize_terminal(140, 20)
        await pilot.pause()
        assert " │ " in shown_text(card).split("\n")[1]


async def test_card_follows_a_late_tool_name() -> None:
    item = call("", '{"path": "/a.py"}', status=ToolStatus.STREAMING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        await pilot.pause()
        item.name, item.status, item.result = "read_file", ToolStatus.SUCCESS, "x = 1"
        await synced(pilot, card)
        assert shown_text(card).split("\n")[1] == "▌ 1 │ x = 1"


async def test_error_block_has_title_message_and_folded_detail() -> None:
    item = ErrorItem(key="e", error_type="llm_error", message="The model [b]failed[/b]",
                     detail="Traceback: line 1")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = shown_text(app.widget_of(item))
        assert text.split("\n")[:2] == ["▌ ✗ LLM error", "▌ The model [b]failed[/b]"]
        assert "Traceback" not in text
        app.widget_of(item).focus()
        await pilot.press("enter")  # on the focused error: its detail
        await pilot.pause()
        assert "Traceback: line 1" in shown_text(app.widget_of(item))


async def test_event_is_a_divider_and_a_long_summary_goes_below() -> None:
    short = EventItem(key="c", event_type="compaction", text="Compacting context")
    summary = EventItem(key="s", event_type="summary", text="The user asked for things.\n" * 3)
    app = ItemsApp([short, summary])
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert squeezed(shown_text(app.widget_of(short))) == [
            f"{'─' * 19} Compacting context {'─' * 19}"]
        lines = shown_text(app.widget_of(summary)).split("\n")
        assert squeezed(lines[0]) == [f"{'─' * 24} Summary {'─' * 25}"]
        assert lines[1] == "  The user asked for things."


async def test_system_note_is_collapsed() -> None:
    item = SystemItem(key="s", text="You are a helpful agent.", subtype="system")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = shown_text(app.widget_of(item))
        assert "System prompt" in text
        assert "helpful" not in text


# --- snapshots -------------------------------------------------------------------------------

SNAPSHOT_SIZE = (100, 24)
LS_OUTPUT = ("total 8\n\x1b[1;34mdrwxr-xr-x\x1b[0m  2 user user 4096 \x1b[01;34msrc\x1b[0m\n"
             "-rw-r--r--  1 user user   28 \x1b[32mhello.txt\x1b[0m\n")
PYTHON = ('import sys\n\n\ndef main() -> int:\n    """Say hello."""\n'
          '    print("hello", 42)\n    return 0\n')

SNAPSHOT_ITEMS: dict[str, list[Item]] = {
    "bash_success_ansi": [call("bash", {"command": "ls -l --color=always | head"},
                               status=ToolStatus.SUCCESS, result=LS_OUTPUT)],
    "read_file": [call("read_file", {"path": "/home/user/project/main.py"},
                       status=ToolStatus.SUCCESS, result=PYTHON)],
    "edit_diff": [call("edit_file", {"path": "/home/user/project/main.py",
                                     "old": 'print("hello", 42)\n    return 0',
                                     "new": 'print("goodbye")\n    return 1'},
                       status=ToolStatus.SUCCESS, result="edited /home/user/project/main.py")],
    "write_file": [call("write_file", {"path": "/home/user/project/hello.txt",
                                       "content": "hello from the fake model\n"},
                        status=ToolStatus.SUCCESS,
                        result="wrote 26 bytes to /home/user/project/hello.txt")],
    "generic": [call("create_ticket", {"title": "Printer on floor 2 is jammed",
                                       "priority": "high"},
                     status=ToolStatus.SUCCESS, result='{"id": "T-1042", "status": "open"}')],
    "memory": [call("memory_replace", {"label": "human", "old_string": "Their name is Alice",
                                       "new_string": "Their name is Bob"},
                    status=ToolStatus.SUCCESS, result="None")],
    "conversation_search": [call("conversation_search", {"query": "greeting", "limit": 5},
                                 status=ToolStatus.SUCCESS, result=content.SEARCH_RESULT)],
    "archival_search": [call("archival_memory_search", {"query": "openletta", "top_k": 5},
                             status=ToolStatus.SUCCESS, result=content.ARCHIVAL_RESULT)],
    "archival_insert": [call("archival_memory_insert", {"content": content.ARCHIVE_PASSAGE,
                                                        "tags": ["demo", "notes"]},
                             status=ToolStatus.SUCCESS, result="None")],
    "web_search": [call("web_search", {"query": "letta stateful agents"},
                        status=ToolStatus.SUCCESS, result=content.WEB_RESULT)],
    "fetch_webpage": [call("fetch_webpage", {"url": content.PAGE_URL},
                           status=ToolStatus.SUCCESS, result=content.PAGE_RESULT)],
    "run_code": [call("run_code", {"language": "python", "code": content.CODE},
                      status=ToolStatus.SUCCESS, result=content.CODE_RESULT)],
    "send_message": [call("send_message", {"message": content.LEGACY_REPLY},
                          status=ToolStatus.SUCCESS, result="None")],
    "error": [ErrorItem(key="e", error_type="llm_error", message="The model provider timed out.",
                        detail="upstream 504")],
    "denied": [call("bash", {"command": "rm -rf build"}, status=ToolStatus.DENIED,
                    needs_approval=True, approved=False, reason="not now, thanks")],
    "conversation": [
        UserItem(key="u", text="Read main.py and say hi"),
        ReasoningItem(key="r", text="I should read the file first.", done=True, duration=2.0),
        AssistantItem(key="a", text="Done. The file has a **main** function:\n\n"
                      "```python\ndef main():\n    return 0\n```", done=True),
        EventItem(key="v", text="Compacting context (12,000 of 30,000 tokens)"),
    ],
}


@pytest.mark.parametrize("name", list(SNAPSHOT_ITEMS))
def test_snapshot(name: str, snap_compare: Any) -> None:
    app = ItemsApp(SNAPSHOT_ITEMS[name])
    assert snap_compare(app, terminal_size=SNAPSHOT_SIZE, run_before=_settle)


def test_snapshot_edit_side_by_side(snap_compare: Any) -> None:
    app = ItemsApp(SNAPSHOT_ITEMS["edit_diff"])
    assert snap_compare(app, terminal_size=(130, 12), run_before=_settle)


async def _settle(pilot: Pilot[None]) -> None:
    """Wait until every item's widget, and every Markdown document among them, is laid out."""
    app = pilot.app
    assert isinstance(app, ItemsApp)

    def laid_out() -> bool:
        widgets = [app.widget_of(item) for item in app.items]
        return all(widget.region for widget in widgets) and all(
            document_laid_out(widget) for widget in widgets if isinstance(widget, Markdown))

    await wait_until(pilot, laid_out, what="every item laid out")


@pytest.mark.parametrize(("error_type", "title"), [
    ("llm_api_error", "LLM API error"), ("stream_dropped", "Stream dropped"), ("", "Error"),
    ("internal_server_error", "Internal server error"),
])
def test_error_titles_read_naturally(error_type: str, title: str) -> None:
    assert error_title(error_type) == title


async def test_tab_focuses_the_error_not_its_details_title(wait_until) -> None:
    """The error keeps the focus, so the key bar offers Enter for its detail (the detail's
    own title, focusable, hid it)."""
    item = ErrorItem(key="e", error_type="llm_error", message="The model failed",
                     detail="Traceback: line 1")
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        widget = app.widget_of(item)
        await wait_until(pilot, lambda: widget.query("CollapsibleTitle"), what="the detail")
        assert [type(node).__name__ for node in app.screen.focus_chain] == [
            "VerticalScroll", "ErrorBlock"]  # (the test's scroller takes the focus too)
        widget.focus()
        await wait_until(pilot, lambda: app.focused is widget, what="the error focused")
        enter = app.screen.active_bindings["enter"]
        assert enter.binding.description == "Expand" and enter.node is widget


async def test_a_long_call_never_run_says_why_above_its_fold(clock: FakeClock) -> None:
    item = call("write_file", {"path": "notes.md", "content": "line\n" * 40},
                status=ToolStatus.RUNNING)
    app = ItemsApp([item])
    async with app.run_test(size=SIZE) as pilot:
        card = app.widget_of(item)
        item.status = ToolStatus.NOT_RUN  # the agent ran only the first call of its step
        await synced(pilot, card)
        assert card.can_fold() and not card.expanded
        assert "Not run: the agent runs one call at a time" in squeezed(shown_text(card))[1]
