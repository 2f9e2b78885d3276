"""openletta lays out with Textual's own geometry, also where ``textual-speedups`` (Rust
types Textual takes when it is installed) is: see :mod:`openletta.ui`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: A stand-in for ``textual-speedups``, which Textual imports at the end of its geometry module
#: and takes the four classes of: subclasses of Textual's own, from another module.
STAND_IN = """
from textual import geometry

class Offset(geometry.Offset): pass
class Region(geometry.Region): pass
class Size(geometry.Size): pass
class Spacing(geometry.Spacing): pass
"""

#: As the command line imports the app, then which geometry Textual took.
LAUNCH_IMPORTS = """
import openletta.cli, openletta.ui.launch
import textual.geometry
print(textual.geometry.Region.__module__, textual.geometry.Spacing.__module__)
"""


def geometry_taken(tmp_path: Path, code: str) -> str:
    """The modules ``code`` finds Textual's ``Region`` and ``Spacing`` in, with the stand-in
    installed and the speedups not switched off."""
    (tmp_path / "textual_speedups.py").write_text(STAND_IN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    env.pop("TEXTUAL_SPEEDUPS", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_the_stand_in_is_what_textual_would_take(tmp_path: Path) -> None:
    """(Without openletta, Textual takes the stand-in: the test below means something.)"""
    taken = geometry_taken(tmp_path, "import textual.geometry as g; "
                                     "print(g.Region.__module__, g.Spacing.__module__)")
    assert taken == "textual_speedups textual_speedups"


def test_the_app_lays_out_with_textuals_own_geometry(tmp_path: Path) -> None:
    assert geometry_taken(tmp_path, LAUNCH_IMPORTS) == "textual.geometry textual.geometry"


def test_commands_the_app_runs_may_still_take_the_speedups(tmp_path: Path) -> None:
    """Kept out of openletta's process alone: a Textual app it runs (a local command) is
    not told anything through its environment."""
    code = LAUNCH_IMPORTS + "import os; print(os.environ.get('TEXTUAL_SPEEDUPS'))"
    assert geometry_taken(tmp_path, code).splitlines()[-1] == "None"
