"""What the tools openletta declares in each request (``client_tools``) cost the model's
context: the server's count of the context (``GET /v1/agents/{id}/context``) knows only the
agent's own tools, so this estimate is shown beside it.

No Textual here. One rule for the estimate: the declarations' JSON, as a request sends it,
at :data:`CHARS_PER_TOKEN` characters a token.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Characters of JSON per token, the usual rough rule for English text and code.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class DeclaredTools:
    """The tools a request declares beside the agent's: their names, and the length of
    their declarations as sent (compact JSON)."""

    names: tuple[str, ...]
    characters: int

    @classmethod
    def of(cls, client_tools: Sequence[Mapping[str, Any]]) -> DeclaredTools | None:
        """The tools ``client_tools`` declares (``None``: none are)."""
        if not client_tools:
            return None
        sent = json.dumps([dict(tool) for tool in client_tools], ensure_ascii=False,
                          separators=(",", ":"))
        return cls(tuple(str(tool.get("name", "")) for tool in client_tools), len(sent))

    @property
    def tokens(self) -> int:
        """An estimate of the tokens the declarations take up in the model's context."""
        return round(self.characters / CHARS_PER_TOKEN)
