"""An approval prompt stays in view on a small terminal: its choices when it appears and
after a resize, the reason field or the command editor once opened (as it wraps and grows,
or its cursor's line)."""

from __future__ import annotations

import pytest
from chat_helpers import choose, demo_chat
from test_approvals import prompt_focused
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList, Static

from openletta.chat.local_calls import LocalCalls
from openletta.demo import script
from openletta.ui.in_view import scroll_target
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.widgets.approval import ApprovalPrompt, CommandEditor
from openletta.ui.widgets.tool_card import CardHeader, ToolCallCard


@pytest.fixture(autouse=True)
def no_typing_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalPrompt, "GUARD_SECONDS", 0.0)


def in_view(screen: ChatScreen, part: Widget) -> bool:
    """Whether all of ``part`` is inside the chat's visible rows."""
    return screen.view.scroll.scrollable_content_region.contains_region(part.region)


async def wait_in_view(pilot: Pilot[None], screen: ChatScreen, part: Widget, wait_until,
                       what: str) -> None:
    await wait_until(pilot, lambda: part.region.height > 0 and in_view(screen, part),
                     what=f"{what} in view")


async def ask(pilot: Pilot[None], screen: ChatScreen, text: str,
              wait_until) -> tuple[ApprovalPrompt, OptionList]:
    """Send ``text``; the approval prompt it leads to, once its choices are in view."""
    await pilot.press(*text, "enter")
    prompt = await prompt_focused(pilot, screen, wait_until)
    options = prompt.query_one(OptionList)
    await wait_in_view(pilot, screen, options, wait_until, "the choices")
    return prompt, options


async def test_the_approval_shows_its_choices_and_the_call_above_them_when_it_fits(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    """The choices always show; above them, the card from its top (the command: what is
    approved) once the card's top through the choices fits, though the card does not."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(60, 15),
                         local=local) as (_, pilot, screen):
        prompt, options = await ask(pilot, screen, "disk", wait_until)  # Bash, run here
        card = screen.view.widget_for(prompt.call)
        assert isinstance(card, ToolCallCard)
        header = card.query_one(CardHeader)
        assert not in_view(screen, header)  # the choices need all the rows there are
        what = prompt.query_one(".approval-what")  # (shown while the header is above)
        assert what.display
        through_choices = options.region.bottom - card.region.y - what.region.height
        rows = screen.view.scroll.scrollable_content_region.height
        await pilot.resize_terminal(60, 15 + through_choices - rows)
        await wait_in_view(pilot, screen, options, wait_until, "the choices, resized")
        await wait_in_view(pilot, screen, header, wait_until, "the card's header (the call)")
        assert not what.display  # (said once: in the header)
        assert card.region.height > screen.view.scroll.scrollable_content_region.height


async def test_after_a_resize_the_approval_shows_its_choices_and_the_field_opened(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    """At 50x16 the card is taller than the chat: its choices are shown, not its top only;
    Deny's reason field and Edit's command editor are brought into view as they open."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(120, 40),
                         local=local) as (app, pilot, screen):
        await pilot.resize_terminal(50, 16)
        prompt, options = await ask(pilot, screen, "disk", wait_until)
        card = screen.view.widget_for(prompt.call)
        assert isinstance(card, ToolCallCard)
        assert card.region.height > screen.view.scroll.scrollable_content_region.height
        what = prompt.query_one(".approval-what", Static)  # the card's header is above
        await wait_in_view(pilot, screen, what, wait_until, "what is approved")
        assert str(what.render()) == "Bash  du -sh ."
        await choose(pilot, "n", wait_until)
        reason = prompt.query_one(".approval-reason")
        assert app.focused is reason
        await wait_in_view(pilot, screen, reason, wait_until, "the reason field")
        await pilot.press("escape")  # back to the choices, to edit the command instead
        await wait_until(pilot, lambda: app.focused is options, what="the choices focused")
        await choose(pilot, "e", wait_until)
        editor = prompt.query_one(CommandEditor)
        assert app.focused is editor
        await wait_in_view(pilot, screen, editor, wait_until, "the command editor")


