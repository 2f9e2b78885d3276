"""What every local tool is: a name, a JSON schema the agent sees, and a coroutine that runs
it in a :class:`Workspace`.

No Textual and no network here. The tools run with the user's rights, in the working
directory, and only once the chat controller allowed the call (see
:mod:`openletta.tools.permissions`).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, TypeVar, overload

from openletta.api.answers import INTERRUPTED
from openletta.tools.budget import ReturnBudget

#: Hears output as it comes (a running command's stdout and stderr, merged).
OnOutput = Callable[[str], None]
#: What a result may take when the agent's context window is unknown (Letta's minimum).
DEFAULT_BUDGET = ReturnBudget.for_window(None)
#: Environment variables never passed to a child process, whatever their value.
SECRET_VARIABLES = frozenset({"LETTA_API_KEY"})


class Access(StrEnum):
    """What a tool can do to the machine (permission modes decide by it)."""

    READ = "read"
    EDIT = "edit"
    EXECUTE = "execute"


class ToolInputError(Exception):
    """The call's arguments cannot work; the message is for the agent, who can fix them."""


_T = TypeVar("_T")
_D = TypeVar("_D")
_REQUIRED: Any = object()
_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array",
               dict: "object"}


@overload
def arg(args: Mapping[str, Any], name: str, kind: type[_T]) -> _T: ...
@overload
def arg(args: Mapping[str, Any], name: str, kind: type[_T], default: _D) -> _T | _D: ...
def arg(args: Mapping[str, Any], name: str, kind: type[Any], default: Any = _REQUIRED) -> Any:
    """``args[name]``, checked to be a ``kind`` (``default`` when absent or null; without a
    default it is required). Raises :class:`ToolInputError` for a missing or mistyped one."""
    value = args.get(name)
    if value is None:
        if default is _REQUIRED:
            raise ToolInputError(f"Missing required argument {name!r}.")
        return default
    if kind is float and type(value) is int:
        value = float(value)
    elif kind is int and type(value) is float and value.is_integer():
        value = int(value)
    if not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool):
        raise ToolInputError(f"Argument {name!r} must be of type {_JSON_TYPES.get(kind, kind)}, "
                             f"not {_JSON_TYPES.get(type(value), type(value).__name__)}.")
    return value


@dataclass(frozen=True)
class ToolOutcome:
    """What a local tool gives back to the agent: ``text`` is the tool return. ``stdout`` and
    ``stderr`` go with it for the client to show, live and in history (the server keeps them;
    the model reads ``text`` alone): a command's output, the diff of an edit."""

    text: str
    ok: bool = True
    stdout: list[str] | None = None
    stderr: list[str] | None = None
    #: The user stopped the call (or it never started, the calls before it stopped).
    interrupted: bool = False


#: The outcome of a call the user stopped with Esc.
STOPPED = ToolOutcome(INTERRUPTED, ok=False, interrupted=True)


@dataclass(frozen=True)
class FileStamp:
    """A file as it was when the agent read it."""

    mtime_ns: int
    size: int


