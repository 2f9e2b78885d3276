"""Start the TUI from parsed command-line arguments (called by ``openletta.cli``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from openletta.chat.early import EarlyOpening
from openletta.chat.local_calls import LocalCalls
from openletta.config import Server
from openletta.display import DisplayText
from openletta.settings import Settings, cache_dir
from openletta.tools.base import Workspace
from openletta.tools.permissions import PermissionMode, Permissions
from openletta.tools.private_process import keep_memory_private
from openletta.ui.app import OpenLettaApp
from openletta.ui.printout import print_chats, print_unsent
from openletta.ui.textual_internals import (
    handlers_found_once,
    parameters_counted_once,
    parsed_css_kept,
)


def run(args: argparse.Namespace, settings: Settings, server: Server,
        early: EarlyOpening | None) -> int:
    """Run the app until the user quits; print how to come back. Returns the exit status.
    ``early``: the requests for ``--agent``, already sent to ``server``."""
    app = OpenLettaApp(base_url=server.base_url, api_key=server.api_key, demo=server.demo,
                       agent=args.agent, conversation=args.conversation, theme=args.theme,
                       settings=settings, tune_gc=True, local=local_calls(args), early=early)
    # (styles parsed once, not at every launch; callbacks' parameters counted once each, and
    # the handlers of a message found once per class)
    with parsed_css_kept(cache_dir() / "styles.pickle"), parameters_counted_once(), \
            handlers_found_once():
        app.run()
    if app.settings.print_chat_on_exit:
        kept = not server.demo and app.unkept_drafts is None
        print_chats(app.chats.said(), Console(), drafts_kept=kept)
        print_unsent([app.typed_left] if app.typed_left.strip() else [], Console(),
                     drafts_kept=kept)
    if app.resume_hint:
        print(DisplayText(str(app.resume_hint)))
    if app.unkept_drafts is not None and app.unkept_drafts[1]:
        error, drafts = app.unkept_drafts
        why = error or "an error ended the demo, which keeps no drafts"
        print(DisplayText(f"openletta could not keep what you typed and did not send ({why}):"),
              *(DisplayText(draft) for draft in drafts), sep="\n\n", file=sys.stderr)
    return app.return_code or 0


def local_calls(args: argparse.Namespace) -> LocalCalls | None:
    """The local toolset the flags ask for, run in the current directory (openletta's
    memory then kept from the commands it runs: see :mod:`openletta.tools.private_process`)."""
    if args.no_local_tools:
        return None
    keep_memory_private()
    mode = PermissionMode.YOLO if args.yolo else PermissionMode(args.permission_mode)
    return LocalCalls(Permissions(Workspace(Path.cwd()), mode=mode))
