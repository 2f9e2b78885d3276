"""Theme files: the shipped ones load, stay readable and apply; bad files are skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from chat_helpers import demo_chat, send
from textual.app import App, ComposeResult
from textual.color import Color
from textual.css.stylesheet import Stylesheet
from textual.theme import Theme
from textual.widgets import Static

from openletta.transcript import AssistantItem, ReasoningItem, TurnFooterItem
from openletta.ui import themes
from openletta.ui.themes import (
    DEFAULT_THEME,
    THEME_VARIABLE_DEFAULTS,
    ThemeFileWarning,
    ThemeVariables,
    install_themes,
    load_themes,
    parse_theme,
)
from openletta.ui.widgets.tool_card import ToolCallCard

REPO_THEMES = Path(__file__).parents[2] / "themes"
SHIPPED = sorted(REPO_THEMES.glob("*.toml"))
MINIMAL = 'name = "{name}"\nprimary = "{primary}"\n'


@pytest.fixture
def user_themes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user themes directory under an isolated config directory."""
    monkeypatch.setenv("OPENLETTA_CONFIG_DIR", str(tmp_path / "config"))
    directory = tmp_path / "config" / "themes"
    directory.mkdir(parents=True)
    return directory


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio of two colours."""
    def luminance(colour: str) -> float:
        def channel(value: int) -> float:
            v = value / 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        c = Color.parse(colour)
        return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)

    darker, lighter = sorted((luminance(first), luminance(second)))
    return (lighter + 0.05) / (darker + 0.05)


def test_both_shipped_themes_exist() -> None:
    assert {path.stem for path in SHIPPED} == {"openletta-dark", "openletta-light"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_shipped_theme_is_complete_and_readable(path: Path) -> None:
    theme = parse_theme(path.read_text(encoding="utf-8"))
    colours = theme.variables
    assert theme.name == path.stem
    assert theme.dark == ("dark" in path.stem)
    assert set(THEME_VARIABLE_DEFAULTS) <= set(colours)
    assert contrast(theme.foreground, theme.background) >= 7
    for dim in ("text-muted", "footer-foreground"):
        assert contrast(colours[dim], theme.background) >= 4.5, dim
    for frame in ("card-bar", "quiet-border"):  # lines that can be seen, on what they edge
        for under in (theme.background, theme.surface):
            assert contrast(colours[frame], under or theme.background) >= 1.3, (frame, under)


def test_load_themes_finds_the_shipped_themes(user_themes: Path) -> None:
    loaded = load_themes()
    assert DEFAULT_THEME in loaded
    assert {"openletta-dark", "openletta-light"} <= set(loaded)
    assert all(isinstance(theme, Theme) for theme in loaded.values())


def test_package_data_is_preferred(tmp_path: Path, user_themes: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "package"
    package.mkdir()
    (package / "packaged.toml").write_text(MINIMAL.format(name="packaged", primary="#123456"))
    monkeypatch.setattr(themes.resources, "files", lambda name: package)
    assert list(load_themes()) == ["packaged"]


def test_user_themes_are_added_and_replace_shipped_ones(user_themes: Path) -> None:
    (user_themes / "mine.toml").write_text(MINIMAL.format(name="mine", primary="#AA5500"))
    (user_themes / "override.toml").write_text(
        MINIMAL.format(name="openletta-dark", primary="#00FF00"))
    (user_themes / "notes.txt").write_text("not a theme")
    loaded = load_themes()
    assert loaded["mine"].primary == "#AA5500"
    assert loaded["openletta-dark"].primary == "#00FF00"
    assert "openletta-light" in loaded


@pytest.mark.parametrize(("content", "complaint"), [
    ('name = "broken\n', "broken.toml"),
    ('name = "x"\nprimary = "#fff"\ncolour = "red"\n', "unknown keys: colour"),
    ('name = "x"\nprimary = "not-a-colour"\n', "not-a-colour"),
    ('name = "x"\nprimary = 12\n', "primary"),
    ('primary = "#fff"\n', "name"),
    ('name = "x"\nprimary = "#fff"\n[variables]\nscrollbar = 3\n', "variables.scrollbar"),
    (b"\xff\xfe", "broken.toml"),
])
def test_a_bad_theme_file_is_skipped_with_a_warning(
        user_themes: Path, content: str | bytes, complaint: str) -> None:
    path = user_themes / "broken.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.warns(ThemeFileWarning, match="broken.toml") as caught:
        loaded = load_themes()
    assert complaint in str(caught[0].message)
    assert "x" not in loaded
    assert DEFAULT_THEME in loaded


class ThemedApp(ThemeVariables, App[None]):
    """A tiny app styled only by theme variables, the openletta ones included."""

    CSS = """
    #bar { color: $card-bar; background: $background; }
    #frame { color: $quiet-border; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        yield Static("▌", id="bar")
        yield Static("╭─╮", id="frame")

    def on_mount(self) -> None:
        for theme in load_themes().values():
            self.register_theme(theme)


