"""What was said in this run, left in the terminal's scrollback as openletta exits.

A full-screen app leaves nothing behind when it quits: the terminal shows again what was
there before it started. So that a chat can still be read, searched and copied with the
terminal's own tools after quitting, each conversation the user wrote in during the run is
printed as the app exits: from the first message sent in it this time (not what was read
from its history), with the renderings of ``openletta replay``, a long tool result cut to
its first and last lines, :data:`RESULT_LINES` in all, as its card cuts it, and a long
message of the user's to its first lines (``/export`` saves everything). A conversation
opened more than once is printed once, under one title, with what was said on each visit in
the order of the visits; then the messages queued there and never sent, kept as its draft.
``print_chat_on_exit = false`` in ``settings.toml`` turns it off.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rich.console import Console, RenderableType
from rich.segment import Segment, Segments
from rich.text import Text

from openletta.chat.session import ChatSession
from openletta.display import plain_text
from openletta.transcript import EventItem, Item, ToolCallItem, ToolStatus, TurnFooterItem
from openletta.ui.conversation_names import conversation_title
from openletta.ui.renderers import renderer_for
from openletta.ui.widgets.footer import footer_text

#: Lines of a message of the user's, or of a tool's result or errors (its first and last),
#: printed: the rest is left out.
RESULT_LINES = 20
#: Said before a message queued and never sent (kept as the chat's draft, where drafts last).
NOT_SENT, KEPT = "✎ not sent", " (kept as a draft)"


class ChatSaid(NamedTuple):
    """What was said in one conversation during the run."""

    title: str
    #: The items said on each visit to the conversation, in order (a visit per opening).
    visits: list[list[Item]]
    #: The messages queued when it was last left, never sent (kept as its draft).
    unsent: tuple[str, ...] = ()


class ChatsOfThisRun:
    """The chats opened during a run, kept while something was said in them."""

    def __init__(self) -> None:
        self._sessions: list[ChatSession] = []
        #: Each conversation's title as the chat open last in it had it when left (it may
        #: have been renamed there).
        self._titles: dict[tuple[str, str | None], str] = {}

    def opened(self, session: ChatSession) -> None:
        """Note ``session``, and forget the earlier ones in which nothing was sent."""
        self._note_title()
        self._sessions = [kept for kept in self._sessions if kept.transcript.first_sent]
        self._sessions.append(session)

    def said(self) -> list[ChatSaid]:
        """What was said in each conversation this run, for those where anything was, in
        the order they were first opened; titled with its latest name."""
        self._note_title()
        chats: dict[tuple[str, str | None], ChatSaid] = {}
        for session in self._sessions:
            if not (items := session.transcript.said_here()):
                continue
            key = _conversation(session)
            visits = chats[key].visits if key in chats else []
            chats[key] = ChatSaid(self._titles[key], [*visits, items], session.left_unsent)
        return list(chats.values())

    def first_messages(self) -> dict[str, str]:
        """The user's first message in each conversation of the chats kept, where known (the
        default thread has its name)."""
        return {session.conversation_id: first for session in self._sessions
                if session.conversation_id and (first := session.first_message)}

    def _note_title(self) -> None:
        """Note the title of the chat open last (its conversation may have been renamed)."""
        if self._sessions:
            last = self._sessions[-1]
            self._titles[_conversation(last)] = chat_title(last)


def _conversation(session: ChatSession) -> tuple[str, str | None]:
    return session.agent.id, session.conversation_id


def chat_title(session: ChatSession) -> str:
    """``agent · conversation``: its name, else the start of the user's first message in it
    and its short id; the default thread says so."""
    conversation = conversation_title(session.conversation_id, session.conversation_name,
                                      session.first_message)
    return f"{session.agent.name or session.agent.id} · {conversation}"


def print_chats(chats: Sequence[ChatSaid], console: Console, *, drafts_kept: bool = True
                ) -> None:
    """Print each chat under a rule with its title, and say where a visit was left before
    its last turn ended, and which messages were never sent (``drafts_kept``: the next run
    has them as drafts)."""

    for title, visits, unsent in chats:
        console.rule(plain_text(title), style="dim")
        for items in visits:
            for item in items:
                for line in console.render_lines(printed(item), pad=False, new_lines=True):
                    console.print(Segments(_without_trailing_blanks(line)), end="")
            if (note := unfinished(items)) is not None:
                console.print(plain_text(note, "dim italic"))
        print_unsent(unsent, console, drafts_kept=drafts_kept)
        console.print()


def print_unsent(texts: Sequence[str], console: Console, *, drafts_kept: bool = True) -> None:
    """Say that each of ``texts`` was never sent (``drafts_kept``: it waits as a draft)."""
    from openletta.replay import user_text  # at exit only: no Rich Markdown at launch

    for text in texts:
        console.print(Text.assemble((NOT_SENT + (KEPT if drafts_kept else "") + ": ",
                                     "bold yellow"), user_text(text, RESULT_LINES)))


def unfinished(items: Sequence[Item]) -> str | None:
    """What to say of a chat left before its last turn ended (it ends with a footer, or
    with an event that says what happened: an interruption, a compaction)."""
    last = items[-1] if items else None
    if last is None or isinstance(last, (TurnFooterItem, EventItem)):  # (it says what it is)
        return None
    if isinstance(last, ToolCallItem) and last.status is ToolStatus.AWAITING_APPROVAL:
        return "… waiting for your approval: it is asked again when this chat opens."
    return "… left before the turn ended: what the agent did after that is in the conversation."


def _without_trailing_blanks(line: list[Segment]) -> list[Segment]:
    """``line`` without the spaces Rich pads it with to the console's width (a code block's
    background too), so that text copied from the terminal has none."""
    *body, end = line  # the new line
    while body and not body[-1].control and not body[-1].text.strip():
        body.pop()
    if body and not body[-1].control:
        body[-1] = Segment(body[-1].text.rstrip(), body[-1].style)
    return [*body, end]


def printed(item: Item) -> RenderableType:
    """How ``item`` is printed: a turn's footer as its quiet line, the rest as
    ``openletta replay`` prints them."""
    from openletta.replay import render_item  # at exit only: no Rich Markdown at launch

    if isinstance(item, TurnFooterItem):
        return plain_text(footer_text(item), "dim")
    return render_item(item, max_lines=RESULT_LINES,
                       call_summary=lambda call: renderer_for(call.name).summary(call))
