"""How long ``import symgrad`` takes next to ``import numpy`` alone (issue 16's goal: at most 1.2x).

Run from the repository root::

    python benchmarks/bench_import.py              # 11 fresh processes each, alternated
    python benchmarks/bench_import.py --runs 21 --detail

Each run is a fresh interpreter that times one import (wall clock and CPU time of the process),
numpy and symgrad alternated so that both see the same machine; the medians and their ratio are
printed. ``--detail`` adds the symgrad modules that cost the most (``-X importtime`` self times,
the minimum over the runs). ``--first-use`` also times the import followed by a first forward
and backward (``exp``, ``*``, ``+``, ``sum``, ``backward``): the spelling families, the ops and
the engine that ``import symgrad`` leaves for first use are loaded then.

The children compile their bytecode once into a temporary ``-X pycache_prefix`` (a warm-up run
each) and read it from there, as an installed package does, even when ``PYTHONDONTWRITEBYTECODE``
is set here: compiling every module at every import is not what users wait for.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMED = ("import time; w, c = time.perf_counter(), time.process_time(); import {module}; "
         "print(time.perf_counter() - w, time.process_time() - c)")
FIRST_USE = "symgrad; x = symgrad.ones(3, requires_grad=True); (x.exp() * 2 + 1).sum().backward()"


def _run(module: str, prefix: str, importtime: bool = False) -> tuple[float, float, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    flags = ["-X", f"pycache_prefix={prefix}"] + (["-X", "importtime"] if importtime else [])
    done = subprocess.run([sys.executable, *flags, "-c", TIMED.format(module=module)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    wall, cpu = (float(x) for x in done.stdout.split())
    return wall, cpu, done.stderr


def _self_times(stderr: str) -> dict[str, int]:
    """Module -> self time in microseconds, from ``-X importtime`` output."""
    times = {}
    for line in stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line[len("import time:"):].split("|")
            times[name.strip()] = int(own)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="fresh processes per module")
    parser.add_argument("--detail", action="store_true", help="the costliest symgrad modules")
    parser.add_argument("--first-use", action="store_true",
                        help="also: the import and a first forward and backward")
    args = parser.parse_args()
    timed = {"numpy": "numpy", "symgrad": "symgrad"}
    if args.first_use:
        timed["first use"] = FIRST_USE
    with tempfile.TemporaryDirectory() as prefix:
        for module in timed.values():  # warm-up: bytecode into the prefix
            _run(module, prefix)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in timed}
        own: dict[str, int] = {}
        for _ in range(args.runs):
            for label, module in timed.items():
                wall, cpu, err = _run(module, prefix, importtime=args.detail and label == "symgrad")
                times[label].append((wall, cpu))
                for name, us in _self_times(err).items():
                    if name.startswith("symgrad"):
                        own[name] = min(own.get(name, us), us)
    print(f"import time, median of {args.runs} fresh processes each (and quartiles of the "
          "per-pair ratio: each symgrad run over the numpy run just before it)")
    for i, what in ((0, "wall"), (1, "cpu")):
        numpy_s = statistics.median(t[i] for t in times["numpy"])
        symgrad_s = statistics.median(t[i] for t in times["symgrad"])
        pairs = [s[i] / n[i] for n, s in zip(times["numpy"], times["symgrad"], strict=True)]
        q1, _, q3 = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else pairs * 3
        print(f"  {what:4s}  numpy {numpy_s * 1e3:7.1f} ms   symgrad {symgrad_s * 1e3:7.1f} ms   "
              f"ratio {symgrad_s / numpy_s:.2f}  (goal <= 1.2; pairs {q1:.2f}-{q3:.2f})")
        if args.first_use:
            first_s = statistics.median(t[i] for t in times["first use"])
            print(f"        import symgrad and a first forward and backward {first_s * 1e3:7.1f} ms"
                  f"   ({first_s / numpy_s:.2f} x numpy's import)")
    if own:
        print(f"  symgrad's own modules: {sum(own.values()) / 1e3:.1f} ms (-X importtime self "
              "times, min over runs); costliest:")
        for name, us in sorted(own.items(), key=lambda kv: -kv[1])[:10]:
            print(f"    {name:40s} {us / 1e3:6.1f} ms")


if __name__ == "__main__":
    main()
