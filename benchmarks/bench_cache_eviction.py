"""Why the paired benchmark's W2 step pays about twice as much Python work at full size as the
tiny step does, though both run the same Python code: the full step's large matmuls evict the
interpreter's code and objects from the CPU caches, and each op after them reads them back from
memory. This script shows it on the tiny step (8x12 -> 6 -> 3), where the arrays are too small
to matter: between steps it copies a buffer of 0, 1, 4 or 16 MiB (what a large matmul does to
the caches) and prints each library's step time and symgrad's extra time over numpy's.

Run from the repository root::

    python benchmarks/bench_cache_eviction.py            # about 10 s
    python benchmarks/bench_cache_eviction.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its neighbours: the steps and data
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # a source checkout

from bench_mlp_phases import data  # noqa: E402
from bench_tape_floor import steps  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="500 steps per size")
    args = parser.parse_args()
    count = 500 if args.quick else 5000
    run = steps(data(8, 12, 6, 3))
    print("tiny MLP step (8x12 -> 6 -> 3, float32), median µs per step, a buffer copied "
          "between steps:")
    print(f"  {'copied':>8s} {'numpy':>8s} {'symgrad':>8s} {'symgrad - numpy':>16s}")
    for mib in (0, 1, 4, 16):
        source = np.ones(max(mib * 2 ** 20 // 8, 1))
        target = np.empty_like(source)
        times: dict[str, list[float]] = {"numpy": [], "symgrad": []}
        for i in range(count + 50):
            for name in times:
                np.copyto(target, source)
                start = time.perf_counter()
                run[name]()
                if i >= 50:
                    times[name].append(time.perf_counter() - start)
        numpy, symgrad = (statistics.median(times[n]) * 1e6 for n in ("numpy", "symgrad"))
        print(f"  {mib:5d} MiB {numpy:8.1f} {symgrad:8.1f} {symgrad - numpy:16.1f}")


if __name__ == "__main__":
    main()
