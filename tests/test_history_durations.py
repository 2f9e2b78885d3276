"""A turn's length read from history is timed by its runs, as live, not by its messages'
dates (Letta 0.16.8 gives those in whole seconds: a short turn across a second's edge read
``1s`` where it showed ``<1s`` live); and the footers of history are filled newest first."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from test_controller import FIXTURES, Chat

from openletta.api.messages import parse_message
from openletta.api.resources import Run, RunUsage
from openletta.transcript import Transcript, TurnFooterItem, Usage

#: ``hello 2``: the message stored at 15:00:45, the reply at 15:00:46; its run took 0.43 s.
CAPTURE = json.loads((FIXTURES / "history_turn_across_a_second_with_its_run.json").read_text())


@pytest.fixture
async def chat() -> AsyncIterator[Chat]:
    chat = Chat()
    yield chat
    await chat.controller.close()


def footer_of(transcript: Transcript) -> TurnFooterItem:
    (footer,) = [item for item in transcript.items if isinstance(item, TurnFooterItem)]
    return footer


async def test_a_turn_read_from_history_is_timed_by_its_run(chat: Chat) -> None:
    run = Run.model_validate(CAPTURE["run"])
    chat.client.runs[run.id] = run

    async def get_run_usage(run_id: str) -> RunUsage:
        return RunUsage.model_validate(CAPTURE["usage"])

    chat.client.get_run_usage = get_run_usage  # type: ignore[method-assign]
    chat.transcript.load_history([parse_message(entry) for entry in CAPTURE["messages"]])
    assert footer_of(chat.transcript).duration == 1.0  # by the dates, until the runs are read
    await chat.session.fill_footer_tokens(lambda _change: None)
    footer = footer_of(chat.transcript)
    assert footer.tokens == 1336
    assert footer.duration is not None and 0.42 < footer.duration < 0.44  # shown "<1s"


async def test_a_run_that_cannot_be_read_leaves_the_dates_length(chat: Chat) -> None:
    async def get_run_usage(run_id: str) -> RunUsage:
        return RunUsage.model_validate(CAPTURE["usage"])

    chat.client.get_run_usage = get_run_usage  # type: ignore[method-assign]
    chat.transcript.load_history([parse_message(entry) for entry in CAPTURE["messages"]])
    await chat.session.fill_footer_tokens(lambda _change: None)
    footer = footer_of(chat.transcript)
    assert footer.tokens == 1336 and footer.duration == 1.0


async def test_the_newest_footers_are_filled_first(chat: Chat) -> None:
    """The footers in view, at the end of the chat, are the newest: the oldest of a page of
    history were read first, and those in view said "… tokens" until the last run was."""
    older = [parse_message(entry) for entry in
             json.loads((FIXTURES / "run_messages.json").read_text())]
    newer = [parse_message(entry) for entry in CAPTURE["messages"]]
    asked: list[str] = []

    async def get_run_usage(run_id: str) -> RunUsage:
        asked.append(run_id)
        return RunUsage.model_validate(CAPTURE["usage"])

    chat.client.get_run_usage = get_run_usage  # type: ignore[method-assign]
    chat.transcript.load_history([*older, *newer])
    await chat.session.fill_footer_tokens(lambda _change: None)
    assert asked == [newer[0].run_id, older[0].run_id]
    assert chat.transcript.footers_without_tokens() == []


def test_a_turn_is_timed_by_its_runs_only_once_each_is_known() -> None:
    transcript = Transcript(footers=True)
    transcript.load_history([parse_message(entry) for entry in CAPTURE["messages"]])
    run = Run.model_validate(CAPTURE["run"])
    assert run.created_at is not None and run.completed_at is not None
    transcript.add_run_usage(footer_of(transcript), {run.id: Usage(total_tokens=1336)},
                             {run.id: (run.created_at, run.completed_at)})
    assert footer_of(transcript).duration == pytest.approx(0.429726)
