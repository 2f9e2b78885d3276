"""The wheel ships every package and data file the app needs."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
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


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_third_party_import_is_a_declared_dependency() -> None:
    imported = set()
    for path in (ROOT / "openletta").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.partition(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"openletta"}
    distributions = packages_distributions()
    needed = {normalized(dist) for module in third_party for dist in distributions[module]}
    declared = {normalized(re.match(r"[A-Za-z0-9._-]+", requirement)[0])
                for requirement in project()["project"]["dependencies"]}
    assert needed <= declared


def test_the_supported_pythons_agree() -> None:
    config = project()
    lowest = re.fullmatch(r">=3\.(\d+)", config["project"]["requires-python"])
    assert lowest, "requires-python should be a plain lower bound"
    minor = int(lowest[1])
    classified = {int(match[1]) for classifier in config["project"]["classifiers"]
                  if (match := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)",
                                            classifier))}
    assert min(classified) == minor
    assert classified == set(range(minor, max(classified) + 1))
    assert sys.version_info[:2] >= (3, minor)
    assert config["tool"]["ruff"]["target-version"] == f"py3{minor}"
    assert config["tool"]["mypy"]["python_version"] == f"3.{minor}"
