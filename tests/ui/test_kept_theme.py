"""A text field fills in its theme from its styles only when they changed, and paints as
Textual's own text area does."""

from __future__ import annotations

import pytest
from textual._text_area_theme import TextAreaTheme
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Button, TextArea

from openletta.ui.steady import SteadyTextArea


class FieldApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SteadyTextArea("hello\nthere")
        yield Button("elsewhere")


def painted(field: TextArea) -> list[Strip]:
    """The field's lines as it paints them now."""
    return field.render_lines(field.size.region)


def painted_by_textual(field: TextArea) -> list[Strip]:
    """The field's lines as Textual's text area paints them (the theme filled in again)."""
    field._line_cache.clear()
    field._styles_cache.clear()
    return TextArea.render_lines(field, field.size.region)


async def test_typing_fills_in_no_theme_and_a_new_look_is_painted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    filled: list[TextArea] = []
    fill = TextAreaTheme.apply_css

    def counted(theme: TextAreaTheme, field: TextArea) -> None:
        filled.append(field)
        fill(theme, field)

    monkeypatch.setattr(TextAreaTheme, "apply_css", counted)
    app = FieldApp()
    async with app.run_test() as pilot:
        field = app.query_one(SteadyTextArea)
        field.focus()
        await pilot.pause()
        painted(field)
        filled.clear()
        for key in "abc":
            await pilot.press(key)
            painted(field)
        assert field.text.startswith("abc") and filled == []

        for change in ("blur", "theme", "focus"):
            if change == "blur":
                app.query_one(Button).focus()
            elif change == "theme":
                app.theme = "textual-light"
            else:
                field.focus()
            await pilot.pause()
            ours = painted(field)
            assert filled == [field], change  # filled in again, once
            assert ours == painted_by_textual(field), change
            filled.clear()


async def test_a_changed_style_of_the_field_is_painted() -> None:
    app = FieldApp()
    async with app.run_test() as pilot:
        field = app.query_one(SteadyTextArea)
        before = painted(field)
        field.styles.background = "red"
        await pilot.pause()
        ours = painted(field)
        assert ours != before
        assert ours == painted_by_textual(field)

