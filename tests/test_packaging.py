"""The wheel ships every package and data file the app needs."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def declared() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_directory_is_listed() -> None:
    packages = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "openletta").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    packages |= {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "openletta").rglob("*.tcss")
    }
    assert packages <= set(declared()["packages"])


def test_themes_ship_as_package_data() -> None:
    settings = declared()
    assert settings["package-dir"]["openletta.themes"] == "themes"
    assert "openletta.themes" in settings["packages"]
    assert list((ROOT / "themes").glob("*.toml"))
