"""What a conversation is called on screen while the server holds no name for it: the
start of the user's first message in it, quoted, when that is known; else "New
conversation". Its id stays beside it, short, where one conversation must be told from
another (the list, the exit printout, the question before deleting it). openletta never
names a conversation on the server by itself: only ``/rename`` and ``/new NAME`` do.
"""

from __future__ import annotations

from openletta.display import pictured_line
from openletta.ui.formatting import short_id

NEW_CONVERSATION = "New conversation"
#: What the agent's default thread (it has no name on the server) is called everywhere.
DEFAULT_THREAD_NAME = "default thread"
#: Cells of a name, or of a first message with its quotes, where a line has room.
LABEL_WIDTH = 48


def quoted_start(text: str, width: int = LABEL_WIDTH) -> str:
    """``“hello there”``: ``text`` on one line (:func:`~openletta.display.pictured_line`:
    control characters shown as the prompt shows them), cut with "…" (after a word, if one
    ends in its second half) to fit ``width`` characters with its quotes."""
    words, room = pictured_line(text), max(2, width - 2)
    if len(words) > room:
        cut = words[:room]
        space = cut.rfind(" ", room // 2)
        words = (cut[:space] if space > 0 else cut[:room - 1]).rstrip(" ,;:") + "…"
    return f"“{words}”"


def conversation_label(name: str | None, first_message: str | None,
                       width: int = LABEL_WIDTH) -> str:
    """The conversation's name (as it is); else the start of its first message, quoted and
    cut to ``width`` cells; else :data:`NEW_CONVERSATION`."""
    if name:
        return name
    if first_message and first_message.strip():
        return quoted_start(first_message, width)
    return NEW_CONVERSATION


def conversation_title(conversation_id: str | None, name: str | None,
                       first_message: str | None) -> str:
    """A conversation for a title line: ``default thread``, its name, or what stands for it
    with its short id (``“hello there” · conv-1a2b3c4d``)."""
    if conversation_id is None:
        return DEFAULT_THREAD_NAME
    label = conversation_label(name, first_message)
    return label if name else f"{label} · {short_id(conversation_id)}"


def spoken_conversation(conversation_id: str | None, name: str | None,
                        first_message: str | None) -> str:
    """A conversation in a sentence: ``the default thread``, ``“its name”``, ``“its first
    message”``, else ``the conversation conv-1a2b3c4d``."""
    if conversation_id is None:
        return f"the {DEFAULT_THREAD_NAME}"
    if name:
        return f"“{name}”"
    if first_message and first_message.strip():
        return quoted_start(first_message)
    return f"the conversation {short_id(conversation_id)}"
