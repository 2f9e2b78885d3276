"""The openletta Textual app: connects, lets the user pick an agent, opens the chat.

The app wires screens together and owns what outlives a screen: the client, the embedded
demo server, settings and themes, and the app-wide actions behind the slash commands. A screen
that a launch does not show is imported where it opens, so that a launch does not wait for it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterable
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.notifications import SeverityLevel
from textual.screen import Screen

from openletta.api.client import LettaClient
from openletta.api.errors import LettaError
from openletta.api.history import HistoryPage
from openletta.api.resources import Agent
from openletta.chat.early import AGENT_ID_PREFIX, EarlyOpening
from openletta.chat.local_calls import LocalCalls
from openletta.chat.opening import Opening, first_requests, read_conversation, start_request
from openletta.chat.session import ChatSession, newest_page
from openletta.config import ResumeHint, resume_hint, server_key
from openletta.display import single_line
from openletta.recall import SentMessages
from openletta.settings import Settings, load_settings, save_settings
from openletta.ui.collector import collect_while_waiting, settle_after_startup
from openletta.ui.commands import SLASH_COMMANDS, SlashCommandProvider, parse_slash
from openletta.ui.conversation_actions import ConversationActions, fallback_note
from openletta.ui.dates import Clock, utc_now
from openletta.ui.first_messages import FirstMessages
from openletta.ui.left_behind import LeftBehind
from openletta.ui.printout import ChatsOfThisRun
from openletta.ui.screens.base import ReportsWorkerErrors
from openletta.ui.screens.chat import ChatScreen
from openletta.ui.screens.connect import ConnectScreen
from openletta.ui.signals import quit_on_signals
from openletta.ui.textual_internals import KeepsBeforeCrash, QuietLinuxDriver, write_to_terminal
from openletta.ui.themes import ThemeVariables, install_themes, unknown_theme
from openletta.ui.toasts import Toasts

if TYPE_CHECKING:
    from openletta.demo import DemoServer
    from openletta.ui.screens.agents import AgentChooserScreen

DEMO_LABEL = "the embedded demo server"
#: Seconds within which a second Ctrl+C quits.
QUIT_AGAIN_SECONDS = 2.0


class OpenLettaApp(ThemeVariables, ConversationActions, KeepsBeforeCrash, ReportsWorkerErrors):
    """A terminal chat client for Letta agents."""

    CSS_PATH: ClassVar[list[str | PurePath]] = ["styles/app.tcss", "styles/widgets.tcss"]
    TITLE = "openletta"
    PAUSE_GC_ON_SCROLL = True
    COMMANDS = App.COMMANDS | {SlashCommandProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help"),
    ]
    #: When Ctrl+C last asked whether to quit (:meth:`action_help_quit`).
    _quit_asked = float("-inf")

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None,
                 demo: bool = False, agent: str | None = None, conversation: str | None = None,
                 theme: str | None = None, settings: Settings | None = None,
                 demo_speed: float = 1.0, clock: Clock = utc_now,
                 tune_gc: bool = False, local: LocalCalls | None = None,
                 early: EarlyOpening | None = None) -> None:
        """``tune_gc``: after the first connection attempt, tune the garbage collector for this
        process (and let it run, if the command line paused it), and let it work while requests
        wait for the server (:mod:`openletta.ui.collector`; for a process that runs one app, as
        the command line does). ``local``: the tools the agent may run on this machine (``None``:
        none). ``early``: the requests for ``agent`` on ``base_url``, already sent."""
        super().__init__()
        self.local = local
        self.base_url = base_url
        self.api_key = api_key
        self.demo = demo
        self.client: LettaClient | None = None
        self.settings = settings if settings is not None else load_settings()
        #: The messages sent, in this run and before (↑ in the prompt recalls them).
        self.sent_messages = SentMessages()
        #: How to come back to the same agent, printed on exit; and drafts that could not be kept.
        self.resume_hint: ResumeHint | None = None
        self.unkept_drafts: tuple[OSError | None, list[str]] | None = None
        #: What was typed while connecting, never sent: the app quit first (kept as a draft).
        self.typed_left = ""
        #: The chats opened, for what was said in them to be printed on exit.
        self.chats = ChatsOfThisRun()
        #: The user's first message in each conversation, as far as known in this run.
        self.first_messages = FirstMessages()
        #: What was typed and not sent in each chat, and the messages of the replies left
        #: (kept across runs but for the demo's).
        self._left = LeftBehind(server_key(base_url, demo=demo), lasting=not demo)
        self._agent_ref = agent
        self._conversation = conversation
        self._demo_speed = demo_speed
        self._demo_server: DemoServer | None = None
        self._clock = clock
        self._tune_gc = tune_gc
        self._first_attempt: asyncio.Task[None] | None = None
        self._early = early
        self._toasts = Toasts(self)
        self.theme_names, self._theme_warnings = install_themes(
            self, theme, self.settings.theme)

    # --- start up ---------------------------------------------------------------------------

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver; on Linux one whose input thread sleeps (:class:`QuietLinuxDriver`)."""
        driver = super().get_driver_class()
        return QuietLinuxDriver if driver is LinuxDriver else driver

    def on_mount(self) -> None:
        if self._theme_warnings:
            self.notify("\n".join(self._theme_warnings), title="Theme", severity="warning")
        if not self.is_headless:
            quit_on_signals(self)
        self._first_attempt = start_request(self._connect())
        self.push_screen(ConnectScreen(DEMO_LABEL if self.demo else (self.base_url or ""),
                                       self._establish))

    async def on_unmount(self) -> None:
        if self._first_attempt is not None:
            self._first_attempt.cancel()
        if self.client is not None:
            await self.client.aclose()
        if self._demo_server is not None:
            await self._demo_server.stop()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast, from any widget or screen: plain text, one per title (:class:`Toasts`)."""
        self._toasts.show(message, title=title, severity=severity, timeout=timeout)

    async def _establish(self) -> None:
        """One attempt of the connect screen (the first runs from :meth:`on_mount` on)."""
        attempt, self._first_attempt = self._first_attempt, None
        try:
            await (attempt if attempt is not None else self._connect())
        finally:
            if self._tune_gc:  # after the first attempt, however it ended
                self._tune_gc = False
                settle_after_startup()

    async def _connect(self) -> None:
        """Start the demo server if needed, check health while the agent is looked up, go on."""
        if self.demo and self._demo_server is None:
            from openletta.demo import DemoServer

            server = DemoServer(speed=self._demo_speed, clock=self._clock)
            self.base_url = await server.start()
            self._demo_server = server
        if self.client is None:
            assert self.base_url is not None
            self.client = LettaClient(self.base_url, api_key=self.api_key,
                                      on_wait=collect_while_waiting if self._tune_gc else None)
        health, opening = first_requests(self.client, self._agent_ref, self._conversation,
                                         self._early)
        self._early = None  # used once: a later attempt asks again
        try:
            self.client.note_health(await health)
        except BaseException:
            if opening is not None:
                await opening.cancel()
            raise
        if opening is not None:
            self.open_agent_ref(opening)
        else:
            self._replace_screens(self._chooser())

    # --- choosing and opening agents --------------------------------------------------------

    @work(exclusive=True, group="open", exit_on_error=False)
    async def open_agent_ref(self, opening: Opening) -> None:
        """Open the agent named or identified by ``--agent`` once ``opening`` found it."""
        found = await opening.found()
        if isinstance(found, str):
            await opening.cancel()
            self.notify(found, title="Agent", severity="warning", timeout=10)
            name = "" if opening.ref.startswith(AGENT_ID_PREFIX) else opening.ref
            self._replace_screens(self._chooser(search=name))
            return
        await self._open(found.agent, self._conversation, complete=found.complete,
                         requested_page=opening.newest_page_of(found.agent))

    @work(exclusive=True, group="open", exit_on_error=False)
    async def open_agent(self, agent: Agent) -> None:
        """Open the chat with ``agent``: the conversation last open with it (in this run or
        before), else its default thread."""
        await self._open(agent, self._left.conversations.of(agent.id))

    async def _open(self, agent: Agent, conversation: str | None, *, complete: bool = False,
                    requested_page: asyncio.Future[HistoryPage] | None = None) -> None:
        """Open the chat; ``complete``: ``agent`` was read as this reads it (by its id);
        ``requested_page``: its newest page of history, already asked for (else it is asked
        for now, while the agent is read)."""
        assert self.client is not None
        if not await self.may_leave_chat(agent.id, conversation):
            return
        page = requested_page or start_request(newest_page(self.client, agent.id, conversation))
        read = (start_request(read_conversation(self.client, agent.id, conversation))
                if conversation else None)
        try:
            full = agent if complete else await self.client.get_agent(agent.id)
        except LettaError as error:
            for request in (page, read):
                if request is not None:
                    request.cancel()
            self.notify(error.message, title="Agent", severity="error")
            return
        found, orphan = await read if read is not None else None, ""
        if isinstance(found, str):
            page.cancel()
            orphan = self._left.drafts.take(agent.id, conversation)
            self.notify(fallback_note(found, draft_moved=bool(orphan)), title="Conversation",
                        severity="warning", timeout=10)
            found, conversation = None, None
            page = start_request(newest_page(self.client, agent.id, None))
        session = ChatSession(self.client, full, conversation, requested_page=page,
                              conversation_name=found.summary if found else None,
                              prompt_of_run=self._left.prompts.take,
                              calls_run_here=self._left.calls_run_here)
        self._left.conversations.opened(full.id, conversation)
        self.chats.opened(session)
        reply_left = self.note_reply_left(full.id, conversation)
        self._left.leave(self.screen_stack)
        typed = "\n".join(filter(None, (orphan, self._left.drafts.take(full.id, conversation),
                                        self._left.take_typed_ahead(), self._typed_ahead())))
        self._replace_screens(ChatScreen(session, demo=self.demo, slash=self.dispatch_slash,
                                         local=self.local, typed=typed,
                                         recall=self.sent_messages, choices=self.argument_choices,
                                         first_messages=self.first_messages))
        if reply_left is not None:
            self.notify(reply_left, title="Reply")
        if self.demo:
            from openletta.demo.server import demo_chat_lasts

            if not demo_chat_lasts(full.id, conversation):
                self.resume_hint = None  # gone with the demo server: nothing to resume
                return
        self.resume_hint = resume_hint(None if self.demo else self.base_url,
                                       self.settings.base_url, full.id, full.name, conversation)
        await self._save_settings(last_agent=full.id, last_conversation=conversation,
                                  last_server=server_key(self.base_url, demo=self.demo))
        await asyncio.to_thread(self._left.conversations.save)

    def _chooser(self, *, can_go_back: bool = False, search: str = "") -> AgentChooserScreen:
        from openletta.ui.screens.agents import AgentChooserScreen

        assert self.client is not None
        return AgentChooserScreen(self.client, self.open_agent, clock=self._clock,
                                  server=DEMO_LABEL if self.demo else self.client.base_url,
                                  demo=self.demo, search=self._typed_ahead() or search,
                                  can_go_back=can_go_back, recent=self.settings.last_agent_on(
                                      server_key(self.base_url, demo=self.demo)))

    def exit(self, *args: Any, **kwargs: Any) -> None:
        """Quit, keeping the drafts for the next run (printed on exit if they cannot be), and
        the messages of the replies still coming."""
        self.keep_before_crash(crashing=False)
        super().exit(*args, **kwargs)

    def keep_before_crash(self, *, crashing: bool = True) -> None:
        """Keep the drafts for the next run; printed on exit if they cannot be, or if an error
        ends the app where no file keeps them (the demo's)."""
        self._left.leave(self.screen_stack)
        self.typed_left = self._typed_ahead()
        self._left.keep_typed_ahead(self.typed_left)
        if (error := self._left.save()) is not None or (crashing and self.demo):
            self.unkept_drafts = (error, self._left.drafts.kept)

    def _typed_ahead(self) -> str:
        """What the user typed while the connect screen showed (for the screen after it)."""
        screen = self.screen
        return screen.typed_ahead if isinstance(screen, ConnectScreen) else ""

    def _replace_screens(self, screen: Screen[None]) -> None:
        """Show ``screen`` instead of everything above the default screen."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) == 2:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    # --- slash commands and actions ---------------------------------------------------------

    def dispatch_slash(self, text: str) -> bool:
        """Run ``text`` as a slash command; ``False`` if it is not one (send it instead)."""
        parsed = parse_slash(text)
        if parsed is None:
            return False
        name, argument = parsed
        command = SLASH_COMMANDS.get(name)
        if command is None:
            if isinstance(self.screen, ChatScreen):
                self.screen.restore_prompt(text)
            self.notify(f"Unknown command /{name}; your text is still in the prompt. Type "
                        "/help for the list.", severity="warning")
            return True
        action = f"{command.action}({argument!r})" if argument else command.action
        self.call_later(self.run_action, action)
        return True

    def watch_sub_title(self, sub_title: str) -> None:
        """Show the title in the terminal's window title too (e.g. "approval needed")."""
        if not self.is_headless:
            title = single_line(f"{self.title} · {sub_title}" if sub_title else self.title)
            write_to_terminal(self, f"\x1b]2;{title}\x07")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands but its theme picker (``/theme`` picks among
        openletta's themes and keeps the choice), its keys panel (F1 is the help), its
        screenshot, its maximize (which hides the chat, with no word of how to undo it) and
        its quit (``/quit``, listed too, asks first about a request or command left open)."""
        return (command for command in super().get_system_commands(screen)
                if command.title not in ("Theme", "Keys", "Screenshot", "Maximize", "Minimize",
                                         "Quit"))

    def action_help_quit(self) -> None:
        """Ctrl+C: stop the running turn, as Esc does; else say how to quit, and quit when it
        comes again at once."""
        screen = self.screen
        if isinstance(screen, ChatScreen) and screen.busy:
            screen.action_interrupt()
        elif time.monotonic() - self._quit_asked < QUIT_AGAIN_SECONDS:
            self.call_later(self.action_quit)
        else:
            self._quit_asked = time.monotonic()
            self.notify("Press Ctrl+C again, or Ctrl+Q, to quit.", title="Quit?",
                        timeout=QUIT_AGAIN_SECONDS)  # gone when a second Ctrl+C no longer quits

    async def action_quit(self) -> None:
        """Quit, first asking what to do with an approval request that is open, or with a
        local command that runs (where Ctrl+Q again says: stop it)."""
        from openletta.ui.screens.leave_approval import QuitChoice, QuitWhileRunningScreen

        screen = self.screen
        if isinstance(screen, QuitWhileRunningScreen):
            screen.action_pick(QuitChoice.STOP)
        elif not (isinstance(screen, ChatScreen) and screen.ask_to_leave(quitting=True)):
            self.exit()

    def action_help(self) -> None:
        """Show keys and slash commands."""
        from openletta.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen(SLASH_COMMANDS.values()))

    def action_switch_agent(self) -> None:
        """Open the agent chooser over the chat (Esc comes back)."""
        if self.client is not None:
            self.push_screen(self._chooser(can_go_back=isinstance(self.screen, ChatScreen)))

    async def action_theme(self, name: str = "") -> None:
        """Switch to theme ``name``, or to the next openletta theme; remember the choice."""
        if name and name not in self.available_themes:
            self.notify(unknown_theme(name, self.theme_names), title="Theme",
                        severity="warning")
            return
        self.theme = name or self.argument_choices("theme")[0]
        self.notify(f"Theme: {self.theme}")
        await self._save_settings(theme=self.theme)

    async def _save_settings(self, **changes: Any) -> None:
        self.settings = dataclasses.replace(self.settings, **changes)
        try:
            await asyncio.to_thread(save_settings, self.settings)
        except OSError as error:
            self.notify(f"Could not save settings: {error.strerror}", severity="warning")

