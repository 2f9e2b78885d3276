"""``@path`` mentions: the paths listed, the mention at the cursor, the matches' order."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from openletta.tools.base import Workspace
from openletta.tools.mentions import (
    Mention,
    matching_paths,
    mention_at,
    mention_text,
    project_paths,
)


def make_tree(root: Path, *paths: str) -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")


def test_outside_git_paths_are_walked_shallowest_first_leaving_out_what_nobody_mentions(
        tmp_path: Path) -> None:
    make_tree(tmp_path, "app.py", "src/deep/inner.py", "src/main.py", ".env", ".hg/config",
              "node_modules/pkg/index.js", ".cache/blob", "docs/guide.md")
    (tmp_path / "loop").symlink_to(tmp_path)  # a link to a directory is not walked into
    workspace = Workspace(tmp_path)
    assert project_paths(workspace) == [
        ".env", "app.py", "docs/", "loop", "src/",
        "docs/guide.md", "src/deep/", "src/main.py",
        "src/deep/inner.py"]
    assert project_paths(workspace, limit=3) == [".env", "app.py", "docs/"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_a_git_repository_what_git_ignores_is_left_out(tmp_path: Path) -> None:
    make_tree(tmp_path, ".gitignore", "app.py", "build/out.o", "src/pkg/mod.py", "notes.md")
    (tmp_path / ".gitignore").write_text("build/\n*.md\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "app.py"], check=True)
    workspace = Workspace(tmp_path, environment={"PATH": os.environ["PATH"]})
    assert project_paths(workspace) == [
        ".gitignore", "app.py", "src/", "src/pkg/", "src/pkg/mod.py"]
    assert project_paths(Workspace(tmp_path / "src", environment=workspace.environment)) == [
        "pkg/", "pkg/mod.py"]
    ignored = Workspace(tmp_path / "build", environment=workspace.environment)
    assert project_paths(ignored) == ["out.o"]  # all ignored by git: walked


@pytest.mark.parametrize(("before_cursor", "mention"), [
    ("@", Mention(0, "")), ("look at @src/ma", Mention(8, "src/ma")),
    ("two\nlines @a", Mention(10, "a")), ("@a.py and @b", Mention(10, "b")),
    ('see @"my notes/to', Mention(4, "my notes/to")), ('@"', Mention(0, "")),
    ("mail me at a@b.c", None), ("@a.py done", None), ("no mention", None), ("", None),
    ('@"my notes/todo.md" ', None), ('@"my notes" and', None), ('@ab"c', None),
])
def test_the_mention_is_the_word_the_cursor_ends_if_it_starts_with_at(
        before_cursor: str, mention: Mention | None) -> None:
    assert mention_at(before_cursor) == mention


def test_a_path_with_a_space_is_quoted_and_a_directory_left_open() -> None:
    assert mention_text("src/app.py") == "@src/app.py "
    assert mention_text("src/") == "@src/"
    assert mention_text("my notes/todo.md") == '@"my notes/todo.md" '
    assert mention_text("my notes/") == '@"my notes/'
    assert mention_at(mention_text("my notes/")) == Mention(0, "my notes/")


def test_matches_put_a_typed_start_first_then_a_name_then_the_rest() -> None:
    paths = ["README.md", "src/", "src/app.py", "tests/test_app.py", "app.py", "docs/apps/",
             "docs/apps/list.md"]
    assert matching_paths(paths, "app") == [
        "app.py", "docs/apps/", "src/app.py", "tests/test_app.py", "docs/apps/list.md"]
    assert matching_paths(paths, "SRC") == ["src/", "src/app.py"]
    assert matching_paths(paths, "src/") == ["src/app.py"]  # not the path it already is
    assert matching_paths(paths, "") == ["src/", "app.py", "README.md", "docs/apps/",
                                         "src/app.py", "tests/test_app.py",
                                         "docs/apps/list.md"]
    assert matching_paths(paths, "", limit=2) == ["src/", "app.py"]
    assert matching_paths(paths, "zzz") == []


@pytest.mark.parametrize("in_git", [False, True])
def test_a_name_no_mention_can_write_as_it_is_is_not_offered(
        tmp_path: Path, in_git: bool) -> None:
    """A control or invisible character, a line break, bytes that are not UTF-8: the menu
    would show another name than the file's, and the agent would look for that one."""
    if in_git and shutil.which("git") is None:
        pytest.skip("git is not installed")
    make_tree(tmp_path, "esc\x1b[31mred.txt", "zero\u200bwidth.txt", "line\nbreak.txt",
              "odd dir\x07/inner.txt", "spaced name.txt", "[red]markup.txt", "ünï.txt")
    (tmp_path / os.fsdecode(b"latin\xe9.txt")).write_text("x")
    environment = {"PATH": os.environ["PATH"]}
    if in_git:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert project_paths(Workspace(tmp_path, environment=environment)) == [
        "[red]markup.txt", "spaced name.txt", "ünï.txt"]
