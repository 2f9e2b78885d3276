"""The Textual user interface of openletta.

Textual's geometry (``Offset``, ``Region``, ``Size``, ``Spacing``) is always its own Python
code here, never the Rust types of ``textual-speedups``, which Textual takes instead whenever
that package is installed in the same environment (another app may have brought it). Its
``Size`` subtracts below zero where Textual's stops at zero (``Size(48, 0) - (0, 3)`` is
``Size(48, -3)``): an approval's choices were measured in a box of -3 rows and the card kept
too small a height, its choices cut off below it (13 UI tests fail with the package). Nor can
its types be pickled, so no style was kept between launches. openletta is checked with
Textual's own geometry only. Textual reads the
package when ``textual.geometry`` is first imported, after this (the command line imports no
Textual before the UI); marking the package as not found keeps it out for this process alone,
not for the commands it runs.
"""

import sys

sys.modules.setdefault("textual_speedups", None)  # type: ignore[arg-type]
