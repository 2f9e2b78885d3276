"""Tool renderers: how a tool call's arguments and result are shown, chosen by tool name.

Each module of this package holds one renderer class decorated with :func:`register`; adding
a tool touches one file. :func:`renderer_for` picks by name, case-insensitively, and falls
back to :class:`~openletta.ui.renderers.generic.GenericRenderer`.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TypeVar

from openletta.ui.renderers.base import ToolRenderer
from openletta.ui.renderers.generic import GenericRenderer

__all__ = ["GenericRenderer", "ToolRenderer", "register", "registered_names", "renderer_for"]

R = TypeVar("R", bound=type[ToolRenderer])
_RENDERERS: dict[str, ToolRenderer] = {}


def register(cls: R) -> R:
    """Class decorator: make ``cls`` the renderer of every name in ``cls.names``."""
    instance = cls()
    for name in cls.names:
        key = name.lower()
        if key in _RENDERERS and type(_RENDERERS[key]) is not cls:
            raise ValueError(f"two renderers claim the tool name {name!r}")
        _RENDERERS[key] = instance
    return cls


def renderer_for(tool_name: str) -> ToolRenderer:
    """The renderer for ``tool_name`` (any case); the generic one when none claims it."""
    _load_renderers()
    return _RENDERERS.get(tool_name.lower(), _GENERIC)


def registered_names() -> list[str]:
    """Every tool name (lower case) a specific renderer claims."""
    _load_renderers()
    return sorted(_RENDERERS)


@cache
def _load_renderers() -> None:
    """Import every module of this package once, so their ``@register`` lines run."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


_GENERIC = GenericRenderer()
