"""What the client itself does to the calls of a live turn: the user's answers to approval
requests, calls the server dropped, and calls run on this machine."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from openletta.transcript.change import Change
from openletta.transcript.history import HistoryPages
from openletta.transcript.interruption import returned_status
from openletta.transcript.items import ToolStatus

#: Live output of a call run here: parts kept before they are joined, characters kept then.
_LIVE_PARTS = 2000
_LIVE_CHARACTERS = 200_000


class CallUpdates(HistoryPages):
    """Updates of tool calls that come from this client, not from the server's messages."""

    #: The message the reply coming now answers, when known here and not stored yet: sent
    #: from this client, or the one a followed reply answers, as this client remembers it
    #: (``Transcript.follow_run``); not once the turn goes on after approvals (stored by then).
    turn_prompt: str | None = None

    def record_decisions(
        self, decisions: Mapping[str, tuple[bool, str | None]], *,
        auto: Collection[str] = frozenset(),
    ) -> Change:
        """Record the user's answers to approval requests: ``{tool_call_id: (approve, reason)}``.

        ``auto`` names the calls a client-side rule answered (marked "auto-approved"). Sending
        the answers continues the turn, so the last stop reason and run are reset (its usage
        goes on adding up).
        """
        self.stop_reason, self.run_id, self.turn_prompt = None, None, None  # (stored now)
        self._followed = None
        change = Change()
        for tool_call_id, (approve, reason) in decisions.items():
            item = self._calls.get(tool_call_id)
            if item is not None:
                self._decide(item, approve, reason, change)
                item.auto_approved = approve and tool_call_id in auto
        return change

    def settle_unheld(self, held: Collection[str]) -> Change:
        """Calls shown as awaiting approval that the server does not hold will never run.

        A model may stream several calls in one step while the agent runs one
        (``parallel_tool_calls: false``): only the ``held`` ids wait for an answer.
        """
        change = Change()
        for item in self.pending_approvals:
            if item.tool_call_id not in held:
                item.status = ToolStatus.NOT_RUN
                change.touch(item)
        return change

    # --- calls run here -------------------------------------------------------------------

    def mark_local(self, tool_call_id: str, preview: str | None) -> Change:
        """The call is of a tool this client runs; ``preview`` shows what it would change."""
        return self._update_call(tool_call_id, runs_here=True, preview=preview)

    def edit_local(self, tool_call_id: str, arguments_text: str) -> Change:
        """The user edited a call run here before approving it: ``arguments_text`` runs
        (what the agent asked for is kept)."""
        item = self._calls.get(tool_call_id)
        asked = item and (item.asked_arguments_text or item.arguments_text)
        return self._update_call(tool_call_id, arguments_text=arguments_text, edited=True,
                                 asked_arguments_text=asked)

    def start_local(self, tool_call_id: str) -> Change:
        """A call approved here starts running on this machine."""
        return self._update_call(tool_call_id, status=ToolStatus.RUNNING, approved=True)

    def local_output(self, tool_call_id: str, text: str) -> Change:
        """Output of a call running here, as it comes (the newest part kept when huge)."""
        change = Change()
        if (item := self._calls.get(tool_call_id)) is not None and text:
            item.stdout.append(text)
            if len(item.stdout) > _LIVE_PARTS:
                item.stdout[:] = ["".join(item.stdout)[-_LIVE_CHARACTERS:]]
            change.touch(item)
        return change

    def finish_local(self, tool_call_id: str, result: str, *, ok: bool,
                     stdout: Sequence[str] | None = None) -> Change:
        """A call run here ended with ``result`` (what the agent is told); ``stdout`` is its
        output as sent (in place of what streamed). A result that says the user stopped it
        shows it cancelled, by the rule history reads it with (:func:`returned_status`)."""
        status = returned_status("success" if ok else "error", result)
        if stdout is None:
            return self._update_call(tool_call_id, result=result, status=status)
        return self._update_call(tool_call_id, result=result, status=status,
                                 stdout=list(stdout))

    def _update_call(self, tool_call_id: str, **fields: object) -> Change:
        change = Change()
        if (item := self._calls.get(tool_call_id)) is not None:
            for name, value in fields.items():
                setattr(item, name, value)
            change.touch(item)
        return change