@dataclass
class Workspace:
    """Where local tools run: the working directory, the files the agent has read (and how
    they were then), and the environment child processes get."""

    root: Path
    environment: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    _read: dict[Path, FileStamp] = field(default_factory=dict)
    #: For one call: where its paths led when it was judged (and, if asked, approved).
    #: A view for a call (:func:`dataclasses.replace`) shares the read files.
    approved: Mapping[Path, Path] = field(default_factory=dict)

    def resolve(self, path: str) -> Path:
        """``path`` (``~`` expanded, relative to :attr:`root`) as an absolute path."""
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        return Path(os.path.normpath(candidate))

    def inside(self, path: Path) -> bool:
        """Whether ``path`` is in the working directory (symbolic links followed)."""
        root = self.root.resolve()
        try:
            path.resolve().relative_to(root)
        except ValueError:
            return False
        return True

    def target(self, path: Path) -> Path:
        """Where ``path`` leads now (links resolved); :class:`ToolInputError` when that is
        not where it led when the call was approved (a link put in its way since)."""
        now = path.resolve()
        then = self.approved.get(path)
        if then is not None and then != now:
            raise ToolInputError(f"{path} changed since the call was approved: it led to "
                                 f"{then}, it now leads to {now}. Nothing was done; call "
                                 "again if it should.")
        return now

    def link_target(self, path: Path) -> Path | None:
        """Where ``path`` really is, when it names a place in the working directory that a
        symbolic link (it, or a directory on its way) takes elsewhere; else ``None``."""
        try:
            relative = path.relative_to(self.root)
        except ValueError:
            return None
        target = path.resolve()
        return None if target == self.root.resolve() / relative else target

    def child_environment(self) -> dict[str, str]:
        """The environment for child processes: never the Letta API key, under any name."""
        secrets = {value for name, value in self.environment.items()
                   if name in SECRET_VARIABLES and value}
        return {name: value for name, value in self.environment.items()
                if name not in SECRET_VARIABLES
                and not any(secret in value for secret in secrets)}

    def note_read(self, path: Path) -> None:
        """Remember ``path`` as the agent has just read it."""
        stat = path.stat()
        self._read[path] = FileStamp(stat.st_mtime_ns, stat.st_size)

    def unchanged_since_read(self, path: Path) -> str | None:
        """Why ``path`` may not be written over now (``None``: it may).

        A file that does not exist may be written; one that exists must have been read by
        the agent, and not changed on disk since.
        """
        if not path.exists():
            return None
        stamp = self._read.get(path)
        if stamp is None:
            return f"{path} exists and has not been read yet: read it first."
        stat = path.stat()
        if (stat.st_mtime_ns, stat.st_size) != (stamp.mtime_ns, stamp.size):
            return f"{path} changed on disk since it was last read: read it again first."
        return None


def object_schema(*, required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of a tool's arguments: these ``properties``, no others."""
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


class LocalTool(ABC):
    """One tool of the local toolset. Subclasses set the class attributes and :meth:`run`."""

    #: The name the agent calls (Letta Code's Anthropic-style names: ``Bash``, ``Read`` …).
    name: ClassVar[str]
    description: ClassVar[str]
    #: JSON schema of the arguments.
    parameters: ClassVar[dict[str, Any]]
    access: ClassVar[Access]
    #: The argument naming the file or directory the call works on (``None``: none).
    path_argument: ClassVar[str | None] = None
    #: Whether that argument may be left out, for the working directory.
    path_optional: ClassVar[bool] = False
    #: The text argument the user may edit on the approval prompt before the call runs
    #: (``None``: none).
    editable_argument: ClassVar[str | None] = None
    #: Whether a failed call's result carries its preview as its output (what it would have
    #: changed, numbered by the file's lines): the server keeps it, so the call read back
    #: from history shows the change as its card did.
    failure_shows_preview: ClassVar[bool] = False

    def declaration(self) -> dict[str, Any]:
        """The tool as declared in a request's ``client_tools``."""
        return {"name": self.name, "description": self.description,
                "parameters": self.parameters}

    def paths(self, args: Mapping[str, Any], workspace: Workspace) -> list[Path]:
        """The paths the call would touch: what :attr:`path_argument` names (nothing for a
        command: its paths are unknown). Never raises; :meth:`run` checks the arguments."""
        value = args.get(self.path_argument) if self.path_argument else None
        if isinstance(value, str) and value:
            return [workspace.resolve(value)]
        return [workspace.root] if self.path_argument and self.path_optional else []

    def preview(self, args: Mapping[str, Any], workspace: Workspace) -> str | None:
        """What the call would change, shown before it is approved (a unified diff)."""
        return None

    def check(self, args: Mapping[str, Any], workspace: Workspace) -> None:
        """Raise :class:`ToolInputError` if the call is bound to fail as things stand (its
        arguments, the files it needs), finding out without changing anything. What it
        raises is what :meth:`run` would. Most tools cannot tell before they run."""
        return

    @abstractmethod
    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """Carry the call out; what the agent is told fits ``budget`` (see
        :mod:`openletta.tools.budget`: the tool keeps what matters most, its notes first).
        Raises :class:`ToolInputError` for arguments that cannot work; cancelling the task
        stops the call (and everything it started)."""
