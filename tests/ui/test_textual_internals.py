"""Only the package :mod:`openletta.ui.textual_internals` touches Textual's private API.

Private here means a module or attribute of Textual's whose name starts with ``_``: a Textual
release may change it without notice, so every use is kept (with its reason) in one package.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import textual

import openletta

PACKAGE = Path(openletta.__file__).parent
TEXTUAL = Path(textual.__file__).parent
INTERNALS = PACKAGE / "ui" / "textual_internals"

#: Private Textual names used outside the internals module on purpose, with the reason.
DOCUMENTED = {
    "_on_key": "Textual's TextArea guide says to override _on_key to handle keys first "
               "(openletta/ui/prompt.py)",
}


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def is_private_textual_module(module: str) -> bool:
    """``textual._x``, ``textual.widgets._x`` and the like."""
    first, *rest = module.split(".")
    return first == "textual" and any(part.startswith("_") for part in rest)


def private_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Line and name of each import of a private Textual module or name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from textual.widgets import _footer`` names a private module (or name) too.
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for module in modules:
            if is_private_textual_module(module):
                yield node.lineno, module
                break


def defined_names(tree: ast.AST) -> set[str]:
    """Private names ``tree`` defines: methods, class attributes, ``self._x = ...``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    targets = statement.targets
                elif isinstance(statement, ast.AnnAssign):
                    targets = [statement.target]
                else:
                    continue
                names.update(target.id for target in targets if isinstance(target, ast.Name))
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}):
            names.add(node.attr)
    return {name for name in names if is_private(name)}


def self_names(tree: ast.AST) -> set[str]:
    """Private names a class uses or defines on itself (``self._x``, ``def _x``)."""
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in {"self", "cls"} and is_private(node.attr)}
    return used | defined_names(tree)


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def our_sources() -> Iterator[tuple[Path, ast.Module]]:
    """Every module under ``openletta/`` but the internals package's."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if not is_internal(path):
            yield path, parse(path)


def is_internal(path: Path) -> bool:
    return INTERNALS in path.parents


def internal_sources() -> list[ast.Module]:
    return [parse(path) for path in sorted(INTERNALS.glob("*.py"))]


@cache
def textual_private_names() -> frozenset[str]:
    """Every private attribute or method name in Textual's source."""
    names: set[str] = set()
    for path in TEXTUAL.rglob("*.py"):
        tree = parse(path)
        names |= {node.attr for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and is_private(node.attr)}
        names |= defined_names(tree)
    return frozenset(names)


def private_attributes(tree: ast.AST, ours: set[str],
                       wrapped: frozenset[str] = frozenset()) -> Iterator[tuple[int, str]]:
    """``x._name`` where ``_name`` is Textual's and nothing in openletta defines it, or is one
    the internals module reads (``wrapped``) and ``x`` is not ``self``."""
    textual_names = textual_private_names()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr in DOCUMENTED:
            continue
        on_self = isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}
        if ((node.attr in textual_names and node.attr not in ours)
                or (node.attr in wrapped and not on_self)):
            yield node.lineno, node.attr


@cache
def wrapped_names() -> frozenset[str]:
    """The private Textual attributes the internals package reads."""
    return frozenset(name for tree in internal_sources()
                     for _, name in private_attributes(tree, set()))


def textual_bases(cls: type) -> list[type]:
    return [base for base in cls.__mro__[1:] if base.__module__.split(".")[0] == "textual"]


@cache
def class_private_names(cls: type) -> frozenset[str]:
    """The private names a Textual class uses or defines on itself."""
    return frozenset(self_names(ast.parse(textwrap.dedent(inspect.getsource(cls)))))


def textual_subclasses() -> Iterator[type]:
    """Every class under ``openletta/`` (nested ones too) with a Textual class as a base."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.stem == "__main__" or is_internal(path):
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__"
                                                  else parts))
        pending = [value for value in vars(module).values() if inspect.isclass(value)]
        seen: set[type] = set()
        while pending:
            cls = pending.pop()
            if cls.__module__ != module.__name__ or cls in seen:
                continue
            seen.add(cls)
            pending.extend(value for value in vars(cls).values() if inspect.isclass(value))
            if textual_bases(cls):
                yield cls


def test_only_the_internals_module_imports_private_textual_modules() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
             for path, tree in our_sources() for line, module in private_imports(tree)]
    assert not found, ("import these through openletta.ui.textual_internals "
                       "(with the reason):\n" + "\n".join(found))


def test_no_module_reads_private_textual_attributes() -> None:
    sources = list(our_sources())
    ours = set().union(*(defined_names(tree) for _, tree in sources))
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: .{name}"
             for path, tree in sources
             for line, name in private_attributes(tree, ours, wrapped_names())]
    assert not found, ("reach these through openletta.ui.textual_internals "
                       "(with the reason):\n" + "\n".join(found))


def test_no_textual_subclass_uses_or_shadows_its_bases_private_names() -> None:
    """``self._blocks`` in a Markdown list, or a ``self._content`` of our own in a Static:
    one reads Textual's private state, the other overwrites it."""
    found = []
    for cls in textual_subclasses():
        theirs: set[str] = set()
        for base in textual_bases(cls):
            theirs |= class_private_names(base)
        clash = class_private_names(cls) & theirs - DOCUMENTED.keys()
        if clash:
            found.append(f"{cls.__module__}.{cls.__qualname__}: {sorted(clash)}")
    assert not found, ("these private names are Textual's; use textual_internals or rename:\n"
                       + "\n".join(found))


def test_the_internals_package_is_where_the_private_uses_are() -> None:
    """The checks find the uses they are for (or they would pass with nothing to check)."""
    assert {module for tree in internal_sources() for _, module in private_imports(tree)} >= {
        "textual.widgets._footer", "textual.widgets._markdown", "textual._compositor"}
    assert wrapped_names() >= {
        "_driver", "_markdown", "_token", "_content", "_blocks", "_disabled"}


@pytest.mark.parametrize("source", [
    "import textual._context",
    "from textual.widgets._markdown import MarkdownBullet",
    "from textual.widgets import _footer",
    "from textual import _compositor",
])
def test_private_imports_are_recognised(source: str) -> None:
    assert list(private_imports(ast.parse(source)))


@pytest.mark.parametrize("source", [
    "import textual.widgets",
    "from textual.widgets.markdown import MarkdownBlock",
    "from textual import on",
    "from openletta.ui._private import x",
])
def test_public_imports_pass(source: str) -> None:
    assert not list(private_imports(ast.parse(source)))