async def test_a_resize_while_the_approval_waits_keeps_its_choices_and_field_in_view(
        demo_server, make_app, wait_until) -> None:
    """Two calls wait: the prompt is on the first card, above the second one, so the bottom
    of the chat (where a resized view stays) is not where the prompt is."""
    async with demo_chat(make_app, demo_server.base_url, wait_until,
                         size=(120, 40)) as (_, pilot, screen):
        prompt, options = await ask(pilot, screen, "parallel", wait_until)
        await pilot.resize_terminal(60, 14)
        await wait_in_view(pilot, screen, options, wait_until, "the choices, resized")
        await choose(pilot, "n", wait_until)
        reason = prompt.query_one(".approval-reason")
        await wait_in_view(pilot, screen, reason, wait_until, "the reason field")
        await pilot.resize_terminal(120, 40)
        await pilot.resize_terminal(60, 14)
        await wait_in_view(pilot, screen, reason, wait_until, "the reason field, resized")


async def test_a_field_opened_below_the_view_is_brought_into_view(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    """Scrolled up to read the call (its choices below the view), the user denies: the
    reason field opens below the view, and the view goes to it."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(50, 16),
                         local=local) as (_, pilot, screen):
        prompt, options = await ask(pilot, screen, "disk", wait_until)
        scroll = screen.view.scroll
        scroll.scroll_to(y=scroll.scroll_y - 8, animate=False)  # as the wheel does
        await wait_until(pilot, lambda: not in_view(screen, options), what="scrolled up")
        await choose(pilot, "n", wait_until)
        reason = prompt.query_one(".approval-reason")
        await wait_in_view(pilot, screen, reason, wait_until, "the reason field")


def test_what_shows_of_an_item_and_its_part_in_order_of_preference() -> None:
    item, part = (10, 30), (20, 26)  # rows 10 to 29, the part 20 to 25
    assert scroll_target(0, 25, item, part) == 5  # the item whole, by the least scroll
    assert scroll_target(12, 25, item, part) == 10
    assert scroll_target(0, 16, item, part) == 10  # from its top through the part
    assert scroll_target(0, 10, item, part) == 16  # the part, ending on the last row
    assert scroll_target(18, 10, item, part) == 18  # (already there: nothing moves)
    assert scroll_target(0, 4, item, part) == 20  # taller than the view: from its top


LONG_COMMAND = "for i in 1 2 3; do echo line $i; sleep 0.5; done; echo the loop has ended"


@pytest.fixture
def long_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's Bash call (``disk``) asks to run a command that wraps at 60 columns."""
    scripted = script.ScriptedCall

    def call(name: str, arguments: dict[str, object], *rest: object,
             **options: object) -> script.ScriptedCall:
        if name == "Bash":
            arguments = {"command": LONG_COMMAND}
        return scripted(name, arguments, *rest, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(script, "ScriptedCall", call)


async def test_the_command_editor_opens_whole_in_view_on_a_command_that_wraps(
        demo_server, make_app, wait_until, local: LocalCalls, long_command: None) -> None:
    """At 60x20 the editor of a command that wraps shows whole when it opens, and its
    cursor's line as it grows with what is typed."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(60, 20),
                         local=local) as (app, pilot, screen):
        prompt, _ = await ask(pilot, screen, "disk", wait_until)
        await choose(pilot, "e", wait_until)
        editor = prompt.query_one(CommandEditor)
        assert app.focused is editor and editor.text == LONG_COMMAND
        await wait_until(pilot, lambda: editor.wrapped_document.height > 1, what="wrapped")
        await wait_in_view(pilot, screen, editor, wait_until, "the whole editor")
        await pilot.press("end", *" && echo one more line of typing")
        await wait_until(pilot, lambda: editor.wrapped_document.height > 2, what="grown")
        await wait_in_view(pilot, screen, editor, wait_until, "the grown editor")


async def test_the_cursor_line_of_an_editor_taller_than_the_chat_stays_in_view(
        demo_server, make_app, wait_until, local: LocalCalls, long_command: None) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(40, 14),
                         local=local) as (_, pilot, screen):
        prompt, _ = await ask(pilot, screen, "disk", wait_until)
        await choose(pilot, "e", wait_until)
        editor = prompt.query_one(CommandEditor)
        await pilot.press("end", *(" && echo more" * 6))
        chat = screen.view.scroll.scrollable_content_region

        def cursor_in_view() -> bool:
            return (editor.region.height > chat.height // 2
                    and chat.y <= editor.cursor_screen_offset.y < chat.bottom)

        await wait_until(pilot, cursor_in_view, what="the cursor's line in view")
