"""Toasts: one per title, plain text."""

from __future__ import annotations

from textual.app import App

from openletta.ui.toasts import Toasts


async def test_a_toast_replaces_the_one_shown_with_its_title(wait_until) -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        toasts = Toasts(app)
        toasts.show("Mode: accept edits.", title="Local tools", severity="information",
                    timeout=None)
        toasts.show("Copied 2 lines.", title="Copy", severity="information", timeout=None)
        toasts.show("Mode: read-only.", title="Local tools", severity="information",
                    timeout=None)
        await wait_until(pilot, lambda: len(app._notifications) == 2, what="two toasts")
        assert [(note.title, note.message) for note in app._notifications] == [
            ("Copy", "Copied 2 lines."), ("Local tools", "Mode: read-only.")]


async def test_a_toast_is_plain_text_on_one_title_line(wait_until) -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        Toasts(app).show("[b]not bold[/b] \x1b[31m", title="Two\nlines", severity="warning",
                         timeout=30)
        await wait_until(pilot, lambda: len(app._notifications) == 1, what="the toast")
        (note,) = app._notifications
        assert not note.markup and note.timeout == 30 and note.severity == "warning"
        assert note.message.startswith("[b]not bold[/b] ") and "\x1b" not in note.message
        assert "\n" not in note.title


async def test_a_replaced_toast_leaves_no_blank_line_on_screen(wait_until) -> None:
    app: App[None] = App()
    async with app.run_test(notifications=True) as pilot:
        toasts = Toasts(app)
        for mode in ("accept edits", "read-only", "ask"):
            toasts.show(f"Mode: {mode}.", title="Local tools", severity="information",
                        timeout=None)
            await pilot.pause()
        await wait_until(pilot, lambda: [str(toast.render()) for toast in
                                         app.screen.query("Toast")] == ["Local tools\nMode: ask."],
                         what="the last toast alone")
        assert len(app.screen.query("ToastHolder")) == 1  # an empty one is a blank line
