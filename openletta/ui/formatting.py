"""Short human forms of figures shown in several places: elapsed time, token counts."""

from __future__ import annotations

from pathlib import Path


def format_elapsed(seconds: float) -> str:
    """``"7s"`` or ``"2m 05s"``."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


def format_tokens(count: int) -> str:
    """A token count in a few characters: ``999``, ``12.3k``, ``1.2M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")


def home_relative(path: Path) -> str:
    """``path`` with the home directory shown as ``~``."""
    try:
        inside = path.relative_to(Path.home())
    except ValueError:
        return str(path)
    return "~" if inside == Path() else f"~/{inside}"


def short_id(identifier: str) -> str:
    """``conv-1a2b3c4d`` for ``conv-1a2b3c4d-…``: enough to tell threads apart, and short
    enough to leave the status bar room for the context gauge."""
    prefix, _, rest = identifier.partition("-")
    return f"{prefix}-{rest[:8]}" if rest and len(rest) > 8 else identifier
