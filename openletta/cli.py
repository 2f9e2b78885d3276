"""Command line entry point: ``openletta`` (the TUI) and ``openletta replay``."""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Iterator, Sequence

from openletta import __version__
from openletta.chat.early import EarlyOpening
from openletta.compiled_code import compiled_code_kept
from openletta.config import DEMO_SERVER, Server, choose_server
from openletta.settings import Settings, SettingsWarning, load_settings
from openletta.tls import prepare_tls_context, speaks_tls
from openletta.ui.collector import pause_for_startup


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="openletta",
        description="A terminal chat client for Letta agents.",
    )
    parser.add_argument("--version", action="version", version=f"openletta {__version__}")
    parser.add_argument("--base-url", help="Letta server URL (default: LETTA_BASE_URL, or "
                        "https://api.letta.com with LETTA_API_KEY, else http://localhost:8283)")
    parser.add_argument("--agent", help="agent id or name to open")
    parser.add_argument("-c", "--continue", dest="resume", action="store_true",
                        help="open the chat you had open last time (its server, agent and "
                        "conversation)")
    parser.add_argument("--conversation",
                        help="conversation id to open (default thread if omitted)")
    parser.add_argument("--theme", help="theme name, e.g. openletta-dark or openletta-light")
    parser.add_argument("--demo", action="store_true",
                        help="run against the embedded demo server (no Letta server needed)")
    tools = parser.add_argument_group("local tools (Bash, Read, Write, Edit, Glob, Grep, LS, "
                                      "run in the current directory)")
    tools.add_argument("--permission-mode", choices=["ask", "accept-edits", "read-only"],
                       default="ask", help="ask before every local call (default); let "
                       "reads and edits inside the directory run; or allow only reading "
                       "(Shift+Tab switches while chatting)")
    tools.add_argument("--yolo", action="store_true",
                       help="run every local call without asking (dangerous)")
    tools.add_argument("--no-local-tools", action="store_true",
                       help="chat without offering the agent any local tool")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay = commands.add_parser(
        "replay", help="print the transcript of a recorded stream (.sse) or history page (.json)")
    replay.add_argument("file", help="a .sse capture or a .json array of messages")
    replay.add_argument("--json", action="store_true", help="print the transcript as JSON")
    replay.add_argument("--all", action="store_true",
                        help="include internal items (system prompt, system notes)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run openletta; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume and (args.agent or args.conversation):
        parser.error("--continue opens the last chat: leave out --agent and --conversation")
    if args.yolo and args.permission_mode != "ask":
        parser.error("--yolo runs every local call without asking: leave out --permission-mode")
    if args.conversation and not args.agent and not args.resume:
        parser.error("--conversation needs --agent: the name or id of the agent it belongs to")
    if args.command == "replay":
        from openletta.replay import run_replay

        return run_replay(args.file, as_json=args.json, include_internal=args.all)
    if not at_a_terminal():
        print("openletta: the chat needs a terminal (standard input and output are not one); "
              "`openletta replay FILE` prints a recorded transcript.", file=sys.stderr)
        return 2
    pause_for_startup()  # the app settles the collector after its first connection attempt
    with compiled_code_kept():
        return run_chat(args)


def run_chat(args: argparse.Namespace) -> int:
    """Read the settings, send the requests for the agent named and run the app until the
    user quits; the exit status."""
    with warnings.catch_warnings(record=True) as problems:
        warnings.simplefilter("always", SettingsWarning)
        settings = load_settings()
    for problem in problems:  # plainly, in the terminal's scrollback above the app
        print(f"openletta: {problem.message}", file=sys.stderr)
    server = choose_chat(args, settings)
    if isinstance(server, str):
        print(f"openletta: {server}", file=sys.stderr)
        return 2
    if speaks_tls(server.base_url):
        prepare_tls_context()  # in a thread, while the app is imported
    early = early_opening(args, server)  # its requests leave while the app is imported
    with keys_not_echoed():
        from openletta.ui.launch import run

        return run(args, settings, server, early)


#: Said by ``--continue`` when no chat is remembered: none was opened, or only chats a new
#: demo server does not have again (on an agent or conversation made in it), which are not
#: remembered, and so not known to have been: the demo is not named to one who never ran it.
NOTHING_TO_CONTINUE = ("there is no chat to continue yet: openletta remembers none. Run "
                       "openletta without --continue to choose an agent to chat with.")


def choose_chat(args: argparse.Namespace, settings: Settings) -> Server | str:
    """The server to talk to; with ``--continue``, the last chat's, whose agent and
    conversation are then set in ``args``. A string says why there is nothing to continue."""
    last = settings.last_chat() if args.resume else None
    if args.resume and last is None:
        return NOTHING_TO_CONTINUE
    if last is not None:
        last_server, args.agent, args.conversation = last
        if not (args.base_url or args.demo):  # back to where it was
            args.demo, args.base_url = last_server == DEMO_SERVER, last_server
    server = choose_server(args.base_url, demo=args.demo, settings=settings)
    if last is not None and server.key != last_server:
        return (f"the last chat was on {last_server}, not {server.key}. Leave out --base-url "
                "and --demo to go back to it.")
    return server


@contextlib.contextmanager
def keys_not_echoed() -> Iterator[None]:
    """Keys typed while the app starts wait for it unechoed (the app puts them in its first
    text field), instead of being echoed onto the shell's line, where what the app prints as
    it exits would follow them. The terminal's modes are as they were afterwards."""
    if sys.platform == "win32":
        yield
        return
    import termios

    try:
        saved = termios.tcgetattr(sys.stdin)
    except (termios.error, OSError):  # not a terminal after all
        yield
        return
    quiet = [*saved]
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(sys.stdin, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(sys.stdin, termios.TCSANOW, saved)


def at_a_terminal() -> bool:
    """Whether standard input and output are a terminal (the chat needs one)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def early_opening(args: argparse.Namespace, server: Server) -> EarlyOpening | None:
    """The requests for the agent on the command line, sent now (none for the demo, which
    starts with the app)."""
    if server.demo or server.base_url is None or not args.agent:
        return None
    return EarlyOpening(server.base_url, server.api_key, args.agent, args.conversation)


if __name__ == "__main__":
    sys.exit(main())
