"""How close any Python autograd can come to hand-written numpy on the MLP step (the paired
benchmark's W2): a minimal tape, about 60 lines of closures that record each op and replay the
rules in reverse (no version counters, hooks, anomaly mode, dtype promotion, errors, nor
freeing), timed against the hand-written numpy step, and symgrad beside it, steps alternated in
one process, medians of the per-pair ratios.

Run from the repository root::

    python benchmarks/bench_tape_floor.py             # about 15 s
    python benchmarks/bench_tape_floor.py --quick

All three run the same numpy calls on the same arrays (the tape's gradients are checked against
the numpy step's first), so what separates them is the Python work per op and per node: the
tape's ratio is a floor for a design that records the graph in Python objects.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its neighbour: the step's data
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # a source checkout

from bench_mlp_phases import data  # noqa: E402

import symgrad as t  # noqa: E402


class Tape:
    """A tensor of the minimal tape: its value, whether it needs a gradient, its rule."""

    __slots__ = ("value", "needs", "parents", "rule", "grad")

    def __init__(self, value: np.ndarray, needs: bool = False, parents: tuple = (),
                 rule: Callable[[np.ndarray], tuple] | None = None) -> None:
        self.value, self.needs, self.parents, self.rule, self.grad = value, needs, parents, \
            rule, None

    def _op(self, value: np.ndarray, parents: tuple, rule: Callable) -> Tape:
        return Tape(value, True, parents, rule)

    def __matmul__(self, other: Tape) -> Tape:
        a, b = self.value, other.value
        return self._op(a @ b, (self, other), lambda g: (g @ b.T if self.needs else None,
                                                          a.T @ g if other.needs else None))

    def __add__(self, other: Tape) -> Tape:
        ndim = other.value.ndim
        return self._op(self.value + other.value, (self, other),
                        lambda g: (g, g.sum(0) if ndim < g.ndim else g))

    def __sub__(self, other: Tape) -> Tape:
        return self._op(self.value - other.value, (self, other), lambda g: (g, -g))

    def __mul__(self, other: Tape) -> Tape:
        a, b = self.value, other.value
        return self._op(a * b, (self, other), lambda g: (g * b, g * a))

    def tanh(self) -> Tape:
        y = np.tanh(self.value)
        return self._op(y, (self,), lambda g: (g * (1 - y * y),))

    def sum(self) -> Tape:
        shape = self.value.shape
        return self._op(np.asarray(self.value.sum()), (self,),
                        lambda g: (np.broadcast_to(g, shape),))

    def __truediv__(self, n: float) -> Tape:
        return self._op(np.asarray(self.value / n), (self,), lambda g: (g / n,))

    def backward(self) -> None:
        order, seen, stack = [], set(), [(self, False)]
        while stack:  # (a depth-first topological order)
            node, done = stack.pop()
            if done:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node.parents if p.needs)
        grads = {id(self): np.ones((), self.value.dtype)}
        for node in reversed(order):
            g = grads.pop(id(node), None)
            if node.rule is None:
                node.grad = g if node.grad is None else node.grad + g
                continue
            for parent, gp in zip(node.parents, node.rule(g), strict=True):
                if gp is not None and parent.needs:
                    key = id(parent)
                    grads[key] = gp if key not in grads else grads[key] + gp


def steps(d: dict[str, np.ndarray]) -> dict[str, Callable[[], dict[str, np.ndarray]]]:
    """The three steps on the same arrays, each returning its parameters' gradients."""
    n = d["T"].size
    names = ("W1", "b1", "W2", "b2")

    def hand() -> dict[str, np.ndarray]:
        X, T, W1, b1, W2, b2 = (d[k] for k in ("X", "T", *names))
        H = np.tanh(X @ W1 + b1)
        D = (H @ W2 + b2) - T
        (D * D).sum() / n
        gY = D * np.float32(2.0 / n)
        gZ = (gY @ W2.T) * (1 - H * H)
        return {"W1": X.T @ gZ, "b1": gZ.sum(0), "W2": H.T @ gY, "b2": gY.sum(0)}

    def run(make: Callable, leaf: Callable) -> Callable[[], dict[str, np.ndarray]]:
        X, T = make(d["X"]), make(d["T"])
        params = [leaf(d[k]) for k in names]

        def step() -> dict[str, np.ndarray]:
            for p in params:
                p.grad = None
            W1, b1, W2, b2 = params
            H = (X @ W1 + b1).tanh()
            D = H @ W2 + b2 - T
            ((D * D).sum() / n).backward()
            return dict(zip(names, (p.grad for p in params), strict=True))
        return step

    return {"numpy": hand, "tape": run(Tape, lambda v: Tape(v, True)),
            "symgrad": run(t.tensor, lambda v: t.tensor(v, requires_grad=True))}


def paired(step: Callable, reference: Callable, seconds: float) -> float:
    """The median ratio step / reference over pairs run alternately first and second."""
    for _ in range(5):
        step()
        reference()
    ratios, clock, start = [], time.perf_counter, time.perf_counter()
    while clock() - start < seconds or len(ratios) < 3:
        first, second = (step, reference) if len(ratios) % 2 else (reference, step)
        t0 = clock()
        first()
        t1 = clock()
        second()
        t2 = clock()
        mine, theirs = (t1 - t0, t2 - t1) if first is step else (t2 - t1, t1 - t0)
        ratios.append(mine / theirs)
    return statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="0.5 s per pairing")
    args = parser.parse_args()
    seconds = 0.5 if args.quick else 4.0
    print("MLP step 64x784 -> 256 -> 10 (float32), median per-pair ratio against numpy:")
    for label, shape in (("full size", (64, 784, 256, 10)), ("tiny (8x12 -> 6 -> 3)",
                                                              (8, 12, 6, 3))):
        run = steps(data(*shape))
        expected = run["numpy"]()
        for name in ("tape", "symgrad"):
            got = run[name]()
            for key, value in expected.items():
                np.testing.assert_allclose(np.asarray(got[key].numpy() if hasattr(
                    got[key], "numpy") else got[key]), value, rtol=1e-4, atol=1e-6)
        ratios = {name: paired(run[name], run["numpy"], seconds) for name in ("tape", "symgrad")}
        print(f"  {label:22s} tape / numpy {ratios['tape']:.3f}   "
              f"symgrad / numpy {ratios['symgrad']:.3f}")


if __name__ == "__main__":
    main()
