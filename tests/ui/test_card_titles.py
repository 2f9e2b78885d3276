"""A tool card's title on a narrow line leaves out what matters least first: the time, then
a size or a count of lines (never cut halfway), then badges; a path keeps its file's name,
a command its start, and a card waiting for approval where its call would run."""

from __future__ import annotations

import json
from typing import Any

import pytest
from widget_app import ItemsApp, shown_text

from openletta.transcript import ToolCallItem, ToolStatus
from openletta.ui.renderers import renderer_for
from openletta.ui.widgets.card_header import card_title

WRITE = {"path": "hello.txt", "content": "hello from the fake model\n"}
COUNT = "for i in 1 2 3; do echo line $i; sleep 0.5; done; echo the loop has ended"


def asking(name: str, arguments: dict[str, Any], *, runs_here: bool = False) -> ToolCallItem:
    return ToolCallItem(key=name, name=name, arguments_text=json.dumps(arguments),
                        status=ToolStatus.AWAITING_APPROVAL, needs_approval=True,
                        runs_here=runs_here)


async def title_at(item: ToolCallItem, width: int) -> str:
    """The card's title line at ``width`` columns, runs of spaces squeezed."""
    app = ItemsApp([item])
    async with app.run_test(size=(width, 10)) as pilot:
        await pilot.pause()
        return " ".join(shown_text(app.widget_of(item)).split("\n")[0].split())


async def test_a_write_waiting_on_a_line_too_short_for_its_size_drops_it_whole() -> None:
    """(The chat's 80 columns: its cards are narrower than this test's.)"""
    title = await title_at(asking("write_file", WRITE), 76)
    assert title == "▌ write_file hello.txt runs on server awaiting approval"


async def test_a_write_with_room_shows_its_size_whole() -> None:
    title = await title_at(asking("write_file", WRITE), 100)
    assert title.startswith("▌ write_file hello.txt (26 bytes, 1 line) runs on server")


async def test_a_long_path_keeps_the_files_name() -> None:
    item = asking("write_file", {**WRITE, "path": "/home/me/projects/openletta/notes/hello.txt"})
    title = await title_at(item, 60)
    assert title.startswith("▌ write_file …") and "/notes/hello.txt runs on server" in title


@pytest.mark.parametrize(("runs_here", "place"), [(True, "⌂ runs here"),
                                                  (False, "runs on server")])
async def test_a_long_command_waiting_at_60_columns_keeps_its_start_and_where_it_runs(
        runs_here: bool, place: str) -> None:
    title = await title_at(asking("Bash", {"command": COUNT}, runs_here=runs_here), 60)
    assert title.startswith("▌ Bash for i in 1 2 3; do echo")
    assert title.endswith(f"… {place}")


async def test_a_write_waiting_at_60_columns_shows_its_size_in_the_room_badges_left() -> None:
    title = await title_at(asking("write_file", WRITE), 60)
    assert title == "▌ write_file hello.txt (26 bytes, 1 line) runs on server"



def test_a_summary_cut_again_to_fit_ends_in_one_ellipsis() -> None:
    """(An insert's summary cuts its text at 60 cells with "…"; the line may cut it again.)"""
    text = "openletta is a terminal client for Letta agents, written on Textual, by its team."
    item = ToolCallItem(key="insert", name="archival_memory_insert", status=ToolStatus.SUCCESS,
                        arguments_text=json.dumps({"content": text, "tags": ["demo", "notes"]}))
    title = card_title(item, renderer_for(item.name))
    assert title.subject.endswith("written on…  tags: demo, notes")
    for room in range(40, 110):
        fitted = title.fit(room).plain
        assert len(fitted) <= room
        assert "……" not in fitted and " …" not in fitted, (room, fitted)
        assert fitted.startswith("archival_memory_insert  openletta is")
