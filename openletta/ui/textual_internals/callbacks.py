"""Textual's private API for callbacks: a function's parameters counted once, not at every
call through a ``partial``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from inspect import signature
from types import FunctionType, MethodType
from typing import Any

from textual import _callback

#: Where a function keeps its count of parameters: called as it is, and bound to an object.
_COUNTED, _COUNTED_BOUND = "_openletta_parameters", "_openletta_parameters_bound"


def count_parameters(func: Callable[..., Any]) -> int:
    """The number of parameters ``func`` takes, as ``inspect.signature`` counts them, kept on
    the function (a bound method's) after the first time."""
    if isinstance(func, MethodType) and isinstance(func.__func__, FunctionType):
        return _counted(func.__func__, _COUNTED_BOUND, func)
    if isinstance(func, FunctionType):
        return _counted(func, _COUNTED, func)
    return len(signature(func).parameters)


def _counted(function: FunctionType, key: str, func: Callable[..., Any]) -> int:
    """The count kept on ``function`` under ``key``; first worked out from ``func``."""
    counted = function.__dict__.get(key)
    if counted is None:
        counted = function.__dict__[key] = len(signature(func).parameters)
    return counted


@contextlib.contextmanager
def parameters_counted_once() -> Iterator[None]:
    """Within: Textual counts a callback's parameters with :func:`count_parameters`.

    Textual calls every callback with as many arguments as it takes, and keeps the count on
    the callback, but the callback of ``call_later(method, argument)`` (and of
    ``call_next``, ``call_after_refresh``, a timer with arguments) is a new ``partial``
    each time: each call counted the method's parameters again with ``inspect.signature``,
    about a tenth of a millisecond, twenty times a turn (the prompt keeping its cursor in
    view, the key bar, each mount)."""
    original = _callback._count_parameters
    _callback._count_parameters = count_parameters
    try:
        yield
    finally:
        _callback._count_parameters = original
