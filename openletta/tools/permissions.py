"""Which local calls run without asking: the permission mode and the user's rules.

No Textual here. Nothing runs unless the user allowed it: by answering the prompt, by a mode
they chose (``--permission-mode``, or the key that switches it), or by a rule they made
("don't ask again this session", or "always allow" in this project, saved per project).
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import tomli_w

from openletta.settings import config_dir, write_private_file
from openletta.tools.base import Access, LocalTool, Workspace

log = logging.getLogger(__name__)

#: Per-project "always allow" rules: ``"<project path>" = ["Read", "LS"]``.
RULES_FILE = "local-tools.toml"


class PermissionMode(StrEnum):
    """How local calls are approved."""

    #: Every local call asks.
    ASK = "ask"
    #: Reads, writes and edits inside the working directory run; commands ask.
    ACCEPT_EDITS = "accept-edits"
    #: Reading tools run without asking; every other call is denied, with a reason the
    #: agent reads.
    READ_ONLY = "read-only"
    #: Everything runs without asking (only with ``--yolo``).
    YOLO = "yolo"

    @property
    def label(self) -> str:
        """How the status bar names the mode."""
        return {PermissionMode.ASK: "ask", PermissionMode.ACCEPT_EDITS: "accept edits",
                PermissionMode.READ_ONLY: "read-only", PermissionMode.YOLO: "YOLO"}[self]

    @property
    def explained(self) -> str:
        """What the mode does, in a sentence or two for the user."""
        return {
            PermissionMode.ASK: "Every local call asks first.",
            PermissionMode.ACCEPT_EDITS: ("Reads, writes and edits inside the working directory "
                                          "run without asking; commands still ask."),
            PermissionMode.READ_ONLY: ("Only Read, Glob, Grep and LS run; other calls are "
                                       "denied and the agent is told why."),
            PermissionMode.YOLO: "Every local call runs without asking.",
        }[self]


#: The modes the switching key goes through (yolo only by its flag).
SWITCHABLE = (PermissionMode.ASK, PermissionMode.ACCEPT_EDITS, PermissionMode.READ_ONLY)


@dataclass(frozen=True)
class Verdict:
    """What happens to a call: ``allow`` True runs it, False denies it (``reason`` goes to
    the agent), ``None`` asks the user. ``why`` says which mode or rule decided."""

    allow: bool | None
    reason: str | None = None
    why: str | None = None


ASK = Verdict(None)


def read_only_denial(tool: LocalTool) -> str:
    """What the agent reads when read-only mode denies ``tool``."""
    return (f"{tool.name} is not allowed: the user runs openletta in read-only mode, where "
            "only Read, Glob, Grep and LS run. Ask the user to switch modes if the task needs "
            "it.")


@dataclass
class ProjectRules:
    """The tools allowed without asking in each project, saved in the config directory."""

    path: Path = field(default_factory=lambda: config_dir() / RULES_FILE)
    _rules: dict[str, list[str]] | None = None

    def allowed(self, project: Path) -> list[str]:
        """Tools always allowed in ``project``."""
        return list(self._load().get(str(project), []))

    def allow(self, project: Path, tool: str) -> None:
        """Always allow ``tool`` in ``project`` (saved at once)."""
        rules = self._load()
        names = rules.setdefault(str(project), [])
        if tool not in names:
            names.append(tool)
            self._save()

    def revoke(self, project: Path, tool: str) -> None:
        """Ask again for ``tool`` in ``project``."""
        rules = self._load()
        names = rules.get(str(project), [])
        if tool in names:
            names.remove(tool)
            if not names:
                del rules[str(project)]
            self._save()

    def _load(self) -> dict[str, list[str]]:
        if self._rules is None:
            self._rules = _read_rules(self.path)
        return self._rules

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_private_file(self.path, tomli_w.dumps(self._load()))


def _read_rules(path: Path) -> dict[str, list[str]]:
    """The saved rules; none when the file is missing or broken (a broken one is logged)."""
    try:
        data: Mapping[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        log.warning("ignoring the local tool rules in %s: %s", path, error)
        return {}
    return {str(project): [str(name) for name in names if isinstance(name, str)]
            for project, names in data.items() if isinstance(names, list)}


@dataclass
class Permissions:
    """The mode and rules for the local calls of one chat, in one working directory."""

    workspace: Workspace
    mode: PermissionMode = PermissionMode.ASK
    project_rules: ProjectRules = field(default_factory=ProjectRules)
    #: Tools the user allowed "for this session".
    session: set[str] = field(default_factory=set)

    def outside(self, tool: LocalTool, args: Mapping[str, Any]) -> list[Path]:
        """The paths a call of ``tool`` would touch outside the working directory: such a
        call always asks, whatever the mode or rules (but YOLO)."""
        return [path for path in tool.paths(args, self.workspace)
                if not self.workspace.inside(path)]

    def verdict(self, tool: LocalTool, args: Mapping[str, Any]) -> Verdict:
        """Run, deny or ask for a call of ``tool`` with ``args``."""
        if self.mode is PermissionMode.YOLO:
            return Verdict(True, why="yolo")
        if self.outside(tool, args):
            return ASK  # outside the working directory: always the user's call
        if self.mode is PermissionMode.READ_ONLY:
            if tool.access is Access.READ:
                return Verdict(True, why="read-only mode")
            return Verdict(False, read_only_denial(tool), why="read-only mode")
        if tool.name in self.session:
            return Verdict(True, why="allowed this session")
        if tool.name in self.project_rules.allowed(self.workspace.root):
            return Verdict(True, why="always allowed in this project")
        if self.mode is PermissionMode.ACCEPT_EDITS and tool.access is not Access.EXECUTE:
            return Verdict(True, why="accept-edits mode")
        return ASK

    def described(self, tools: Iterable[LocalTool]) -> str:
        """The mode, what it does, and which of ``tools`` the user's rules let run where the
        mode alone would have them ask."""
        said = f"Mode: {self.mode.label}. {self.mode.explained}"
        ruled = self.session | set(self.project_rules.allowed(self.workspace.root))
        allowed = sorted(tool.name for tool in tools if tool.name in ruled and (
            self.mode is PermissionMode.ASK or (self.mode is PermissionMode.ACCEPT_EDITS
                                                and tool.access is Access.EXECUTE)))
        if not allowed:
            return said
        names = ", ".join(allowed[:-1]) + " and " + allowed[-1] if allowed[1:] else allowed[0]
        return f"{said} Your rules let {names} run without asking."

    def allow_always(self, tool: str) -> None:
        """Never ask again for ``tool`` in this project."""
        self.project_rules.allow(self.workspace.root, tool)

    def next_mode(self) -> PermissionMode:
        """Switch to the next mode of :data:`SWITCHABLE` (from yolo: back to ask)."""
        position = SWITCHABLE.index(self.mode) if self.mode in SWITCHABLE else -1
        self.mode = SWITCHABLE[(position + 1) % len(SWITCHABLE)]
        return self.mode
