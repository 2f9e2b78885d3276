"""The app's styles kept from one launch for the next
(openletta.ui.textual_internals.css_cache)."""

from __future__ import annotations

import pickle
from pathlib import Path

from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.widgets import Static

from openletta.ui.textual_internals import parsed_css_kept
from openletta.ui.textual_internals.css_cache import read_kept

CSS = """
Screen { background: $background; }
#note { color: $primary; border: round $accent; padding: 1 2; height: auto; }
.quiet { text-style: italic; }
"""


def parsed(variables: dict[str, str]) -> str:
    """The rules a stylesheet of :data:`CSS` has with ``variables``, as CSS text."""
    stylesheet = Stylesheet(variables=variables)
    stylesheet.add_source(CSS, read_from=("test", "CSS"))
    stylesheet.parse()
    return stylesheet.css


RED = {"background": "#000000", "primary": "#ff0000", "accent": "#00ff00"}
BLUE = {**RED, "primary": "#0000ff"}


def test_a_second_launch_parses_nothing_and_gets_the_same_rules(tmp_path: Path) -> None:
    path = tmp_path / "styles.pickle"
    with parsed_css_kept(path) as first:
        rules = parsed(RED)
    assert first.parsed == 1
    with parsed_css_kept(path) as second:
        assert parsed(RED) == rules
    assert second.parsed == 0
    assert parsed(RED) == rules  # and as Textual parses it


def test_other_theme_variables_are_parsed_with_their_values(tmp_path: Path) -> None:
    path = tmp_path / "styles.pickle"
    with parsed_css_kept(path):
        red = parsed(RED)
    with parsed_css_kept(path) as later:
        blue = parsed(BLUE)
    assert later.parsed == 1
    assert blue == parsed(BLUE) != red and "#0000FF" in blue.upper()


def test_a_damaged_or_other_versions_file_means_parsing(tmp_path: Path) -> None:
    path = tmp_path / "styles.pickle"
    for content in (b"", b"garbage", pickle.dumps(("0.0.1", {})),
                    pickle.dumps(("x", "not a dict"))):
        path.write_bytes(content)
        assert read_kept(path) == {}
        with parsed_css_kept(path) as parsing:
            assert parsed(RED) == parsed(RED)
        assert parsing.parsed == 1
        assert read_kept(path)  # written again, usable


class Note(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        yield Static("a note", id="note", classes="quiet")


async def styles_of_a_note() -> tuple[object, ...]:
    app = Note()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        styles = app.query_one("#note").styles
        return (styles.color, styles.border, styles.padding, styles.text_style,
                app.screen.styles.background)


async def test_an_app_started_again_is_styled_as_the_first_time(tmp_path: Path) -> None:
    path = tmp_path / "styles.pickle"
    with parsed_css_kept(path):
        first = await styles_of_a_note()
    with parsed_css_kept(path) as again:
        assert await styles_of_a_note() == first
    assert again.parsed == 0
    assert await styles_of_a_note() == first  # as without kept styles
