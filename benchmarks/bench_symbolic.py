"""Cost of the symbolic side: ``symbolic.lower`` + ``symbolic.check`` on issue 4's cases.

Run from the repository root::

    python benchmarks/bench_symbolic.py            # about 30 s on 2 cores
    python benchmarks/bench_symbolic.py --quick    # one repeat, no baseline
    python benchmarks/bench_symbolic.py --deep     # only (f), the deep graphs

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

(c) model scale (issue 13), float64, cross_entropy of ``(x @ W1 + b1).tanh() @ W2``: full
    ``check`` of 128->32->10 batch 16 (target <= 2 s), ``sample=20`` of it, ``sample=32`` of
    784->128->10 batch 64 (<= 10 s), the same model with a custom tanh Function whose backward
    is wrong on one element (GradientMismatch naming it, <= 10 s), and the small CNN (conv2d
    1->4 3x3, relu, max_pool2d 2, linear, cross_entropy; batch 8, 12x12) with ``sample=16``
    (<= 10 s); the models are in ``symbolic_models.py``. "first" is the case run first in a
    fresh Python process (what a user's first check costs: sympy's import, the derivation and
    compilation of its templates), "again" the median of repeats in one process (templates
    cached). Wall seconds, CPU seconds in brackets (on a loaded machine the CPU figure is the
    steadier one).
(d) ``executor``: the 784 model's ``sample=32`` check, and ``check_hessian`` of a small
    tanh layer, on a ``ProcessPoolExecutor`` of 2 workers and on a ``distributed.LocalCluster``
    of 2 single-threaded worker processes (when installed), both warmed by one run, against
    serial: wall time, speedup, and the CPU seconds per run spent in this process and in the
    workers.
(e) symengine (when installed) beside sympy on the templates of (c): differentiating the
    log-softmax row and compiling its partials. sympy stays the reference; symengine is only
    measured.
(f) deep graphs (issue 13 item 2): a 10,000-node chain of a scalar (``sin``, ``* 0.9``,
    ``+ 0.1`` in turn) and a depth-2,000 nested expression (``sin`` of ``sin`` ...): lower,
    grad, jacobian, hessian, check, check_hessian, explain, text and latex (expanded and
    compact) and compile, each timed once, with the total (target: the 10,000-node round
    <= 30 s), and ``grad`` of a 2,000-node chain (target <= 2 s). ``--deep`` runs only this.

The numeric reference (the same forward + backward in symgrad) is printed for scale.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import symbolic_models
import sympy

import symgrad as t
from symgrad import symbolic

HERE = Path(__file__).resolve().parent


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


def _fresh_process(code: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``code`` (a case of ``symbolic_models.CASES``) run first in a
    fresh Python process: sympy's import and the templates' derivation included."""
    script = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        "from symbolic_models import *  # noqa\n"
        "from symgrad import symbolic\n"
        "wall, cpu = time.perf_counter(), time.process_time()\n"
        f"{code}\n"
        "print(time.perf_counter() - wall, time.process_time() - cpu)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True, cwd=HERE.parent)
    wall, cpu = map(float, done.stdout.split()[-2:])
    return wall, cpu


