"""A callback's parameters are counted once, and as Textual counts them."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App

from openletta.ui.textual_internals import callbacks, parameters_counted_once


class Target:
    def one(self, value: int) -> None: ...

    def only_star(*args: Any) -> None: ...

    @classmethod
    def made(cls, value: int) -> None: ...

    def __call__(self, first: int, second: int) -> None: ...


def decorated(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)
    return wrapper


@decorated
def wrapped(first: int, second: int, third: int) -> None: ...


CALLABLES: list[Callable[..., Any]] = [
    Target().one, Target().only_star, Target.made, Target(), Target.one, wrapped,
    lambda: None, lambda a, *b, c=1, **d: None, len, [].append]


@pytest.mark.parametrize("func", CALLABLES)
def test_a_count_is_what_the_signature_says(func: Callable[..., Any]) -> None:
    assert callbacks.count_parameters(func) == len(inspect.signature(func).parameters)
    assert callbacks.count_parameters(func) == len(inspect.signature(func).parameters)


async def test_a_callback_with_arguments_has_its_parameters_counted_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[object] = []
    count = callbacks.signature

    def counting(func: Callable[..., Any]) -> inspect.Signature:
        counted.append(func)
        return count(func)

    monkeypatch.setattr(callbacks, "signature", counting)
    heard: list[tuple[int, int]] = []

    class CallingApp(App[None]):
        def note(self, first: int, second: int = 0) -> None:
            heard.append((first, second))

    app = CallingApp()
    with parameters_counted_once():
        async with app.run_test() as pilot:
            for number in range(5):
                app.call_later(app.note, number, second=number * 2)
            await pilot.pause()
    assert heard == [(number, number * 2) for number in range(5)]
    assert len([func for func in counted if getattr(func, "__name__", "") == "note"]) == 1
