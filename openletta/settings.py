"""What openletta remembers between runs (theme, server, last agent and conversation) and
the user's preferences (``print_chat_on_exit``).

Settings live in ``settings.toml`` in the user's config directory (``OPENLETTA_CONFIG_DIR``
overrides it). Reading never fails: a missing file gives the defaults, a broken one the
defaults plus a :class:`SettingsWarning`. Writing is atomic and keeps keys the user added
that openletta does not know. The API key is never stored here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
import tomllib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

CONFIG_DIR_ENV = "OPENLETTA_CONFIG_DIR"
SETTINGS_FILE = "settings.toml"


class SettingsWarning(UserWarning):
    """The settings file could not be read or holds a value of the wrong type."""


@dataclass(frozen=True)
class Settings:
    """Remembered choices; ``None`` means "not chosen yet"."""

    theme: str | None = None
    base_url: str | None = None
    last_agent: str | None = None
    last_conversation: str | None = None
    #: Where the last chat was opened: the server's URL, or ``demo``.
    last_server: str | None = None
    #: Print what was said in this run into the terminal as the app exits.
    print_chat_on_exit: bool = True

    def last_agent_on(self, server: str) -> str | None:
        """The id of the agent of the chat last opened, if that was on ``server``."""
        return self.last_agent if self.last_server == server else None

    def last_chat(self) -> tuple[str, str, str | None] | None:
        """The server, agent and conversation of the chat last opened, if one was."""
        if self.last_agent and self.last_server:
            return self.last_server, self.last_agent, self.last_conversation
        return None


_FIELDS = tuple(field.name for field in dataclasses.fields(Settings))
#: The type of each setting's value in the file: a boolean for those whose default is one.
_TYPES = {name: bool if isinstance(getattr(Settings, name), bool) else str for name in _FIELDS}


def config_dir() -> Path:
    """openletta's config directory: ``$OPENLETTA_CONFIG_DIR`` or the platform's default."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir("openletta"))


def cache_dir() -> Path:
    """Where openletta keeps what it can make again (what a launch compiled or parsed): the
    platform's cache directory, or the ``cache`` folder of ``$OPENLETTA_CONFIG_DIR``."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser() / "cache"
    return Path(platformdirs.user_cache_dir("openletta"))


def config_path() -> Path:
    """Where the settings file is (it may not exist yet)."""
    return config_dir() / SETTINGS_FILE


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings; defaults when the file is missing or broken (never raises)."""
    path = path or config_path()
    try:
        data = _read_toml(path)
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        warnings.warn(f"Ignoring settings file {path}: {error}", SettingsWarning, stacklevel=2)
        return Settings()
    values: dict[str, Any] = {}
    for name, kind in _TYPES.items():
        value = data.get(name)
        if value is None:
            continue
        if isinstance(value, kind):
            values[name] = value
        else:
            expected = "true or false" if kind is bool else "a string"
            warnings.warn(f"Ignoring {name} in {path}: expected {expected}, got {value!r}",
                          SettingsWarning, stacklevel=2)
    return Settings(**values)


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Write ``settings`` atomically, keeping keys of the current file openletta does not know.

    Raises :class:`OSError` when the file cannot be written.
    """
    path = path or config_path()
    try:
        current = _read_toml(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        current = {}
    known = {name: getattr(settings, name) for name in _FIELDS}
    others = {key: value for key, value in current.items() if key not in known}
    # A preference at its default is left out, unless the file already says it.
    data = {key: value for key, value in known.items()
            if value is not None and (value != getattr(Settings, key) or key in current)}
    data |= others
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private_file(path, tomli_w.dumps(data))


def _read_toml(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def write_private_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, as a file only the user can read (0600)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_new_private_file(path: Path, text: str) -> None:
    """Create ``path`` holding ``text``, readable by the user alone (0600).

    Never replaces a file: raises :class:`FileExistsError` when ``path`` exists (created
    exclusively, so no other writer can slip in between). A failed write leaves no file.
    """
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
