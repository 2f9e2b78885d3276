"""Short human forms of figures shown in several places: elapsed time, token counts."""

from __future__ import annotations

from pathlib import Path


def format_elapsed(seconds: float) -> str:
    """``"7s"`` or ``"2m 05s"``."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


def format_tokens(count: int, against: int | None = None) -> str:
    """A token count in a few characters: ``999``, ``12.3k``, ``1.2M``; with a decimal or
    two more where that shows whether it is under, at or over ``against`` (a window:
    ``3.96k`` and ``4.03k`` of ``4k``, not ``4k``)."""
    if count < 1000:
        return str(count)
    scale, unit = (1000, "k") if count < 1_000_000 else (1_000_000, "M")
    for decimals in (1, 2, 3):
        shown = f"{count / scale:.{decimals}f}"
        rounded = round(float(shown) * scale)
        if against is None or (rounded > against, rounded < against) == (
                count > against, count < against):
            break
    return shown.rstrip("0").rstrip(".") + unit


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
