"""Settings: round trips, broken files, the config directory override, atomic writes."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from openletta.settings import (
    Settings,
    SettingsWarning,
    config_dir,
    config_path,
    load_settings,
    save_settings,
    write_new_private_file,
    write_private_file,
)

FULL = Settings(theme="openletta-light", base_url="http://localhost:8283",
                last_agent="agent-123", last_conversation="conv-456",
                last_server="http://localhost:8283", print_chat_on_exit=False)


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "settings.toml"


def test_config_dir_honours_the_environment(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENLETTA_CONFIG_DIR", str(tmp_path / "cfg"))
    assert config_dir() == tmp_path / "cfg"
    assert config_path() == tmp_path / "cfg" / "settings.toml"


def test_config_dir_defaults_to_the_platform_dir(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENLETTA_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir().name == "openletta"
    assert "openletta" in str(config_path())


def test_missing_file_gives_defaults(settings_file: Path) -> None:
    assert load_settings(settings_file) == Settings()


def test_round_trip(settings_file: Path) -> None:
    save_settings(FULL, settings_file)
    assert load_settings(settings_file) == FULL


def test_none_values_are_not_written(settings_file: Path) -> None:
    save_settings(Settings(theme="openletta-dark"), settings_file)
    assert tomllib.loads(settings_file.read_text()) == {"theme": "openletta-dark"}
    assert load_settings(settings_file) == Settings(theme="openletta-dark")


def test_default_path_comes_from_the_environment(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENLETTA_CONFIG_DIR", str(tmp_path / "cfg"))
    save_settings(FULL)
    assert (tmp_path / "cfg" / "settings.toml").is_file()
    assert load_settings() == FULL


@pytest.mark.parametrize("content", ["theme = ", "[[[", "theme = 'a'\ntheme = 'b'\n"])
def test_broken_file_gives_defaults_and_a_warning(settings_file: Path, content: str) -> None:
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(content)
    with pytest.warns(SettingsWarning, match="settings.toml"):
        assert load_settings(settings_file) == Settings()


def test_undecodable_file_gives_defaults_and_a_warning(settings_file: Path) -> None:
    settings_file.parent.mkdir(parents=True)
    settings_file.write_bytes(b"theme = \"\xff\"\n")
    with pytest.warns(SettingsWarning):
        assert load_settings(settings_file) == Settings()


def test_wrong_types_are_dropped_with_a_warning(settings_file: Path) -> None:
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text('theme = 3\nbase_url = "http://x"\nprint_chat_on_exit = "no"\n')
    with pytest.warns(SettingsWarning) as warned:
        settings = load_settings(settings_file)
    assert settings == Settings(base_url="http://x")
    assert ["expected a string, got 3" in str(w.message) for w in warned] == [True, False]
    assert "print_chat_on_exit" in str(warned[1].message)
    assert "expected true or false" in str(warned[1].message)


def test_a_preference_is_read_and_written_only_when_it_is_not_the_default(
        settings_file: Path) -> None:
    save_settings(Settings(print_chat_on_exit=False), settings_file)
    assert tomllib.loads(settings_file.read_text()) == {"print_chat_on_exit": False}
    assert load_settings(settings_file).print_chat_on_exit is False
    settings_file.write_text("print_chat_on_exit = true\n")  # said by the user: kept
    save_settings(Settings(theme="t"), settings_file)
    assert tomllib.loads(settings_file.read_text()) == {"theme": "t", "print_chat_on_exit": True}


def test_unknown_keys_are_ignored_on_load_and_kept_on_save(settings_file: Path) -> None:
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(
        'theme = "old"\nfuture_option = 7\n"odd key" = true\n'
        'colours = ["a", "b"]\n[keymap]\n"chat.interrupt" = "ctrl+c"\n')
    assert load_settings(settings_file) == Settings(theme="old")
    save_settings(Settings(theme="new"), settings_file)
    assert tomllib.loads(settings_file.read_text()) == {
        "theme": "new", "future_option": 7, "odd key": True, "colours": ["a", "b"],
        "keymap": {"chat.interrupt": "ctrl+c"},
    }


def test_clearing_a_value_removes_it(settings_file: Path) -> None:
    save_settings(FULL, settings_file)
    save_settings(Settings(theme=FULL.theme), settings_file)
    # A preference the file holds stays in it, at its new value.
    assert tomllib.loads(settings_file.read_text()) == {"theme": FULL.theme,
                                                        "print_chat_on_exit": True}


def test_save_replaces_a_broken_file(settings_file: Path) -> None:
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text("[[[")
    save_settings(FULL, settings_file)
    assert load_settings(settings_file) == FULL


def test_save_leaves_no_temporary_files(settings_file: Path) -> None:
    save_settings(FULL, settings_file)
    save_settings(Settings(), settings_file)
    assert [path.name for path in settings_file.parent.iterdir()] == ["settings.toml"]


def test_failed_write_keeps_the_old_file(settings_file: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    save_settings(FULL, settings_file)

    def fail(source: str, target: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("openletta.settings.os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        save_settings(Settings(), settings_file)
    assert load_settings(settings_file) == FULL
    assert [path.name for path in settings_file.parent.iterdir()] == ["settings.toml"]


def test_the_api_key_is_never_a_setting() -> None:
    assert not any("key" in name for name in Settings.__dataclass_fields__)


TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]))
HOSTILE = [
    'a"b\\c', "line\nbreak\r\n", "\x1b[31mred\x1b[0m\x7f\x00\x08\x0c", "tab\there",
    "'single' ''' \"\"\" \\u0041", "ünïcödé — 日本語 🙂 \u2028 \u200b", "", " ",
    "# not a comment", "[table]", "key = value\nother = 1", "\\",
]


@given(st.builds(Settings, **{
    name: st.booleans() if isinstance(getattr(Settings, name), bool) else st.none() | TEXT
    for name in Settings.__dataclass_fields__}))
def test_any_settings_survive_a_round_trip(settings: Settings) -> None:
    with TemporaryDirectory() as directory:
        path = Path(directory) / "settings.toml"
        save_settings(settings, path)
        assert load_settings(path) == settings


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_are_escaped_and_read_back(settings_file: Path, text: str) -> None:
    save_settings(Settings(**dict.fromkeys(Settings.__dataclass_fields__, text)), settings_file)
    written = settings_file.read_text(encoding="utf-8")
    assert not set(written) & {"\x00", "\x08", "\x0c", "\x1b", "\x7f", "\r"}
    assert tomllib.loads(written) == dict.fromkeys(Settings.__dataclass_fields__, text)


UNKNOWN_VALUES = (TEXT | st.integers() | st.booleans() | st.floats(allow_nan=False)
                  | st.datetimes() | st.lists(TEXT, max_size=3)
                  | st.dictionaries(TEXT, TEXT, max_size=3)
                  | st.lists(st.dictionaries(TEXT, st.integers(), max_size=2), max_size=2))


@given(st.dictionaries(TEXT.filter(lambda key: key not in Settings.__dataclass_fields__),
                       UNKNOWN_VALUES, max_size=4))
def test_unknown_keys_of_any_name_and_type_are_kept(others: dict[str, Any]) -> None:
    with TemporaryDirectory() as directory:
        path = Path(directory) / "settings.toml"
        path.write_text(tomli_w.dumps(others), encoding="utf-8")
        save_settings(FULL, path)
        assert load_settings(path) == FULL
        assert tomllib.loads(path.read_text(encoding="utf-8")) == (
            dataclasses.asdict(FULL) | others)


def test_the_settings_file_and_private_files_are_the_users_alone(tmp_path: Path) -> None:
    path = tmp_path / "config" / "settings.toml"
    save_settings(Settings(theme="openletta-light"), path)
    assert path.stat().st_mode & 0o777 == 0o600
    export = tmp_path / "chat.md"
    export.write_text("old, readable by all")
    export.chmod(0o644)
    write_private_file(export, "# chat\n")
    assert export.read_text() == "# chat\n"
    assert export.stat().st_mode & 0o777 == 0o600
    new = tmp_path / "new-chat.md"
    write_new_private_file(new, "# chat\n")
    assert new.read_text() == "# chat\n"
    assert new.stat().st_mode & 0o777 == 0o600


def test_a_new_file_never_replaces_one_and_a_failed_write_leaves_none(tmp_path: Path) -> None:
    important = tmp_path / "important.md"
    important.write_text("IMPORTANT\n")
    with pytest.raises(FileExistsError):
        write_new_private_file(important, "# chat\n")
    assert important.read_text() == "IMPORTANT\n"
    half = tmp_path / "half.md"
    with pytest.raises(UnicodeEncodeError):
        write_new_private_file(half, "written, then \ud800 cannot be")
    assert not half.exists()
