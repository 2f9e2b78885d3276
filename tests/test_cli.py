"""The command line without a terminal."""

from __future__ import annotations

import io

import pytest

from openletta import cli
from openletta.ui import launch


def test_without_a_terminal_the_chat_says_so_instead_of_failing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.setattr(launch, "run", lambda args: pytest.fail("the TUI started"))
    assert cli.main(["--demo"]) == 2
    assert "needs a terminal" in capsys.readouterr().err
