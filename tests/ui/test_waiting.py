"""The wait helper of the UI tests: it runs the app until a condition holds, or fails."""

from __future__ import annotations

import pytest
from textual.app import App
from waiting import wait_until


async def test_wait_until_checks_until_the_condition_holds() -> None:
    async with App[None]().run_test() as pilot:
        checks: list[int] = []
        await wait_until(pilot, lambda: checks.append(1) or len(checks) == 3, what="3 checks")
        assert len(checks) == 3


async def test_wait_until_fails_naming_what_it_waited_for() -> None:
    async with App[None]().run_test() as pilot:
        with pytest.raises(AssertionError, match=r"timed out after 0\.05 s waiting for the moon"):
            await wait_until(pilot, lambda: False, timeout=0.05, what="the moon")
