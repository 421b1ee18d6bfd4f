"""Cost of the symbolic side: ``symbolic.lower`` + ``symbolic.check`` on issue 4's cases.

Run from the repository root::

    python benchmarks/bench_symbolic.py            # about 30 s on 2 cores
    python benchmarks/bench_symbolic.py --quick    # one repeat, no baseline
    python benchmarks/bench_symbolic.py --deep     # only (c), the deep graphs

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

(c) deep graphs: a 10,000-node chain of a scalar (``sin``, ``* 0.9``, ``+ 0.1`` in turn) and a
    depth-2,000 nested expression (``sin`` of ``sin`` ...): lower, grad, jacobian, hessian,
    check, check_hessian, explain, text and latex (expanded and compact) and compile, each
    timed once, with the total (target: the 10,000-node round <= 30 s), and ``grad`` of a
    2,000-node chain (target <= 2 s). ``--deep`` runs only this part.

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


def _deep(nodes: int, nested: bool) -> tuple[t.Tensor, t.Tensor]:
    x = t.tensor(0.3, dtype=t.float64, requires_grad=True)
    h = x
    for i in range(nodes):
        if nested or i % 3 == 0:
            h = h.sin()
        else:
            h = h * 0.9 if i % 3 == 1 else h + 0.1
    return x, h


def _deep_round(nodes: int, nested: bool) -> None:
    """Every public function of the symbolic side on one deep graph, each timed once."""
    x, y = _deep(nodes, nested)
    sympy.core.cache.clear_cache()
    steps: list[tuple[str, Callable[[], object]]] = []
    state: dict[str, object] = {}
    steps.append(("lower", lambda: state.update(lowered=symbolic.lower(y))))
    steps.append(("grad", lambda: state.update(g=symbolic.grad(y, x)[0])))
    steps.append(("jacobian", lambda: symbolic.jacobian(y, x)))
    steps.append(("hessian", lambda: symbolic.hessian(y, x)))
    steps.append(("check", lambda: symbolic.check(y)))
    steps.append(("check_hessian", lambda: symbolic.check_hessian(y)))
    steps.append(("explain", lambda: symbolic.explain(y, x)))
    for form in ("text", "latex"):
        for compact in (False, True):
            label = f"{form}{' compact' if compact else ''}"
            steps.append((f"{label} (output)", lambda f=form, c=compact:
                          getattr(state["lowered"].expr, f)(compact=c)))
            steps.append((f"{label} (gradient)", lambda f=form, c=compact:
                          getattr(state["g"], f)(compact=c)))
    steps.append(("compile", lambda: state.update(f=symbolic.compile(y, x))))
    steps.append(("compiled call", lambda: state["f"](np.array(0.3))))
    total = 0.0
    for name, run in steps:
        start = time.perf_counter()
        run()
        seconds = time.perf_counter() - start
        total += seconds
        print(f"  {name:26s} {seconds:8.2f} s")
    print(f"  {'total':26s} {total:8.2f} s")


def deep_graphs() -> None:
    """Section (c): the deep-graph figures."""
    print("\n(c) deep graphs, float64 scalar, each step timed once")
    print("10,000-node chain (sin, * 0.9, + 0.1 in turn); target: total <= 30 s")
    _deep_round(10_000, nested=False)
    print("depth-2,000 nested sin(sin(...(x)))")
    _deep_round(2_000, nested=True)
    x, y = _deep(2_000, nested=False)
    lowered = symbolic.lower(y)
    seconds = _median_seconds(lambda: symbolic.grad(lowered, x), 3)
    print(f"grad of a 2,000-node chain (lowered): {seconds:.2f} s (target <= 2 s)")
    seconds = _median_seconds(lambda: symbolic.grad(y, x), 3)
    print(f"lower + grad of a 2,000-node chain: {seconds:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat, no sympy baseline")
    parser.add_argument("--baseline-32", action="store_true",
                        help="also time plain sympy.diff for 32x32 (minutes)")
    parser.add_argument("--deep", action="store_true", help="only (c), the deep graphs")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    if args.deep:
        deep_graphs()
        return
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
    deep_graphs()


if __name__ == "__main__":
    main()
