"""The slash commands that act on the open chat (memory, context, runs, approval rules,
the agent's model, compaction, clear, export): the base of :class:`~openletta.ui.app.OpenLettaApp`.
Each says so when no chat is open, or does nothing where that is all there is to say. And the
terminal's focus coming back, which the open chat hears (and a screen opened meanwhile). The
screens they open are imported as they open (a launch shows none of them)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from textual import work
from textual.app import App

from openletta.api.client import LettaClient
from openletta.api.errors import NOT_FOUND_ADVICE, LettaError, NotFoundError
from openletta.chat.local_calls import LocalCalls
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.display import counted
from openletta.transcript.export import default_export_name
from openletta.ui.commands import SLASH_COMMANDS
from openletta.ui.dates import Clock
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.textual_internals import give_first_focus
from openletta.ui.themes import themes_from_next


class ChatCommands(App[None]):
    """App actions on the open chat screen."""

    client: LettaClient | None
    local: LocalCalls | None
    _clock: Clock
    #: The themes ``/theme`` switches among: openletta's and the user's.
    theme_names: list[str]

    def argument_choices(self, command: str) -> list[str]:
        """What the argument of ``/command`` completes to (most: nothing): the themes, the
        next one first (as ``/theme`` alone switches to it)."""
        if command != "theme":
            return []
        return themes_from_next(self.theme_names or sorted(self.available_themes), self.theme)

    def open_chat(self) -> ChatScreen | None:
        """The chat on screen; ``None``, and a note saying so, when there is none."""
        screen = self.screen
        if isinstance(screen, ChatScreen) and self.client is not None:
            return screen
        self.notify("Open a chat first.", severity="warning")
        return None

    def on_app_focus(self) -> None:
        """The terminal has the focus again (it says so when focus reporting is on): the
        chat on screen reads what another client said meanwhile, if it is idle and quiet;
        a screen that opened meanwhile gets its first focus (once Textual has the focus)."""
        self.call_later(give_first_focus, self.screen)
        if isinstance(self.screen, ChatScreen):
            self.screen.controller.returned()

    async def action_memory(self) -> None:
        """Show or hide the memory panel of the open chat."""
        if isinstance(self.screen, ChatScreen):
            await self.screen.action_toggle_memory()

    def action_context(self) -> None:
        """Show how the open chat's agent spends its context window."""
        from openletta.ui.screens.inspect import ContextScreen

        if isinstance(self.screen, ChatScreen):
            self.push_screen(ContextScreen.of(self.screen.session, self.screen.window_seen))

    def action_inspect_run(self) -> None:
        """Show the runs and steps of the open chat's newest turn that names them."""
        from openletta.ui.screens.inspect import RunScreen

        if isinstance(screen := self.screen, ChatScreen):
            session = screen.session
            run_ids = session.transcript.newest_runs()
            if not run_ids and session.run_id:
                run_ids = (session.run_id,)
            if not run_ids and not session.transcript.has_turns():
                self.notify("No turn yet in this conversation.", title="Run")
                return
            self.push_screen(RunScreen(session.client, run_ids, screen.model_seen))

    def action_approval_rules(self) -> None:
        """Show which of the agent's tools need approval, and toggle them."""
        from openletta.ui.screens.approval_rules import ApprovalRulesScreen

        if (screen := self.open_chat()) is None or self.client is None:
            return
        agent = screen.session.agent
        self.push_screen(ApprovalRulesScreen(self.client, agent.id, agent.name or agent.id,
                                             self.local, screen.controller.auto_approve))

    def action_rename_conversation(self, name: str = "") -> None:
        """Name the open conversation (the agent's default thread has none)."""
        if (screen := self.open_chat()) is None:
            return
        if screen.session.conversation_id is None:
            self.notify("The default thread has no name: /new NAME starts a named "
                        "conversation.", title="Rename", severity="warning")
        elif not name.strip():
            self.notify(f"Say the name: {SLASH_COMMANDS['rename'].usage}", title="Rename",
                        severity="warning")
        else:
            self.rename_conversation(screen, name.strip())

    @work(group="rename", exclusive=True, exit_on_error=False)
    async def rename_conversation(self, screen: ChatScreen, name: str) -> None:
        """Store ``name`` as the open conversation's summary, then show it."""
        session = screen.session
        assert self.client is not None and session.conversation_id is not None
        try:
            await self.client.rename_conversation(session.conversation_id, name)
        except LettaError as error:
            self.notify(f"Could not rename the conversation: {error.message}", title="Rename",
                        severity="error")
            return
        session.conversation_name = name
        screen.status.info = dataclasses.replace(screen.status.info, conversation_name=name)
        self.notify(f"This conversation is now named “{name}”.", title="Rename")

    def action_model(self, handle: str = "") -> None:
        """Switch the open chat's agent to another model: ``handle``, or one chosen from the
        server's list."""
        from openletta.ui.screens.model import ModelScreen

        if (screen := self.open_chat()) is None or self.client is None:
            return
        if not self._quiet(screen, "switch models", title="Model"):
            return
        agent = screen.session.agent
        if handle.strip():
            self.switch_model(screen, handle.strip())
            return

        def chosen(model: str | None) -> None:
            if model is not None:
                self.switch_model(screen, model)

        self.push_screen(ModelScreen(self.client, agent.name or agent.id, agent.model_name,
                                     reread=screen.model_now), chosen)

    @work(group="model", exclusive=True, exit_on_error=False)
    async def switch_model(self, screen: ChatScreen, model: str) -> None:
        """Make the agent of ``screen`` run on ``model``, then show it in the status bar. A
        model that looks like the one in use is looked at again (another client may have
        changed it)."""
        session = screen.session
        name = session.agent.name or session.agent.id
        if model == session.agent.model_name and model == await screen.model_now():
            self.notify(f"{name} runs on {model} already.", title="Model")
            return
        try:
            agent = await session.switch_model(model)
        except LettaError as error:
            message = error.message
            if isinstance(error, NotFoundError):  # what was not found is a handle, not an id
                message = message.replace(NOT_FOUND_ADVICE,
                                          "Check the handle, or choose one: /model")
            self.notify(f"Could not switch {name} to {model}: {message}", title="Model",
                        severity="error")
            return
        screen.agent_changed(agent)
        self.notify(f"{name} runs on {agent.model_name} from its next step on.", title="Model")

    def action_compact(self) -> None:
        """Have the server summarise the open thread's older messages (fewer stay in the
        agent's context window)."""
        if (screen := self.open_chat()) is None:
            return
        if self._quiet(screen, "compact", title="Compact", approvals_too=True):
            self.compact(screen)

    @work(group="compact", exclusive=True, exit_on_error=False)
    async def compact(self, screen: ChatScreen) -> None:
        """Compact the thread of ``screen``; its summary shows in the chat."""
        self.notify("Summarising the older messages…", title="Compact")
        try:
            done = await screen.controller.compact()
        except LettaError as error:  # (said in the chat: the user may need it after the toast)
            screen.report(f"Could not compact: {error.message}", title="Compact", notice=True)
            return
        if done.num_messages_before is not None and done.num_messages_after is not None:
            self.notify(f"Messages in context: {done.num_messages_before} → "
                        f"{done.num_messages_after}.", title="Compacted")
        else:
            self.notify("The older messages are summarised.", title="Compacted")

    def _quiet(self, screen: ChatScreen, doing: str, *, title: str,
               approvals_too: bool = False) -> bool:
        """Whether the chat of ``screen`` is between turns (and, with ``approvals_too``, no
        call waits for an answer); if not, say when ``doing`` can be done."""
        if screen.busy:
            self.notify(f"The agent is busy: {doing} once the turn ends (or after Esc).",
                        title=title, severity="warning")
            return False
        if approvals_too and screen.controller.state.phase is Phase.AWAITING_APPROVAL:
            self.notify(f"The agent waits for your approval: answer it first, then {doing}.",
                        title=title, severity="warning")
            return False
        return True

    def action_clear(self) -> None:
        """Clear the chat screen (the conversation itself is kept)."""
        if isinstance(self.screen, ChatScreen):
            self.screen.view.clear()

    def action_export(self, path: str = "") -> None:
        """Write the whole conversation (every page) as Markdown to ``path`` (relative to the
        working directory; default: a new timestamped name there). Never replaces a file."""
        if (screen := self.open_chat()) is None:
            return
        name = screen.session.agent.name or screen.session.agent.id
        chosen = Path(path).expanduser() if path else Path(default_export_name(name, self._clock()))
        target = (Path.cwd() / chosen).resolve()
        if os.path.lexists(target):
            self.refuse_export(target)
        else:
            self.export_conversation(screen.session, name, target)

    def refuse_export(self, target: Path) -> None:
        """Say that ``target`` is there already and is kept as it is."""
        self.notify(f"Not exported: {target} already exists, and /export never replaces a "
                    "file. Give another name: /export NAME.", title="Export", severity="error")

    @work(group="export", exclusive=True, exit_on_error=False)
    async def export_conversation(self, session: ChatSession, name: str, target: Path) -> None:
        """Read every page of the thread from the server and write it as Markdown."""
        self.notify(f"Exporting {name}…", title="Export")
        try:
            count = await session.export_markdown(name, target)
        except LettaError as error:
            self.notify(f"Could not read the conversation: {error.message}", title="Export",
                        severity="error")
        except FileExistsError:
            self.refuse_export(target)
        except OSError as error:
            self.notify(f"Could not write {target}: {error.strerror or error}", title="Export",
                        severity="error")
        else:
            self.notify(f"Exported {counted(count, 'message')} to {target}" if count else
                        "Nothing to export yet: this conversation has no messages.",
                        title="Export")
