"""Colour themes from TOML files: openletta's own and the user's.

Each ``*.toml`` file holds the arguments of :class:`textual.theme.Theme` (``name``,
``primary``, …, ``dark`` and a ``[variables]`` table). openletta's themes ship as package
data (``openletta.themes``); a source checkout run without installing falls back to the
repository's ``themes/`` directory. User themes come from ``<config dir>/themes/`` and
replace a shipped theme of the same name. A file that cannot be read or does not describe
a valid theme is skipped with a :class:`ThemeFileWarning`.
"""

from __future__ import annotations

import dataclasses
import tomllib
import warnings
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError
from textual.app import App
from textual.color import ColorParseError
from textual.theme import Theme

from openletta.settings import config_dir
from openletta.ui.textual_internals import start_with_theme

DEFAULT_THEME = "openletta-dark"
BUNDLED_PACKAGE = "openletta.themes"

#: openletta's own theme variables, for ``App.get_theme_variable_defaults`` (literal
#: colours only: a ``$variable`` here fails CSS parsing). Themes override them.
THEME_VARIABLE_DEFAULTS: dict[str, str] = {
    #: The bar down the left of a tool card, and the frame of the lists of agents and models.
    "card-bar": "#45505A",
    "quiet-border": "#343F49",
    #: Behind the focused item of the chat (a grey that shows on dark and light backgrounds;
    #: Textual's ``$boost`` is transparent in a theme that sets ``panel``).
    "item-focus-background": "#8080802E",
}

class ThemeVariables:
    """For an app that loads openletta's styles (mixed in before ``App``): the theme variables
    they use, for the themes that do not set them (Textual's own among them)."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return THEME_VARIABLE_DEFAULTS


_THEME_FIELDS = frozenset(field.name for field in dataclasses.fields(Theme))
_THEME_ADAPTER = TypeAdapter(Theme)


class ThemeFileWarning(UserWarning):
    """A theme file was skipped."""


def load_themes() -> dict[str, Theme]:
    """Every valid theme, shipped ones first, by name (never raises)."""
    themes: dict[str, Theme] = {}
    for directory in (bundled_themes_dir(), user_themes_dir()):
        for file in _theme_files(directory):
            theme = _read_theme(file)
            if theme is not None:
                themes[theme.name] = theme
    return themes


def install_themes(app: App[Any], *preferred: str | None) -> tuple[list[str], list[str]]:
    """Register every theme with ``app``, which has not started, and start it with the first
    of ``preferred`` there is (else :data:`DEFAULT_THEME`). Returns the names of the themes
    loaded, and what went wrong, to show once the app runs."""
    with warnings.catch_warnings(record=True) as problems:
        warnings.simplefilter("always")
        themes = load_themes()
    messages = [str(problem.message) for problem in problems]
    for theme in themes.values():
        app.register_theme(theme)
    messages += [unknown_theme(name, list(themes)) for name in preferred[:1]
                 if name and name not in app.available_themes]
    name = next((name for name in (*preferred, DEFAULT_THEME) if name in app.available_themes),
                None)
    if name is not None:
        start_with_theme(app, name)
    return list(themes), messages


def unknown_theme(name: str, known: list[str]) -> str:
    """What is said of a theme named ``name`` that is not there: and which ones are."""
    return f"Unknown theme {name!r}. Themes: {', '.join(known)}." if known else (
        f"Unknown theme {name!r}.")


def bundled_themes_dir() -> Traversable:
    """The themes shipped with openletta."""
    try:
        return resources.files(BUNDLED_PACKAGE)
    except ModuleNotFoundError:  # a source checkout that is not installed
        return Path(__file__).resolve().parents[2] / "themes"


def user_themes_dir() -> Path:
    """Where users put their own themes."""
    return config_dir() / "themes"


def parse_theme(text: str) -> Theme:
    """The theme a TOML document describes; :class:`ValueError` says what is wrong."""
    data = tomllib.loads(text)
    unknown = sorted(set(data) - _THEME_FIELDS)
    if unknown:
        raise ValueError(f"unknown keys: {', '.join(unknown)}")
    try:
        theme = _THEME_ADAPTER.validate_python(data)
    except ValidationError as error:
        raise ValueError(_describe(error)) from None
    try:
        theme.to_color_system().generate()
    except ColorParseError as error:
        raise ValueError(str(error)) from None
    return theme


def _theme_files(directory: Traversable) -> list[Traversable]:
    try:
        entries = list(directory.iterdir()) if directory.is_dir() else []
    except OSError as error:
        _warn(f"Cannot list themes in {directory}: {error}")
        return []
    return sorted((entry for entry in entries if entry.name.endswith(".toml")),
                  key=lambda entry: entry.name)


def _read_theme(file: Traversable) -> Theme | None:
    try:
        return parse_theme(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:  # TOMLDecodeError is one too
        _warn(f"Skipping theme file {file}: {error}")
        return None


def _describe(error: ValidationError) -> str:
    def place(detail: Any) -> str:
        return ".".join(str(part) for part in detail["loc"]) or "theme"

    return "; ".join(f"{place(detail)}: {detail['msg']}" for detail in error.errors())


def _warn(message: str) -> None:
    warnings.warn(message, ThemeFileWarning, stacklevel=3)


def themes_from_next(names: Sequence[str], current: str) -> list[str]:
    """``names`` from the one after ``current`` on (the first after the last, or for a theme
    not among them), ``current`` last: the next theme first."""
    index = names.index(current) + 1 if current in names else 0
    return [*names[index:], *names[:index]]