@pytest.mark.parametrize("name", ["openletta-dark", "openletta-light"])
async def test_a_registered_theme_applies(user_themes: Path, name: str) -> None:
    theme = load_themes()[name]
    app = ThemedApp()
    async with app.run_test() as pilot:
        app.theme = name
        await pilot.pause()
        bar = app.query_one("#bar").styles
        frame = app.query_one("#frame").styles
        assert bar.color == Color.parse(theme.variables["card-bar"])
        assert bar.background == Color.parse(theme.background)
        assert frame.color == Color.parse(theme.variables["quiet-border"])
        assert frame.background == Color.parse(theme.surface or theme.background)


async def test_builtin_themes_fall_back_to_the_variable_defaults(user_themes: Path) -> None:
    app = ThemedApp()
    async with app.run_test() as pilot:
        app.theme = "textual-light"
        await pilot.pause()
        colour = app.query_one("#bar").styles.color
        assert colour == Color.parse(THEME_VARIABLE_DEFAULTS["card-bar"])


class StartsThemedApp(ThemedApp):
    """:class:`ThemedApp` that picks its theme before it starts, as openletta does."""

    def __init__(self, *preferred: str | None) -> None:
        super().__init__()
        self.names, self.problems = install_themes(self, *preferred)

    def on_mount(self) -> None:
        pass


async def test_the_app_starts_in_the_preferred_theme_without_parsing_its_css_again(
        user_themes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reparses: list[Stylesheet] = []
    original = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda sheet: reparses.append(sheet) or
                        original(sheet))
    theme = load_themes()["openletta-light"]
    app = StartsThemedApp(None, "openletta-light")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "openletta-light"
        assert {"-theme-openletta-light", "-light-mode"} <= app.classes
        assert "-dark-mode" not in app.classes
        bar = app.query_one("#bar").styles
        assert bar.color == Color.parse(theme.variables["card-bar"])
        assert bar.background == Color.parse(theme.background)
        assert reparses == []
        app.theme = "openletta-dark"  # a switch while running still applies
        await pilot.pause()
        dark = load_themes()["openletta-dark"]
        assert app.query_one("#bar").styles.background == Color.parse(dark.background)
    assert app.names == ["openletta-dark", "openletta-light"]
    assert app.problems == []


async def test_an_unknown_theme_is_reported_with_the_known_ones_and_the_default_used(
        user_themes: Path) -> None:
    app = StartsThemedApp("no-such-theme", "openletta-light")
    async with app.run_test():
        assert app.theme == "openletta-light"
    assert app.problems == [
        "Unknown theme 'no-such-theme'. Themes: openletta-dark, openletta-light."]
    assert StartsThemedApp("no-such-theme").theme == DEFAULT_THEME


@pytest.mark.parametrize("name", ["openletta-dark", "openletta-light"])
async def test_every_item_of_a_turn_shows_when_it_has_focus(
        user_themes: Path, demo_server, make_app, wait_until, name: str) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (app, pilot, screen):
        app.theme = name
        await send(pilot, screen, "hello", wait_until)
        widgets = [screen.view.widget_for(item) for item in screen.session.transcript.items
                   if isinstance(item, (ReasoningItem, AssistantItem, TurnFooterItem))]
        assert len(widgets) == 3
        for widget in widgets:
            assert widget is not None
            unfocused = widget.styles.background
            widget.focus()
            await wait_until(pilot, lambda w=widget: w.has_focus, what="focus")
            await pilot.pause()
            assert widget.styles.background.a > 0 and widget.styles.background != unfocused


async def test_a_failed_tool_card_shows_when_it_has_focus(
        user_themes: Path, demo_server, make_app, wait_until) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until) as (_app, pilot, screen):
        await send(pilot, screen, "error", wait_until)
        (card,) = [widget for widget in screen.query(ToolCallCard) if widget.has_class("-error")]
        unfocused = card.styles.border_left
        card.focus()
        await wait_until(pilot, lambda: card.has_focus, what="focus")
        await pilot.pause()
        assert card.styles.border_left != unfocused


async def test_every_theme_problem_is_in_the_one_theme_toast(
        user_themes: Path, make_app, wait_until) -> None:
    (user_themes / "broken.toml").write_text('name = "x"\nprimary = 12\n')
    (user_themes / "nameless.toml").write_text('primary = "#fff"\n')
    app = make_app(demo=True, theme="no-such-theme")
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: any(note.title == "Theme" for note in
                                            app._notifications), what="the theme toast")
        (toast,) = [note.message for note in app._notifications if note.title == "Theme"]
    assert all(said in toast for said in ("broken.toml", "nameless.toml", "no-such-theme"))
