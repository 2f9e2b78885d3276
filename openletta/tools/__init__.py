"""The local toolset: the tools an agent calls on this machine, by their Letta Code names.

``LOCAL_TOOLS`` holds one of each, in the order they are declared to the agent.
"""

from __future__ import annotations

from typing import Any

from openletta.tools.base import LocalTool
from openletta.tools.bash import Bash
from openletta.tools.files import Edit, Read, Write
from openletta.tools.grep import Grep
from openletta.tools.search import LS, Glob

LOCAL_TOOLS: tuple[LocalTool, ...] = (Bash(), Read(), Write(), Edit(), Glob(), Grep(), LS())
_BY_NAME = {tool.name: tool for tool in LOCAL_TOOLS}


def local_tool(name: str) -> LocalTool | None:
    """The local tool called ``name`` exactly, if there is one."""
    return _BY_NAME.get(name)


def declarations() -> list[dict[str, Any]]:
    """Every local tool as declared in a request's ``client_tools``."""
    return [tool.declaration() for tool in LOCAL_TOOLS]
