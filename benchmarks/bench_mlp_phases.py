"""Where an MLP training step's time goes: each forward op and the backward pass of symgrad
against the same numpy calls written by hand, timed side by side within every step.

Run from the repository root::

    python benchmarks/bench_mlp_phases.py            # about 15 s
    python benchmarks/bench_mlp_phases.py --quick

The step is the paired benchmark's W2: ``H = (X @ W1 + b1).tanh(); D = H @ W2 + b2 - T;
loss = (D * D).sum() / N; loss.backward()`` (64x784 -> 256 -> 10, float32). Each line pairs one
symgrad op with its numpy counterpart (the backward with the hand-written gradients: one scale,
two bias sums, three matmuls, the tanh derivative); ``extra`` is the median of symgrad's time
minus numpy's. The same step on tiny arrays (8x12 -> 6 -> 3) leaves only the Python layer:
its extra is the per-step overhead, which the full-size step pays too (more, with cold caches
after the big matmuls). Both libraries run the same five BLAS calls on the same operand
layouts; with threaded BLAS, symgrad's matmuls still cost more than numpy's because each
follows a pause of Python work, after which BLAS's worker threads are slower to start (the
last table: one matmul after pauses of 0 to 300 us). ``OMP_NUM_THREADS=1`` removes that part.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a source checkout

import symgrad as t  # noqa: E402

PHASES = ("X @ W1", "+ b1", "tanh", "H @ W2", "+ b2", "- T", "D * D", "sum", "/ N", "backward")


def data(batch: int, n_in: int, n_hidden: int, n_out: int) -> dict[str, np.ndarray]:
    """The inputs of one step (float32), the same for both libraries."""
    rng = np.random.default_rng(0)
    f32 = np.float32
    return {"X": rng.standard_normal((batch, n_in)).astype(f32),
            "T": rng.standard_normal((batch, n_out)).astype(f32),
            "W1": (rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in)).astype(f32),
            "b1": np.zeros(n_hidden, f32),
            "W2": (rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden)).astype(f32),
            "b2": np.zeros(n_out, f32)}


def symgrad_step(d: dict[str, np.ndarray], clock: list[float]) -> dict[str, np.ndarray]:
    """One symgrad step, the time after each phase appended to ``clock``."""
    X, T = d["sg_X"], d["sg_T"]
    W1, b1, W2, b2 = d["sg_params"]
    for p in d["sg_params"]:
        p.grad = None
    pc = time.perf_counter
    clock.append(pc())
    Z = X @ W1
    clock.append(pc())
    Z = Z + b1
    clock.append(pc())
    H = Z.tanh()
    clock.append(pc())
    Y = H @ W2
    clock.append(pc())
    Y = Y + b2
    clock.append(pc())
    D = Y - T
    clock.append(pc())
    S = D * D
    clock.append(pc())
    s = S.sum()
    clock.append(pc())
    loss = s / d["N"]
    clock.append(pc())
    loss.backward()
    clock.append(pc())
    return {name: p.grad.numpy() for name, p in zip(("W1", "b1", "W2", "b2"), d["sg_params"],
                                                   strict=True)}


def numpy_step(d: dict[str, np.ndarray], clock: list[float]) -> dict[str, np.ndarray]:
    """The same step in numpy, its gradients written by hand."""
    X, T, W1, b1, W2, b2, N = d["X"], d["T"], d["W1"], d["b1"], d["W2"], d["b2"], d["N"]
    pc = time.perf_counter
    clock.append(pc())
    Z = X @ W1
    clock.append(pc())
    Z = Z + b1
    clock.append(pc())
    H = np.tanh(Z)
    clock.append(pc())
    Y = H @ W2
    clock.append(pc())
    Y = Y + b2
    clock.append(pc())
    D = Y - T
    clock.append(pc())
    S = D * D
    clock.append(pc())
    s = S.sum()
    clock.append(pc())
    _ = s / N
    clock.append(pc())
    gY = D * np.float32(2.0 / N)
    gZ = (gY @ W2.T) * (1 - H * H)
    grads = {"W1": X.T @ gZ, "b1": gZ.sum(0), "W2": H.T @ gY, "b2": gY.sum(0)}
    clock.append(pc())
    return grads


def measure(d: dict[str, np.ndarray], steps: int) -> dict[str, tuple[float, float, float]]:
    """Per phase: (symgrad, numpy, median of the per-step difference), microseconds."""
    d["N"] = d["T"].size
    d["sg_X"], d["sg_T"] = t.tensor(d["X"]), t.tensor(d["T"])
    d["sg_params"] = [t.tensor(d[k], requires_grad=True) for k in ("W1", "b1", "W2", "b2")]
    mine, reference = symgrad_step(d, []), numpy_step(d, [])
    for k, g in reference.items():  # the same gradients first
        err = np.max(np.abs(mine[k] - g)) / (np.max(np.abs(g)) + 1e-30)
        assert err < 1e-4, f"{k}: symgrad's gradient differs from numpy's ({err:.1e})"
    warmup = max(steps // 10, 5)
    rows: dict[str, list[list[float]]] = {p: [[], [], []] for p in PHASES}
    for i in range(warmup + steps):
        a: list[float] = []
        b: list[float] = []
        symgrad_step(d, a)
        numpy_step(d, b)
        if i < warmup:
            continue
        for k, phase in enumerate(PHASES):
            sa, sb = (a[k + 1] - a[k]) * 1e6, (b[k + 1] - b[k]) * 1e6
            rows[phase][0].append(sa)
            rows[phase][1].append(sb)
            rows[phase][2].append(sa - sb)
    totals = [sum_rows(rows, column) for column in range(3)]
    result = {k: tuple(statistics.median(v) for v in cols) for k, cols in rows.items()}
    result["step"] = tuple(statistics.median(v) for v in totals)
    return result


def sum_rows(rows: dict[str, list[list[float]]], column: int) -> list[float]:
    """Per step: the sum over the phases of one column."""
    return [sum(values) for values in zip(*(rows[p][column] for p in PHASES), strict=True)]


def report(title: str, result: dict[str, tuple[float, float, float]]) -> None:
    """Print one table."""
    print(f"\n{title}")
    print(f"    {'phase':10s} {'symgrad us':>11s} {'numpy us':>9s} {'extra us':>9s}")
    for phase, (sa, sb, extra) in result.items():
        print(f"    {phase:10s} {sa:11.1f} {sb:9.1f} {extra:9.1f}")
    sa, sb, _ = result["step"]
    print(f"    step ratio symgrad / numpy: {sa / sb:.3f} (medians of the per-step sums)")


def blas_after_gaps(gaps_us: tuple[int, ...], calls: int) -> dict[int, float]:
    """Median microseconds of numpy's X @ W1 (64x784 @ 784x256) right after ``gap`` us of
    pure Python work: with threaded BLAS, a call that follows a pause costs more (its worker
    threads have gone idle), which is what symgrad's Python layer does between its matmuls."""
    d = data(64, 784, 256, 10)
    X, W1 = d["X"], d["W1"]
    pc = time.perf_counter
    result = {}
    for gap in gaps_us:
        times = []
        for _ in range(calls):
            end = pc() + gap * 1e-6
            while pc() < end:
                pass
            start = pc()
            X @ W1
            times.append(pc() - start)
        result[gap] = statistics.median(times) * 1e6
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps")
    args = parser.parse_args()
    steps = 300 if args.quick else 1500
    report("MLP step 64x784 -> 256 -> 10, float32 (medians of paired steps)",
           measure(data(64, 784, 256, 10), steps))
    report("same step at 8x12 -> 6 -> 3 (the Python layer only)",
           measure(data(8, 12, 6, 3), steps * 4))
    gaps = blas_after_gaps((0, 20, 100, 300), steps // 3)
    print("\nnumpy's X @ W1 after a pause of Python work (threaded BLAS idles in pauses)")
    print("    " + "   ".join(f"{gap:3d} us pause: {us:6.1f} us" for gap, us in gaps.items()))


if __name__ == "__main__":
    main()
