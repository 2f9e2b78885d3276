"""The dataclass code kept from one launch for the next (openletta.compiled_code)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from openletta.compiled_code import MAGIC, cache_path, compiled_code_kept, read_kept


def make_point() -> type:
    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 2
        tags: list[str] = dataclasses.field(default_factory=list)

    return Point


def behaviour(point_class: type) -> tuple[object, ...]:
    point = point_class(1)
    return (repr(point), point == point_class(1, 2), point < point_class(2),
            hash(point_class(1, 2, ())), point_class.__init__.__annotations__,
            point_class.__init__.__code__.co_filename)


def test_a_second_launch_compiles_nothing_and_makes_the_same_classes(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    with compiled_code_kept(path) as first:
        made_first = behaviour(make_point())
    assert first.compiled > 0 and path.read_bytes().startswith(MAGIC)
    with compiled_code_kept(path) as second:
        made_second = behaviour(make_point())
    assert second.compiled == 0
    assert made_second == made_first == behaviour(make_point())


def test_a_damaged_or_foreign_file_is_compiled_past_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    for content in (b"", b"not marshal at all", MAGIC + b"\xff\x00garbage", b"\x00\x00\r\n"):
        path.write_bytes(content)
        assert read_kept(path) == {}
        with compiled_code_kept(path) as compiled:
            assert behaviour(make_point()) == behaviour(make_point())
        assert compiled.compiled > 0
        assert read_kept(path)  # written again, usable


def test_an_unwritable_place_only_means_compiling(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    path = blocker / "code.marshal"  # its folder is a file
    with compiled_code_kept(path):
        assert behaviour(make_point())
    assert not path.exists()
    assert "exec" not in vars(dataclasses)  # dataclasses back to the builtin


def test_kept_in_the_config_folder_when_one_is_named(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENLETTA_CONFIG_DIR", str(tmp_path))
    assert cache_path().parent == tmp_path / "cache"


PATTERNS = [(r"(?P<word>\w+)-(\d+)?", 0), (r"^\s*#.*$", re.MULTILINE), (rb"[\x00-\x1f]+", 0),
            (r"caf[eé]", re.IGNORECASE)]
TEXTS = ["alpha-12 beta-", "  # note\ncode", "Café CAFE", "a\x01b"]


def matches(compile_pattern: Any) -> list[object]:
    """What each of :data:`PATTERNS` finds in each text, and its groups."""
    found: list[object] = []
    for source, flags in PATTERNS:
        pattern = compile_pattern(source, flags)
        for text in TEXTS:
            subject: Any = text.encode() if isinstance(source, bytes) else text
            found.append([(match.group(0), match.groups(), match.span())
                          for match in pattern.finditer(subject)])
        found.append((pattern.groupindex, pattern.groups, pattern.flags, pattern.pattern))
    return found


def test_regular_expressions_are_built_from_kept_code_and_match_the_same(
        tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    compiler = re._compiler  # type: ignore[attr-defined]
    fresh = matches(compiler.compile)
    with compiled_code_kept(path) as first:
        assert matches(compiler.compile) == fresh
    assert first.compiled >= len(PATTERNS)
    with compiled_code_kept(path) as second:
        assert matches(compiler.compile) == fresh
    assert second.compiled == 0
    assert compiler.compile(*PATTERNS[0]).match("x-1")  # the compiler is Python's again
    assert type(compiler._sre).__name__ == "module"
