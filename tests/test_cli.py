"""The command line without a terminal."""

from __future__ import annotations

import io

import pytest

from openletta import cli
from openletta.config import Server, choose_server
from openletta.settings import Settings
from openletta.ui import launch


def test_without_a_terminal_the_chat_says_so_instead_of_failing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.setattr(launch, "run", lambda *args: pytest.fail("the TUI started"))
    assert cli.main(["--demo"]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_the_agent_on_the_command_line_is_asked_for_before_the_app_starts() -> None:
    args = cli.build_parser().parse_args(["--agent", "agent-1", "--conversation", "conv-1"])
    early = cli.early_opening(args, Server(demo=False, base_url="http://127.0.0.1:9"))
    assert early is not None and early.ref == "agent-1"
    assert early.base_url == "http://127.0.0.1:9"
    assert cli.early_opening(args, Server(demo=True)) is None
    no_agent = cli.build_parser().parse_args([])
    assert cli.early_opening(no_agent, Server(demo=False, base_url="http://127.0.0.1:9")) is None


def test_the_server_is_chosen_from_the_flag_then_the_environment_then_the_settings() -> None:
    saved = Settings(base_url="http://saved:8283")
    env = {"LETTA_BASE_URL": "http://env:8283/v1/", "LETTA_API_KEY": "sk-1"}
    assert choose_server("http://flag:1", demo=False, settings=saved, env=env) == Server(
        demo=False, base_url="http://flag:1", api_key="sk-1")
    assert choose_server(None, demo=False, settings=saved, env=env).base_url == "http://env:8283"
    assert choose_server(None, demo=False, settings=saved, env={}).base_url == "http://saved:8283"
    assert choose_server("http://flag:1", demo=True, settings=saved, env=env) == Server(demo=True)
