"""Editing in the prompt: undo and redo of a long paste, the keys the help lists, and what an
error that ends the app leaves of the text typed."""

from __future__ import annotations

import argparse

import pytest
from chat_helpers import open_chat
from rich.console import Console
from textual import events
from textual.app import App, ComposeResult

from openletta.config import Server
from openletta.settings import Settings
from openletta.ui import launch
from openletta.ui.app import OpenLettaApp
from openletta.ui.prompt import Prompt
from openletta.ui.screens.help import help_table
from openletta.ui.steady import SteadyTextArea
from openletta.ui.widgets.approval import CommandEditor

PASTED = "\n".join(f"line {number}" for number in range(12))


class TallestPromptApp(App[None]):
    CSS = "Prompt { height: auto; max-height: 4; }"  # as the chat's, at its tallest

    def compose(self) -> ComposeResult:
        yield Prompt()


async def test_undo_and_redo_of_a_paste_taller_than_the_prompt(wait_until) -> None:
    """Undo shrinks the text below the prompt's height (its scrollbar goes) while the cursor
    is still at the end of the paste: Textual 8 failed scrolling to it."""
    app = TallestPromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press(*"typed ")
        app.post_message(events.Paste(PASTED))  # as the terminal's, to the focused widget
        await wait_until(pilot, lambda: prompt.show_vertical_scrollbar, what="a scrollbar")
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: not prompt.show_vertical_scrollbar, what="no scrollbar")
        assert prompt.text == "typed " and prompt.cursor_location == (0, 6)
        await pilot.press("ctrl+y")
        assert prompt.text == "typed " + PASTED and prompt.cursor_location == (11, 7)
        await pilot.press("f7", "backspace")  # select all and delete: undo, then redo that
        await pilot.press("ctrl+z")
        assert prompt.text == "typed " + PASTED
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: not prompt.show_vertical_scrollbar, what="no scrollbar")
        assert prompt.text == "" and prompt.cursor_location == (0, 0)


async def test_the_editing_keys_the_help_lists_work_in_the_prompt() -> None:
    console = Console(width=100, record=True, color_system=None)
    console.print(help_table([]))
    listed = console.export_text()
    assert all(keys in listed for keys in ("Ctrl+Z / Ctrl+Y", "Ctrl+U / Ctrl+K", "F7, Backspace"))
    app = TallestPromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press(*"one", "ctrl+j", *"two three", *["left"] * 5, "ctrl+u")
        assert prompt.text == "one\nthree"
        await pilot.press("ctrl+k")
        assert prompt.text == "one\n"
        await pilot.press("ctrl+z")  # both deletions, made one after the other
        assert prompt.text == "one\ntwo three"
        await pilot.press("ctrl+y")
        assert prompt.text == "one\n"
        await pilot.press("f7", "backspace")
        assert prompt.text == ""


COMMAND = "for i in 1 2 3; do echo line $i; sleep 0.5; done"


class NarrowEditorApp(App[None]):
    """An editor narrower than its one-line text, which it wraps onto several rows."""

    CSS = "SteadyTextArea { width: 24; height: 6; }"

    def __init__(self, editor: SteadyTextArea) -> None:
        super().__init__()
        self.editor = editor

    def compose(self) -> ComposeResult:
        yield self.editor


@pytest.mark.parametrize("make_editor", [lambda: CommandEditor(COMMAND), Prompt])
async def test_ctrl_u_and_ctrl_k_delete_to_the_start_and_end_of_the_line_not_the_row(
        make_editor) -> None:
    """As the help says: of the text's line, however it wraps (Ctrl+U in an approval's
    command editor cleared only its last row, and the rest ran with the new command)."""
    editor = make_editor()
    app = NarrowEditorApp(editor)
    async with app.run_test() as pilot:
        editor.load_text(f"first line\n{COMMAND}\nlast line")
        editor.focus()
        editor.move_cursor((1, len(COMMAND)))
        assert editor.wrapped_document.height > 3  # the command takes more than one row
        await pilot.press("ctrl+u")
        assert editor.raw_text == "first line\n\nlast line"
        await pilot.press("ctrl+z")
        editor.move_cursor((1, COMMAND.index("echo")))  # on the command's first row
        await pilot.press("ctrl+k")
        assert editor.raw_text == "first line\nfor i in 1 2 3; do \nlast line"
        await pilot.press("ctrl+k")  # at the end of the line: the line after it joins
        assert editor.raw_text == "first line\nfor i in 1 2 3; do last line"


async def fail_on_undo(prompt: Prompt) -> None:
    raise RuntimeError("an editor bug")


@pytest.mark.parametrize("demo", [False, True])
async def test_an_error_that_ends_the_app_keeps_the_text_typed(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch, demo: bool) -> None:
    """Kept as quitting keeps it: for the next run, or printed on exit (the demo's)."""
    options = {"demo": True, "demo_speed": 0} if demo else {"base_url": demo_server.base_url}
    app = make_app(agent="demo-agent", **options)
    with monkeypatch.context() as patched, pytest.raises(RuntimeError, match="an editor bug"):
        patched.setattr(Prompt, "action_undo", fail_on_undo)
        async with app.run_test(size=(100, 30)) as pilot:
            await open_chat(pilot, wait_until)
            await pilot.press(*"unsent words", "ctrl+z")
    assert app.unkept_drafts == ((None, ["unsent words"]) if demo else None)
    if demo:
        return
    again = make_app(agent="demo-agent", base_url=demo_server.base_url)
    async with again.run_test(size=(100, 30)) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.prompt.text == "unsent words"


@pytest.mark.parametrize("drafts", [[], ["unsent words"]])
def test_the_demos_drafts_left_by_an_error_are_printed_on_exit(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        drafts: list[str]) -> None:
    def run(app: OpenLettaApp) -> None:  # an error ends the demo's chat
        app.unkept_drafts = (None, drafts)

    monkeypatch.setattr(OpenLettaApp, "run", run)
    args = argparse.Namespace(agent="demo-agent", conversation=None, theme=None,
                              no_local_tools=True)
    launch.run(args, Settings(print_chat_on_exit=False), Server(demo=True), None)
    printed = capsys.readouterr().err
    assert printed == ("" if not drafts else "openletta could not keep what you typed and did "
                       "not send (an error ended the demo, which keeps no drafts):\n\n"
                       "unsent words\n")
