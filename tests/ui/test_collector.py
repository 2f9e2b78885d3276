"""The garbage collector's tuning: start-up objects frozen, full collections spaced and
run at quiet moments or while a request waits for the server."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from openletta.demo import DemoServer
from openletta.ui.collector import (
    FULL_DUE,
    FULL_LATEST,
    WAIT_DUE,
    YOUNG_LIMIT,
    collect_if_due,
    collect_while_waiting,
    pause_for_startup,
    settle_after_startup,
)
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.screens.connect import ConnectScreen


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """Put the collector back as it was after the test."""
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        gc.enable()


def middle_collections(count: int) -> None:
    """Make the collector count ``count`` collections of the middle generation."""
    gc.collect()
    for _ in range(count):
        gc.collect(1)


@pytest.mark.usefixtures("restored_gc")
def test_settling_freezes_what_exists_and_spaces_full_collections() -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    pause_for_startup()
    assert not gc.isenabled()
    survivor = [object()]  # a container: tracked by the collector
    settle_after_startup()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (YOUNG_LIMIT, 10, FULL_LATEST)
    assert not any(tracked is survivor for tracked in gc.get_objects())


@pytest.mark.usefixtures("restored_gc")
def test_a_due_full_collection_runs_when_asked_and_not_before() -> None:
    gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], FULL_LATEST)
    middle_collections(FULL_DUE - 1)
    assert not collect_if_due()
    assert gc.get_count()[2] == FULL_DUE - 1
    middle_collections(FULL_DUE)
    assert collect_if_due()
    assert gc.get_count()[2] == 0


@pytest.mark.usefixtures("restored_gc")
def test_a_wait_for_the_server_runs_a_full_collection_that_is_nearly_due() -> None:
    assert FULL_DUE < WAIT_DUE < FULL_LATEST
    gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], FULL_LATEST)
    middle_collections(WAIT_DUE - 1)
    collect_while_waiting()
    assert gc.get_count()[2] == WAIT_DUE - 1
    middle_collections(WAIT_DUE)
    collect_while_waiting()
    assert gc.get_count()[2] == 0


@pytest.mark.usefixtures("restored_gc")
@pytest.mark.parametrize("tune", [True, False])
async def test_the_app_tunes_the_collector_once_connected_only_when_asked(
        tune: bool, demo_server, make_app, wait_until) -> None:
    gc.unfreeze()
    threshold = gc.get_threshold()
    app = make_app(base_url=demo_server.base_url, tune_gc=tune)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                         what="connected")
        assert (gc.get_freeze_count() > 0) is tune
        assert gc.get_threshold() == ((YOUNG_LIMIT, threshold[1], FULL_LATEST) if tune
                                      else threshold)
        middle_collections(WAIT_DUE)
        await app.client.list_agents()
        assert (gc.get_count()[2] == 0) is tune


@pytest.mark.usefixtures("restored_gc")
async def test_a_collector_paused_for_start_up_runs_again_when_the_first_attempt_fails(
        make_app, wait_until) -> None:
    server = DemoServer(speed=0)
    base_url = await server.start()
    await server.stop()
    pause_for_startup()
    app = make_app(base_url=base_url, tune_gc=True)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen)
                         and app.screen.failed, what="the attempt failed")
        assert gc.isenabled() and gc.get_freeze_count() > 0


@pytest.mark.usefixtures("restored_gc")
def test_the_incremental_collector_is_only_frozen_never_forced(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.14's collector reports no third threshold: nothing is spaced or forced."""
    monkeypatch.setattr(gc, "get_threshold", lambda: (2000, 10, 0))
    set_calls: list[tuple[int, ...]] = []
    monkeypatch.setattr(gc, "set_threshold", lambda *values: set_calls.append(values))
    monkeypatch.setattr(gc, "get_count", lambda: (0, 0, FULL_LATEST))
    collections: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda *args: collections.append(1) or 0)
    gc.unfreeze()
    settle_after_startup()
    assert gc.get_freeze_count() > 0 and set_calls == []
    assert not collect_if_due() and collections == []
