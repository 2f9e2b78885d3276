"""The long fuzz run: mutated captures through every pipeline, counting cases and crashes.

Run: python bench/fuzz.py [--cases N] [--seed S]
The same mutations and pipelines as ``tests/test_fuzz.py`` (``tests/mutations.py``), run by
the hundred thousand. A crash is any exception but openletta's typed errors; each kind is
printed once with the seed that reproduces it (``--cases 1 --seed SEED``).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import logging
import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from mutations import TYPED_ERRORS, mutated_case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first case")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # "Skipping a malformed SSE data line", by the thousand
    crashes: collections.Counter[tuple[str, str, int]] = collections.Counter()
    first_seed: dict[tuple[str, str, int], tuple[int, str]] = {}
    typed = 0
    started = time.perf_counter()
    for seed in range(args.seed, args.seed + args.cases):
        case = mutated_case(random.Random(seed))
        try:
            case()
        except TYPED_ERRORS:
            typed += 1
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1]
            kind = (type(error).__name__, Path(frame.filename).name, frame.lineno or 0)
            crashes[kind] += 1
            first_seed.setdefault(kind, (seed, str(error)[:120]))
    seconds = time.perf_counter() - started
    print(f"cases: {args.cases:,} (seeds {args.seed}–{args.seed + args.cases - 1}) "
          f"in {seconds:.0f} s, {args.cases / seconds:,.0f} cases/s")
    print(f"typed errors (allowed): {typed:,}")
    print(f"crashes: {sum(crashes.values()):,}")
    for kind, count in crashes.most_common():
        seed, message = first_seed[kind]
        print(f"  {count:,} × {kind[0]} at {kind[1]}:{kind[2]} (first seed {seed}): {message}")
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
