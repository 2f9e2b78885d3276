"""Keys on an approval prompt: a choice's key answers it, typing (a burst of keys, a paste)
goes on to the message and answers nothing."""

from __future__ import annotations

import json

import pytest
from textual import events
from textual.app import App, ComposeResult

from openletta.chat.approvals import Choice
from openletta.transcript import ToolCallItem
from openletta.ui.prompt import TypedElsewhere
from openletta.ui.themes import ThemeVariables
from openletta.ui.widgets import WIDGETS_CSS_PATH
from openletta.ui.widgets.approval import RESEND, ApprovalPrompt


class KeysApp(ThemeVariables, App[None]):
    """One armed approval prompt; keeps its answers and what it handed on."""

    CSS_PATH = WIDGETS_CSS_PATH

    def __init__(self, outside: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.now = 100.0
        call = ToolCallItem(key="call:1", name="bash", tool_call_id="call-1",
                            arguments_text=json.dumps({"command": "ls"}))
        self.prompt = ApprovalPrompt(call, clock=lambda: self.now, outside=outside)
        self.answers: list[Choice] = []
        self.typed: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.prompt

    def on_mount(self) -> None:
        self.prompt.focus_choices()
        self.now += ApprovalPrompt.GUARD_SECONDS  # the keyboard was quiet since it appeared

    def on_approval_prompt_answered(self, answer: ApprovalPrompt.Answered) -> None:
        self.answers.append(answer.choice)

    def on_typed_elsewhere(self, typed: TypedElsewhere) -> None:
        self.typed.append(typed.character or typed.key)


async def test_a_choice_key_alone_answers(wait_until) -> None:
    app = KeysApp()
    async with app.run_test() as pilot:
        await pilot.press("y")
        await wait_until(pilot, lambda: bool(app.answers), what="the answer")
    assert app.answers == [Choice.APPROVE] and app.typed == []


async def test_a_burst_of_keys_is_a_message_even_when_it_holds_or_starts_with_choices(
        wait_until) -> None:
    for burst in ("what", "all good", "xyz", "no\u00a0way\u200d"):  # (not isprintable)
        app = KeysApp()
        async with app.run_test() as pilot:
            options = app.prompt.query_one("OptionList")
            for character in burst:  # read at once, as from a terminal: queued together
                options.post_message(events.Key(character, character))
            await wait_until(pilot, lambda: len("".join(app.typed)) == len(burst),  # noqa: B023
                             what="the burst handed on")
            assert not app.prompt.choice_pending
        assert "".join(app.typed) == burst and app.answers == []


async def test_a_paste_is_a_message(wait_until) -> None:
    app = KeysApp()
    async with app.run_test() as pilot:
        app.prompt.query_one("OptionList").post_message(events.Paste("ok wait"))
        await wait_until(pilot, lambda: app.typed == ["ok wait"], what="the paste handed on")
    assert app.answers == []


async def test_a_call_that_ran_can_only_be_sent_again(wait_until) -> None:
    app = KeysApp()
    app.prompt = ApprovalPrompt(app.prompt.call, here="~/project", ran=True,
                                clock=lambda: app.now)
    async with app.run_test() as pilot:
        options = app.prompt.query_one("OptionList")
        assert [str(options.get_option_at_index(index).prompt)
                for index in range(options.option_count)] == [f"y/1   {RESEND}"]
        await pilot.press("n")  # no Deny: the letter is a message's
        app.now += ApprovalPrompt.GUARD_SECONDS  # the keyboard went quiet
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.answers), what="the answer")
    assert app.answers == [Choice.APPROVE] and app.typed == ["n"]


@pytest.mark.parametrize(("outside", "key", "answer"), [
    ((), "2", Choice.APPROVE_FOR_SESSION), ((), "4", Choice.DENY),
    (("/etc/hosts",), "2", Choice.DENY), (("/etc/hosts",), "1", Choice.APPROVE)])
async def test_the_choices_shown_are_numbered_one_after_another(
        wait_until, outside: tuple[str, ...], key: str, answer: Choice) -> None:
    """A call that reaches outside the directory is offered Approve and Deny only: 1 and 2
    (no number is skipped for a choice not shown; 1 approves on every prompt)."""
    app = KeysApp(outside)
    async with app.run_test() as pilot:
        options = app.prompt.query_one("OptionList")
        await wait_until(pilot, lambda: options.option_count > 0, what="the choices")
        numbers = [str(options.get_option_at_index(index).prompt)[2]
                   for index in range(options.option_count)]
        assert numbers == [str(number) for number in range(1, len(numbers) + 1)]
        await pilot.press(key)
        if answer is Choice.DENY:  # (it asks why first: Enter sends no reason)
            await wait_until(pilot, lambda: app.prompt.query_one(".approval-reason").display,
                             what="the reason field")
            await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.answers), what="the answer")
    assert app.answers == [answer]


async def test_a_digit_of_a_choice_not_offered_answers_nothing(wait_until) -> None:
    app = KeysApp(("/etc/hosts",))
    async with app.run_test() as pilot:
        await pilot.press("3")
        app.now += 1  # (not a burst of typing)
        await pilot.press("y")
        await wait_until(pilot, lambda: bool(app.answers), what="the answer")
    assert app.answers == [Choice.APPROVE]


async def test_a_choice_too_long_for_the_line_wraps_under_its_label(wait_until) -> None:
    """On a narrow terminal the rest of a long choice lines up under its first words, not
    under the keys (which stay alone at the left)."""
    app = KeysApp()
    async with app.run_test(size=(48, 20)) as pilot:
        options = app.prompt.query_one("OptionList")
        await wait_until(pilot, lambda: options.option_count > 0, what="the choices")
        lines = [strip.text for strip in options.render_lines(options.size.region)]
        start = next(index for index, line in enumerate(lines) if "s/2" in line)
        first, rest = lines[start], lines[start + 1]
        label_at = first.index("Approve")
        assert rest[:label_at].strip() == "" and rest[label_at] != " "
        assert "s/2" not in rest and "a/3" not in rest
