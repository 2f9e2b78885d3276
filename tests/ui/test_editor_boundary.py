"""Every text field shows the control characters of what it holds as pictures (a server's
escape sequences never reach the terminal) and hands on the text as it came: a memory block
edited, a prompt recalled or pasted, a command edited before it runs. What is typed is what
a paste has (a no-break space, an emoji's joiners)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from chat_helpers import open_chat
from test_local_tools_ui import command_edited
from test_memory_panel import blocks, edit, stored
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from openletta.chat.approvals import Choice
from openletta.ui.memory_block import BlockView
from openletta.ui.prompt import Prompt
from openletta.ui.steady import SteadyInput
from openletta.ui.widgets.approval import ApprovalPrompt

#: What a text field's document must never hold: controls but newline and tab, DEL, C1,
#: line breaks Python splits lines at, lone surrogates, characters that reorder or hide text.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
                       "\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
#: A server's text that would clear the screen, set the window title, and more.
HOSTILE = ("red \x1b[31mRED\x1b[0m\nclear \x1b[2J\x1b[H end\ntitle \x1b]2;PWNED\x07 end\n"
           "c1 \x9b1m cr\rvt\x0bls\u2028end")
HOSTILE_SHOWN = ("red ␛[31mRED␛[0m\nclear ␛[2J␛[H end\ntitle ␛]2;PWNED␇ end\n"
                 "c1 ⍰1m cr␍vt␋ls␤end")
#: Typed, not pasted: characters Textual's text area would not type.
TYPED = "zwj 👨\u200d👩\u200d👧 nbsp\u00a0x zw\u200bsp 🫨"


def drawn(area: TextArea) -> str:
    """What the text area writes to the terminal, line by line."""
    return "\n".join(area.render_line(y).text for y in range(area.content_size.height))


def shown_value(view: BlockView) -> str:
    """The text a memory block's value shows in the panel (not edited)."""
    return str(view.query_one(".memory-value", Static).visual)


async def type_keys(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` a key per character, as the terminal's parser reports them."""
    for character in text:
        name = character if character.isalnum() else unicodedata.name(
            character, f"u{ord(character):x}").lower().replace(" ", "_").replace("-", "_")
        pilot.app.post_message(events.Key(name, character))
    await pilot.pause()


async def test_a_block_with_escapes_is_edited_as_pictures_and_saved_as_it_came(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_chat(pilot, wait_until)
        agent = screen.session.agent.id
        await stored(demo_server.base_url, agent, "human", HOSTILE)
        await pilot.press("f2")
        await wait_until(pilot, lambda: "human" in blocks(screen.memory))
        human = blocks(screen.memory)["human"]
        assert shown_value(human) == HOSTILE_SHOWN  # as its editor will show it
        human.focus()
        editor = await edit(pilot, wait_until)
        await wait_until(pilot, lambda: editor.size.height > 1, what="the editor laid out")
        assert editor.text == HOSTILE_SHOWN
        assert "␛]2;PWNED␇" in drawn(editor) and not FORBIDDEN.search(drawn(editor))
        await pilot.press("ctrl+s")  # nothing edited: nothing changes
        await wait_until(pilot, lambda: not human.editing, what="saved")
        assert await stored(demo_server.base_url, agent, "human") == HOSTILE
        editor = await edit(pilot, wait_until)
        await pilot.press("!", "ctrl+s")
        await wait_until(pilot, lambda: not human.editing, what="saved")
        assert await stored(demo_server.base_url, agent, "human") == f"{HOSTILE}!"


class PromptApp(App[None]):
    """A prompt and a one-line field; keeps what the prompt sends."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield Prompt(id="prompt")
        yield SteadyInput(id="field")

    def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        self.sent.append(event.text)


async def test_a_recalled_or_pasted_prompt_shows_pictures_and_sends_the_text(
        wait_until) -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        prompt.remember(HOSTILE)
        await pilot.press("up")
        await wait_until(pilot, lambda: prompt.text == HOSTILE_SHOWN, what="recalled")
        assert not FORBIDDEN.search(drawn(prompt))
        await pilot.press("enter")
        prompt.post_message(events.Paste("abc\x1b[31mdef"))  # ESC as the terminal sent it
        await wait_until(pilot, lambda: prompt.text == "abc␛[31mdef", what="pasted")
        await pilot.press("up", "down", "enter")  # the draft comes back as it was
        prompt.post_message(events.Paste("one\r\ntwo\rthree"))  # the terminal's line breaks
        await wait_until(pilot, lambda: prompt.text == "one\ntwo\nthree", what="pasted")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.sent) == 3, what="sent")
    assert app.sent == [HOSTILE, "abc\x1b[31mdef", "one\ntwo\nthree"]


async def test_a_pasted_bidi_override_is_pictured_in_the_prompt_and_sent_as_it_came(
        wait_until) -> None:
    """Text after a right-to-left override is not drawn reversed while it is edited: the
    prompt pictures what the chat shows as ``⟨U+202E⟩`` (zero-width spaces too)."""
    app = PromptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        prompt.post_message(events.Paste("bidi \u202eabc def\u202c zw\u200bx"))
        await wait_until(pilot, lambda: prompt.text == "bidi ⍰abc def⍰ zw⍰x", what="pasted")
        assert not FORBIDDEN.search(drawn(prompt))
        await pilot.press("left", "backspace", "enter")  # deletes the zero-width space
        await wait_until(pilot, lambda: app.sent, what="sent")
    assert app.sent == ["bidi \u202eabc def\u202c zwx"]


async def test_a_one_line_field_pictures_a_bidi_override_as_the_prompt_does(
        wait_until) -> None:
    """A filter, a search or a denial's reason is not drawn reversed after a right-to-left
    override either: the field holds ``⍰`` for it (what it filters by, a reason sent)."""
    app = PromptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        field = app.query_one(SteadyInput)
        field.focus()
        field.post_message(events.Paste("bidi \u202eabc def\u202c zw\u200bx"))
        await wait_until(pilot, lambda: field.value == "bidi ⍰abc def⍰ zw⍰x", what="pasted")
        await type_keys(pilot, "\u2067!")
        await wait_until(pilot, lambda: field.value.endswith("⍰!"), what="typed")
        assert not FORBIDDEN.search(field.render_line(0).text)


async def test_typed_characters_arrive_as_a_paste_has_them(wait_until) -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one(Prompt).focus()
        await type_keys(pilot, TYPED)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.sent, what="sent")
        assert app.sent == [TYPED]
        field = app.query_one(SteadyInput)
        field.focus()
        await type_keys(pilot, "a\u00a0b\u200d")
        field.post_message(events.Paste("c\x1b[2Jd"))
        await wait_until(pilot, lambda: field.value == "a\u00a0b\u200dc␛[2Jd", what="typed")


async def test_a_command_with_escapes_is_edited_as_pictures_and_runs_as_it_came(
        wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)  # answers at once
    command = "printf '\x1b]2;PWNED\x07'\necho done"
    async with command_edited(command, wait_until) as (app, pilot, editor):
        assert editor.text == "printf '␛]2;PWNED␇'\necho done"
        assert not FORBIDDEN.search(drawn(editor))
        editor.post_message(events.Paste(" \x1b[1m"))  # stays in the editor
        await wait_until(pilot, lambda: editor.text.endswith(" ␛[1m"), what="pasted")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.answers, what="answered")
    (answer,) = app.answers
    assert answer.choice is Choice.EDIT and answer.edited == f"{command} \x1b[1m"
    assert app.typed == []  # (nothing of it went on to the message)
