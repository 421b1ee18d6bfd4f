"""Cost of the symbolic side: ``symbolic.lower`` + ``symbolic.check`` on issue 4's cases.

Run from the repository root::

    python benchmarks/bench_symbolic.py            # about 30 s on 2 cores
    python benchmarks/bench_symbolic.py --quick    # one repeat, no baseline

Cases (each figure is the median wall time of ``--repeats`` fresh runs, sympy already imported):

(a) ``tanh(W @ x + b).sum()`` for W of 8x8, 16x16 and 32x32 (float64, W and b require grad):
    lower + check (every element), and the same with ``sample=8``. Targets: 16x16 < 2 s,
    32x32 < 5 s. Baseline: plain ``sympy.diff`` of the flattened expression with respect to
    every element of W and b, the derivatives only (no evaluation), for 8x8 and 16x16 (32x32
    takes too long to be worth waiting for; ``--baseline-32`` runs it).
(b) a chain of L elementwise layers on a 4-vector (layer i: ``h.sin() * h + h.tanh()`` or
    ``h.exp() * 0.5 - h.sigmoid()``, so each value is used twice and the expanded expression
    doubles per layer), for L = 10, 20, 40, 80: lower + check. Target: L = 20 < 2 s; the time
    per node should stay flat as L grows (cost follows nodes, not the expanded size).

The numeric reference (the same forward + backward in symgrad) is printed for scale.
symengine is not used: sympy is the only engine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import sympy

import symgrad as t
from symgrad import symbolic


def _median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        sympy.core.cache.clear_cache()  # no run profits from an earlier one's sympy cache
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _dense(n: int, seed: int = 0) -> t.Tensor:
    rng = np.random.default_rng(seed)
    W = t.tensor(rng.standard_normal((n, n)) / np.sqrt(n), dtype=t.float64, requires_grad=True)
    x = t.tensor(rng.standard_normal(n), dtype=t.float64)
    b = t.tensor(rng.standard_normal(n), dtype=t.float64, requires_grad=True)
    return (W @ x + b).tanh().sum()


def _chain(layers: int, seed: int = 0) -> t.Tensor:
    rng = np.random.default_rng(seed)
    z = t.tensor(rng.uniform(-1, 1, 4), dtype=t.float64, requires_grad=True)
    h = z
    for i in range(layers):
        h = (h.sin() * h + h.tanh()) if i % 2 else (h.exp() * 0.5 - h.sigmoid())
    return h.sum()


def _sympy_baseline(n: int) -> float:
    """sympy.diff of the flattened tanh(W x + b).sum() w.r.t. every W_ij and b_i."""
    rng = np.random.default_rng(0)
    W = sympy.Matrix(n, n, lambda i, j: sympy.Symbol(f"W_{i}_{j}", real=True))
    b = sympy.Matrix(n, 1, lambda i, j: sympy.Symbol(f"b_{i}", real=True))
    x = sympy.Matrix([sympy.Rational(str(v)) for v in rng.standard_normal(n)])
    f = sum(sympy.tanh(e) for e in (W * x + b))
    sympy.core.cache.clear_cache()
    start = time.perf_counter()
    for s in list(W) + list(b):
        sympy.diff(f, s)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat, no sympy baseline")
    parser.add_argument("--baseline-32", action="store_true",
                        help="also time plain sympy.diff for 32x32 (minutes)")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    symbolic.check(_dense(2))  # import sympy and warm caches outside the timings

    print(f"sympy {sympy.__version__}, numpy {np.__version__}, median of {repeats} run(s)\n")
    print("(a) tanh(W @ x + b).sum(), float64")
    print(f"{'n':>4} {'lower+check':>12} {'sample=8':>10} {'numeric':>10} "
          f"{'sympy.diff only':>16} {'ratio':>7} {'target':>7}")
    for n, target in ((8, None), (16, 2.0), (32, 5.0)):
        full = _median_seconds(lambda n=n: symbolic.check(_dense(n)), repeats)
        sampled = _median_seconds(lambda n=n: symbolic.check(_dense(n), sample=8), repeats)
        numeric = _median_seconds(lambda n=n: _dense(n).backward(), repeats)
        baseline = None
        if not args.quick and (n < 32 or args.baseline_32):
            baseline = _sympy_baseline(n)
        base = f"{baseline:16.3f}" if baseline is not None else f"{'-':>16}"
        ratio = f"{full / baseline:7.3f}" if baseline else f"{'-':>7}"
        goal = f"< {target:g} s" if target else "-"
        print(f"{n:>4} {full:12.3f} {sampled:10.3f} {numeric:10.5f} {base} {ratio} {goal:>7}")

    print("\n(b) elementwise chain on a 4-vector, lower + check")
    print(f"{'layers':>6} {'nodes':>6} {'seconds':>9} {'ms/node':>9}")
    for layers in (10, 20, 40, 80):
        nodes = len(symbolic.lower(_chain(layers)).steps)
        seconds = _median_seconds(lambda k=layers: symbolic.check(_chain(k)), repeats)
        print(f"{layers:>6} {nodes:>6} {seconds:9.3f} {1000 * seconds / nodes:9.2f}")
    print("target: 20 layers < 2 s; ms/node flat as layers grow")


if __name__ == "__main__":
    main()
