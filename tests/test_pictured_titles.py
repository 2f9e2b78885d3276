"""Titles made from the user's first message (a conversation's label, what a followed reply
answers) show its control characters as the prompt does (their pictures), never drop them."""

from __future__ import annotations

from openletta.api import messages as m
from openletta.transcript import EventItem, Transcript
from openletta.ui.conversation_names import conversation_label, conversation_title
from openletta.ui.status_bar import StatusBar, conversation_part

TYPED = "look \x1b[31mred\x07\tnow\r\nthen"
SHOWN = "look ␛[31mred␇ now␍ then"


def test_a_conversation_label_shows_the_control_characters_of_its_first_message() -> None:
    assert conversation_label(None, TYPED) == f"“{SHOWN}”"
    assert conversation_title("conv-1a2b3c4d-0000", None, TYPED).startswith(f"“{SHOWN}” · ")


def test_the_status_bar_shows_them_too() -> None:
    bar = StatusBar()
    bar.show_first_message(TYPED)
    assert conversation_part(bar.info).plain.startswith(" / “look ␛[31mred␇ now␍")


def test_the_followed_reply_names_its_message_with_them() -> None:
    transcript = Transcript()
    transcript.follow_run("run-7", "Reply in progress")
    question = m.UserMessage(message_type="user_message", id="message-q", run_id="run-7",
                             content=TYPED)
    transcript.name_followed_prompt([question])
    divider = transcript.items[0]
    assert isinstance(divider, EventItem)
    assert divider.text == f"Reply in progress · answering “{SHOWN}”"
