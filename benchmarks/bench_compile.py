"""Compiled gradients (``symbolic.compile``) against the eager forward + backward.

Run from the repository root::

    python benchmarks/bench_compile.py            # about a minute on 2 cores
    python benchmarks/bench_compile.py --quick    # small cases only, fewer repeats

Cases (float64 throughout): a 2-parameter function ``sin(a*b) + exp(a)/b``, and the layer
``tanh(W @ x + b).sum()`` (gradients for W and b) with W of 4x4, 16x16 and 32x32. For each:

* compile time (lowering + exact gradient + lambdify);
* one point: eager symgrad forward + backward (``autograd.grad``) vs one compiled call;
* N points (N = 1000): N eager calls vs one compiled call with a leading batch dimension;
* for the layer: a hand-written numpy forward + backward per point (and batched with
  ``einsum``), and torch per point if it can be imported.

Before timing, the compiled value and gradients are checked against the eager ones. Figures are
medians of ``--repeats`` timed runs after a warm-up call.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import symgrad as t
from symgrad import symbolic

N_BATCH = 1000


def _median(run: Callable[[], object], repeats: int, inner: int = 1) -> float:
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            run()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def _two_param():
    a = t.tensor(0.7, dtype=t.float64, requires_grad=True)
    b = t.tensor(1.3, dtype=t.float64, requires_grad=True)

    def build(a, b):
        return (a * b).sin() + a.exp() / b

    return "f(a, b) = sin(ab) + exp(a)/b", build, [a, b], {}


def _layer(n: int):
    rng = np.random.default_rng(0)
    W = t.tensor(rng.standard_normal((n, n)) / np.sqrt(n), dtype=t.float64, requires_grad=True)
    b = t.tensor(rng.standard_normal(n), dtype=t.float64, requires_grad=True)
    x = t.tensor(rng.standard_normal(n), dtype=t.float64)

    def build(W, b):
        return (W @ x + b).tanh().sum()

    return f"tanh(W@x+b).sum(), W {n}x{n}", build, [W, b], {"x": x.numpy()}


def _eager(build, leaves):
    out = build(*leaves)
    return out, t.autograd.grad(out, leaves)


def _numpy_layer(W, b, x):
    h = np.tanh(W @ x + b)
    g = 1.0 - h * h  # d sum(tanh(z)) / dz
    return h.sum(), (np.outer(g, x), g)


def _numpy_layer_batched(W, b, x):
    h = np.tanh(np.einsum("nij,j->ni", W, x) + b)
    g = 1.0 - h * h
    return h.sum(-1), (g[:, :, None] * x, g)


def _torch_step(torch, build_torch, values):
    leaves = [torch.tensor(v, requires_grad=True) for v in values]
    out = build_torch(*leaves)
    return torch.autograd.grad(out, leaves)


def _run_case(name, build, leaves, extra, rng, repeats, torch) -> str:
    start = time.perf_counter()
    f = symbolic.compile(build(*leaves), leaves)
    compile_s = time.perf_counter() - start
    values = [leaf.detach().numpy() for leaf in leaves]
    out, grads = _eager(build, leaves)
    value, cgrads = f(*values)
    assert np.allclose(value, out.item()), name
    for g, e in zip(cgrads, grads, strict=True):
        assert np.allclose(g, e.numpy(), rtol=1e-10, atol=1e-12), name
    inner = 20
    eager = _median(lambda: _eager(build, leaves), repeats, inner)
    compiled = _median(lambda: f(*values), repeats, inner)
    batch = [v + 0.1 * rng.standard_normal((N_BATCH, *v.shape)) for v in values]
    batch_leaves = [[t.tensor(v[k], requires_grad=True) for v in batch] for k in range(N_BATCH)]
    n_eager = _median(lambda: [_eager(build, ls) for ls in batch_leaves], max(1, repeats // 2))
    n_comp = _median(lambda: f(*batch), repeats)
    line = (f"{name:32} {compile_s:7.2f}s {eager * 1e6:7.1f}µs {compiled * 1e6:7.1f}µs "
            f"{compiled / eager:5.2f}× {n_eager * 1e3:7.1f}ms {n_comp * 1e3:7.2f}ms "
            f"{n_comp / n_eager:6.4f}×")
    if "x" in extra:
        x = extra["x"]
        W, b = values
        np_one = _median(lambda: _numpy_layer(W, b, x), repeats, inner)
        np_n = _median(lambda: _numpy_layer_batched(batch[0], batch[1], x), repeats)
        line += f" {np_one * 1e6:7.1f}µs {np_n * 1e3:7.2f}ms"
        if torch is not None:
            xt = torch.tensor(x)

            def build_torch(W, b):
                return torch.tanh(W @ xt + b).sum()

            th = _median(lambda: _torch_step(torch, build_torch, values), repeats, inner)
            line += f" {th * 1e6:7.1f}µs"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small cases, 3 repeats")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    try:
        if args.no_torch:
            raise ImportError
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    cases = [_two_param(), _layer(4)]
    if not args.quick:
        cases += [_layer(16), _layer(32)]
    print(f"numpy {np.__version__}; times per call, medians of {repeats}; N = {N_BATCH} points")
    header = (f"{'case':32} {'compile':>8} {'eager':>9} {'compiled':>9} {'ratio':>6} "
              f"{'N eager':>9} {'N comp.':>9} {'ratio':>6} {'numpy':>9} {'N numpy':>9} "
              f"{'torch':>9}")
    print(header)
    rng = np.random.default_rng(1)
    for case in cases:
        print(_run_case(*case, rng, repeats, torch))
    print("ratio = compiled / eager (below 1: compiled is faster)")


if __name__ == "__main__":
    main()