def _again(code: str, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``code`` repeated in this process (templates cached)."""
    namespace = {**vars(symbolic_models), "symbolic": symbolic}
    exec(code, namespace)  # noqa: S102 - the cases of symbolic_models, warmed once
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        exec(code, namespace)  # noqa: S102
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def model_scale(repeats: int) -> None:
    print("\n(c) model scale, float64, cross_entropy((x @ W1 + b1).tanh() @ W2); seconds, "
          "wall (CPU)")
    print("first: the first check in a fresh process (sympy's import and the templates' "
          "derivation included); again: median of repeats in one process")
    print(f"{'case':<46} {'first':>14} {'again':>14} {'target':>8}")
    for name, (code, target) in symbolic_models.CASES.items():
        first = _fresh_process(code)
        again = _again(code, repeats)
        goal = f"<= {target:g} s" if target else "-"
        print(f"{name:<46} {first[0]:6.2f} ({first[1]:5.2f}) {again[0]:6.2f} ({again[1]:5.2f}) "
              f"{goal:>8}")
    wall, cpu = _fresh_process("import sympy")
    print(f"of which sympy's own import (in the fresh process): {wall:.2f} ({cpu:.2f})")
    report = symbolic.check(symbolic_models.mlp(784, 128, 10, 64), sample=32)
    verified = sum(n.elements for n in report.nodes)
    print(f"784 model: {len(report.nodes)} nodes' VJP rules verified on {verified} input "
          f"elements; {sum(len(r.checked) for r in report.inputs)} leaf elements exact")


def _worker_cpu(executor: object) -> float:
    """CPU seconds used so far by the worker processes of a ProcessPoolExecutor or of a Dask
    client's executor (0 when they cannot be read)."""
    client = getattr(executor, "_client", None)
    if client is not None:
        return sum(client.run(time.process_time).values())
    try:
        import psutil
    except ImportError:
        return 0.0
    total = 0.0
    for process in getattr(executor, "_processes", {}).values():
        times = psutil.Process(process.pid).cpu_times()
        total += times.user + times.system
    return total


def _spread(run: Callable[[], object], executor: object, repeats: int
            ) -> tuple[float, float, float]:
    """Median wall seconds of ``run`` on ``executor``, and per run the CPU seconds of this
    process and of the workers."""
    before, cpu = _worker_cpu(executor), time.process_time()
    wall = _median_seconds(run, repeats)
    return wall, (time.process_time() - cpu) / repeats, \
        (_worker_cpu(executor) - before) / repeats


def executors(repeats: int) -> None:
    print("\n(d) executor, workers warmed by one run; seconds")
    loss = symbolic_models.mlp(784, 128, 10, 64)
    rng = np.random.default_rng(2)
    W = t.tensor(rng.standard_normal((8, 4)), dtype=t.float64, requires_grad=True)
    x = t.tensor(rng.standard_normal((6, 8)), dtype=t.float64)
    hessian_loss = (x @ W).tanh().sum()
    cases = [("check, 784-128-10 b64, sample=32",
              lambda executor=None: symbolic.check(loss, sample=32, executor=executor)),
             ("check_hessian, tanh(x @ W) W 8x4",
              lambda executor=None: symbolic.check_hessian(hessian_loss, W,
                                                           executor=executor))]
    serial = {}
    print(f"{'':<36} {'':<26} {'wall':>6} {'speedup':>8} {'CPU here':>9} {'workers':>8}")
    for name, run in cases:
        report = str(run())
        cpu = time.process_time()
        wall = _median_seconds(run, repeats)
        serial[name] = (wall, report)
        print(f"{name:<36} {'serial':<26} {wall:6.2f} {1.0:7.2f}x "
              f"{(time.process_time() - cpu) / repeats:9.2f} {0.0:8.2f}")

    def rows(executor_name: str, executor: object) -> None:
        for name, run in cases:
            wall, report = serial[name]
            assert str(run(executor)) == report  # warms the workers; the serial report
            spread, here, workers = _spread(lambda r=run: r(executor), executor, repeats)
            print(f"{name:<36} {executor_name:<26} {spread:6.2f} {wall / spread:7.2f}x "
                  f"{here:9.2f} {workers:8.2f}  (same report)")

    with ProcessPoolExecutor(2) as pool:
        rows("ProcessPoolExecutor(2)", pool)
    try:
        import distributed
    except ImportError:
        print("distributed not installed: pip install symgrad[distributed]")
        return
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        rows("Dask LocalCluster(2 x 1)", client.get_executor())
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(a speedup needs idle cores; CPU here includes a LocalCluster's scheduler)")


def symengine_beside_sympy() -> None:
    print("\n(e) symengine beside sympy: the log-softmax row of 10 (template of (c))")
    try:
        import symengine
    except ImportError:
        print("symengine not installed: pip install symgrad[symengine]")
        return
    rows = []
    for name, lib in (("sympy", sympy), ("symengine", symengine)):
        c = [lib.Symbol(f"q{k}") if lib is symengine else sympy.Symbol(f"q{k}", real=True)
             for k in range(10)]
        expr = c[3] - lib.log(sum(lib.exp(v) for v in c))
        if lib is sympy:
            sympy.core.cache.clear_cache()
        start = time.perf_counter()
        partials = [lib.diff(expr, v) for v in c]
        derive = time.perf_counter() - start
        start = time.perf_counter()
        if lib is sympy:
            function = sympy.lambdify(c, partials, modules="numpy")
        else:
            function = symengine.Lambdify(c, partials)
        compile_ = time.perf_counter() - start
        points = np.random.default_rng(0).standard_normal((10, 640))
        start = time.perf_counter()
        function(*points) if lib is sympy else function(points.T)
        evaluate = time.perf_counter() - start
        rows.append((name, derive, compile_, evaluate))
    print(f"{'':<10} {'diff x10':>9} {'compile':>9} {'640 rows':>9}")
    for name, derive, compile_, evaluate in rows:
        print(f"{name:<10} {derive:9.4f} {compile_:9.4f} {evaluate:9.4f}")
    print("symengine: templates are derived once per process and cached, so it would save "
          "only the first check's derivation")


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
    """Section (f): the deep-graph figures."""
    print("\n(f) deep graphs, float64 scalar, each step timed once")
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
    parser.add_argument("--only", nargs="+", default=["a", "b", "c", "d", "e", "f"],
                        help="sections to run (a-f)")
    parser.add_argument("--deep", action="store_true", help="only (f), the deep graphs")
    args = parser.parse_args()
    if args.deep:
        deep_graphs()
        return
    repeats = 1 if args.quick else args.repeats
    symbolic.check(_dense(2))  # import sympy and warm caches outside the timings
    symbolic.check(symbolic_models.mlp(32, 8, 4, 8), sample=2)  # the node-by-node modules
    print(f"sympy {sympy.__version__}, numpy {np.__version__}, median of {repeats} run(s); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if "c" in args.only:
        model_scale(repeats)
    if "d" in args.only:
        executors(repeats)
    if "e" in args.only:
        symengine_beside_sympy()
    if "f" in args.only:
        deep_graphs()
    if "a" not in args.only and "b" not in args.only:
        return

    print("\n(a) tanh(W @ x + b).sum(), float64")
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
