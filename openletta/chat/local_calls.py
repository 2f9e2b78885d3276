"""The local toolset of a chat: which pending calls run here, whether they may, and running
them. No Textual here; the controller decides when.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openletta.api.answers import INTERRUPTED
from openletta.display import has_hidden_characters
from openletta.tools import LOCAL_TOOLS
from openletta.tools.base import (
    STOPPED,
    LocalTool,
    OnOutput,
    ToolInputError,
    ToolOutcome,
    Workspace,
)
from openletta.tools.budget import ReturnBudget
from openletta.tools.output import Capture
from openletta.tools.permissions import PermissionMode, Permissions, Verdict
from openletta.transcript import Change, ToolCallItem, ToolStatus, Transcript
from openletta.transcript.edits import with_edit_note

log = logging.getLogger(__name__)

BAD_ARGUMENTS = "The arguments are not a JSON object; call the tool again with valid JSON."
#: How the agent is told what a call the user stopped had printed, after :data:`INTERRUPTED`.
PRINTED_SO_FAR = f"{INTERRUPTED} What it printed until then:"


@dataclass
class LocalCalls:
    """The tools this client declares to the agent, and the user's permissions for them."""

    permissions: Permissions
    tools: Sequence[LocalTool] = LOCAL_TOOLS
    #: Where each judged call's paths led then, by call id (see :meth:`pin`).
    _pinned: dict[str, dict[Path, Path]] = dataclasses.field(default_factory=dict)

    @property
    def workspace(self) -> Workspace:
        return self.permissions.workspace

    @property
    def mode(self) -> PermissionMode:
        return self.permissions.mode

    def declarations(self) -> list[dict[str, Any]]:
        """The ``client_tools`` of every request."""
        return [tool.declaration() for tool in self.tools]

    def tool_of(self, call: ToolCallItem) -> LocalTool | None:
        """The local tool ``call`` calls, if it is one of ours."""
        return next((tool for tool in self.tools if tool.name == call.name), None)

    def verdict(self, call: ToolCallItem) -> Verdict:
        """Run, deny or ask (see :meth:`Permissions.verdict`)."""
        tool, args = self.tool_of(call), call.arguments
        if tool is None:
            return Verdict(None)
        if args is None:
            return Verdict(False, BAD_ARGUMENTS, why="invalid arguments")
        return self.permissions.verdict(tool, args)

    def pin(self, call: ToolCallItem) -> None:
        """Note where ``call``'s paths lead as it is judged (the first time): when it runs,
        a path that leads elsewhere by then (a symbolic link put in its way) is refused."""
        tool, args = self.tool_of(call), call.arguments
        if tool is None or args is None or call.tool_call_id in self._pinned:
            return
        self._pinned[call.tool_call_id] = {path: path.resolve()
                                           for path in tool.paths(args, self.workspace)}

    def keep_pins_of(self, calls: Iterable[ToolCallItem]) -> None:
        """Forget where the calls of earlier rounds led (those denied or never run): the
        calls judged now are ``calls``."""
        kept = {call.tool_call_id for call in calls}
        self._pinned = {call_id: pins for call_id, pins in self._pinned.items()
                        if call_id in kept}

    def outside(self, call: ToolCallItem) -> list[Path]:
        """The paths ``call`` would touch outside the working directory."""
        tool, args = self.tool_of(call), call.arguments
        if tool is None or args is None:
            return []
        return self.permissions.outside(tool, args)

    def outside_said(self, call: ToolCallItem, shown: Callable[[Path], str]) -> list[str]:
        """What ``call`` touches outside the working directory, each said whole, its paths
        as ``shown`` gives them: "~/a is outside it", or for a symbolic link in the
        directory "b points to ~/c, outside it"."""
        said = []
        for path in self.outside(call):
            target = self.workspace.link_target(path)
            said.append(f"{shown(path)} is outside it" if target is None else
                        f"{path.relative_to(self.workspace.root)} points to {shown(target)}, "
                        "outside it")
        return said

    def place_asked(self, transcript: Transcript, change: Change) -> None:
        """Mark the approval requests in ``change`` for our tools, complete, as run here
        (with what they would change) before ``change`` is shown: their cards never say
        the server runs them while the server is asked which calls wait."""
        for item in (*change.added, *change.changed):
            if isinstance(item, ToolCallItem) and item.needs_approval and not item.runs_here \
                    and item.status is ToolStatus.AWAITING_APPROVAL \
                    and self.tool_of(item) is not None:
                transcript.mark_local(item.tool_call_id, self.preview(item))

    def preview(self, call: ToolCallItem) -> str | None:
        """What the call would change on disk (``None`` when nothing, or unknown)."""
        tool, args = self.tool_of(call), call.arguments
        if tool is None or args is None:
            return None
        try:
            return tool.preview(args, self.workspace)
        except (ToolInputError, OSError, ValueError) as error:
            log.info("no preview for %s: %s", call.name, error)
            return None

    def editable(self, call: ToolCallItem) -> str | None:
        """The text of ``call`` the user may edit before it runs (a shell's command), if it
        holds no character that does not show (what is edited is what is seen)."""
        tool, args = self.tool_of(call), call.arguments
        name = tool.editable_argument if tool is not None else None
        value = args.get(name) if args is not None and name is not None else None
        if not isinstance(value, str) or has_hidden_characters(value):
            return None
        return value

    def edited_arguments(self, call: ToolCallItem, text: str) -> str:
        """The JSON arguments of ``call`` with its editable text replaced by ``text``."""
        tool = self.tool_of(call)
        assert tool is not None and tool.editable_argument is not None
        return json.dumps({**(call.arguments or {}), tool.editable_argument: text})

    def budget(self, call: ToolCallItem, context_window: int | None) -> ReturnBudget:
        """How long the result of ``call`` may be, for an agent with this context window
        (tokens; ``None``: unknown), once the note of the user's edit is told with it."""
        budget = ReturnBudget.for_window(context_window)
        return budget.after(self.edited_result(call, "")) if call.edited else budget

    def edited_result(self, call: ToolCallItem, result: str) -> str:
        """What the agent is told of ``call``, which the user edited before it ran."""
        tool = self.tool_of(call)
        assert tool is not None and tool.editable_argument is not None
        value = (call.arguments or {}).get(tool.editable_argument)
        return with_edit_note(tool.editable_argument, str(value), result)

    def certain_failure(self, call: ToolCallItem) -> ToolOutcome | None:
        """What ``call`` would give if run now, when that is an error for certain (the file
        it edits was not read, the text it replaces is not there): no one need approve it."""
        tool, args = self.tool_of(call), call.arguments
        if tool is None or args is None:
            return None
        try:
            tool.check(args, self.workspace)
        except ToolInputError as error:
            return self._failed(call, ToolOutcome(str(error), ok=False))
        except (OSError, ValueError) as error:
            log.info("could not check %s: %s", call.name, error)
        return None

    async def run(self, call: ToolCallItem, on_output: OnOutput,
                  budget: ReturnBudget) -> ToolOutcome:
        """Run ``call`` here, its result within ``budget`` (see :meth:`budget`); a failure
        becomes an error result the agent reads.

        Cancelling the task stops the call (and every process it started).
        """
        outcome = self._failed(call, await self._outcome(call, on_output, budget))
        return dataclasses.replace(outcome, text=budget.clip(outcome.text))

    def _failed(self, call: ToolCallItem, outcome: ToolOutcome) -> ToolOutcome:
        """``outcome``, and when it is a failure of a tool whose failures show their preview
        (:attr:`~openletta.tools.base.LocalTool.failure_shows_preview`), the call's preview
        as its output: what it would have changed, kept with the result for history."""
        tool = self.tool_of(call)
        if outcome.ok or outcome.stdout is not None or call.preview is None \
                or tool is None or not tool.failure_shows_preview:
            return outcome
        return dataclasses.replace(outcome, stdout=[call.preview])

    @staticmethod
    def stopped(printed: Capture, budget: ReturnBudget) -> ToolOutcome:
        """The outcome of a call the user stopped, which had ``printed`` that much: the
        agent is told so first, then (within ``budget``) what it printed, as the user sees
        it on its card."""
        if not printed.total:
            return STOPPED
        return dataclasses.replace(STOPPED, text=printed.told(PRINTED_SO_FAR, budget),
                                   stdout=[printed.text()])

    async def _outcome(self, call: ToolCallItem, on_output: OnOutput,
                       budget: ReturnBudget) -> ToolOutcome:
        tool, args = self.tool_of(call), call.arguments
        if tool is None or args is None:
            return ToolOutcome(BAD_ARGUMENTS, ok=False)
        workspace = dataclasses.replace(self.workspace,
                                        approved=self._pinned.pop(call.tool_call_id, {}))
        try:
            return await tool.run(args, workspace, on_output, budget)
        except ToolInputError as error:
            return ToolOutcome(str(error), ok=False)
        except OSError as error:
            return ToolOutcome(f"{type(error).__name__}: {error}", ok=False)
