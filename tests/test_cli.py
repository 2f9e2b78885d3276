"""The command line without a terminal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from openletta import cli
from openletta.config import Server, choose_server
from openletta.settings import Settings
from openletta.settings import load_settings as cli_load_settings
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


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
             ) -> list[tuple[Server, str | None, str | None]]:
    """``cli.main`` as at a terminal, with the settings ``SAVED``; records the server, agent
    and conversation the app would open instead of starting it."""
    opened: list[tuple[Server, str | None, str | None]] = []
    monkeypatch.setenv("OPENLETTA_CONFIG_DIR", str(tmp_path))  # (its compiled code)
    monkeypatch.setattr(cli, "at_a_terminal", lambda: True)
    monkeypatch.setattr(cli, "pause_for_startup", lambda: None)
    monkeypatch.setattr(cli, "prepare_tls_context", lambda: None)
    monkeypatch.setattr(cli, "load_settings", lambda: SAVED)
    monkeypatch.setattr(cli, "early_opening", lambda args, server: None)

    def run(args, settings, server, early) -> int:
        opened.append((server, args.agent, args.conversation))
        return 0

    monkeypatch.setattr(launch, "run", run)
    return opened


SAVED = Settings(last_agent="agent-7", last_conversation="conv-7",
                 last_server="http://here:8283")


@pytest.mark.parametrize(("where", "over_tls"), [
    (["--base-url", "https://letta.example.test"], True),
    (["--base-url", "http://localhost:8283"], False),
    (["--demo"], False)])
def test_certificates_are_read_ahead_only_for_a_server_reached_over_tls(
        monkeypatch: pytest.MonkeyPatch, launched: list[tuple[Server, str | None, str | None]],
        where: list[str], over_tls: bool) -> None:
    prepared: list[bool] = []
    monkeypatch.setattr(cli, "prepare_tls_context", lambda: prepared.append(True))
    assert cli.main([*where, "--agent", "agent-1"]) == 0
    assert len(launched) == 1
    assert prepared == ([True] if over_tls else [])


def test_continue_goes_back_to_the_last_chat_on_its_server(
        capsys: pytest.CaptureFixture[str],
        launched: list[tuple[Server, str | None, str | None]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LETTA_BASE_URL", "http://elsewhere:8283")
    assert cli.main(["--continue"]) == 0
    assert cli.main(["-c", "--base-url", "http://here:8283/"]) == 0
    assert launched == [(Server(demo=False, base_url="http://here:8283"), "agent-7", "conv-7")] * 2
    assert cli.main(["-c", "--demo"]) == 2
    assert "the last chat was on http://here:8283, not demo" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["-c", "--agent", "agent-1"])
    assert "leave out --agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--conversation", "conv-1"])
    assert "--conversation needs --agent" in capsys.readouterr().err
    monkeypatch.setattr(cli, "load_settings", Settings)
    assert cli.main(["-c"]) == 2
    err = capsys.readouterr().err
    assert err == ("openletta: there is no chat to continue yet: openletta remembers none. Run "
                   "openletta without --continue to choose an agent to chat with.\n")
    assert "demo" not in err  # said to one who may never have run the demo
    assert len(launched) == 2


def test_the_last_chat_on_the_demo_is_continued_on_the_demo() -> None:
    args = cli.build_parser().parse_args(["-c"])
    saved = Settings(last_agent="agent-d", last_server=Server(demo=True).key)
    assert cli.choose_chat(args, saved) == Server(demo=True)
    assert (args.agent, args.conversation) == ("agent-d", None)


def test_a_settings_problem_is_said_plainly_before_the_app_starts(
        capsys: pytest.CaptureFixture[str],
        launched: list[tuple[Server, str | None, str | None]],
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("OPENLETTA_CONFIG_DIR", str(tmp_path))
    (tmp_path / "settings.toml").write_text('print_chat_on_exit = "no"\n')
    monkeypatch.setattr(cli, "load_settings", cli_load_settings)
    assert cli.main(["--demo"]) == 0
    said = capsys.readouterr().err.splitlines()
    assert said == [f"openletta: Ignoring print_chat_on_exit in {tmp_path / 'settings.toml'}: "
                    "expected true or false, got 'no'"]  # no source line, no warning class


def test_replay_says_how_a_stream_stopped_and_nothing_of_the_kind_for_history(
        capsys: pytest.CaptureFixture[str]) -> None:
    fixtures = Path(__file__).parent / "fixtures"
    assert cli.main(["replay", str(fixtures / "hello_tokens.sse")]) == 0
    assert "stop: end_turn" in capsys.readouterr().out
    assert cli.main(["replay", str(fixtures / "agent_messages_default.json")]) == 0
    assert "stop:" not in capsys.readouterr().out  # history has no stop reason nor usage


def test_yolo_with_another_permission_mode_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--yolo", "--permission-mode", "read-only"])
    assert "--yolo runs every local call without asking" in capsys.readouterr().err
