"""A training step built from ``symgrad.nn`` and ``symgrad.optim`` against the same step in
PyTorch (when installed): the cost of the Module and optimizer layers on top of the ops.

Run from the repository root::

    python benchmarks/bench_nn.py            # about 20 s on 2 cores
    python benchmarks/bench_nn.py --quick

For an MLP 784 -> 128 -> 10 (ReLU, cross entropy, batch 64) it reports the median time of
one step (``zero_grad``, forward, loss, backward, ``optimizer.step()``) with SGD (momentum)
and with Adam, and, separately, the optimizer's ``step()`` alone. Same initial weights in
both libraries; the losses after the timed steps are printed as a check that both trained
alike.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import symgrad

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None


def _model(lib, weights):
    net = lib.nn.Sequential(lib.nn.Linear(784, 128), lib.nn.ReLU(), lib.nn.Linear(128, 10))
    with lib.no_grad():
        for p, w in zip(net.parameters(), weights, strict=True):
            p.copy_(lib.tensor(w))
    return net


def _bench(lib, make_opt, weights, x, y, repeats):
    net = _model(lib, weights)
    opt = make_opt(lib, net)
    xs, ys = lib.tensor(x), lib.tensor(y)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(net(xs), ys)
        loss.backward()
        opt.step()
        return loss

    for _ in range(3):
        step()
    times, opt_times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        loss = step()
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        opt.step()  # the optimizer alone (gradients still there)
        opt_times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3, statistics.median(opt_times) * 1e3, loss.item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 10 if args.quick else 40
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 784)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    weights = [(rng.standard_normal(s) * 0.05).astype(np.float32)
               for s in [(128, 784), (128,), (10, 128), (10,)]]
    optimizers = {
        "SGD(momentum=0.9)": lambda lib, net: lib.optim.SGD(net.parameters(), lr=0.01,
                                                             momentum=0.9),
        "Adam": lambda lib, net: lib.optim.Adam(net.parameters(), lr=1e-3),
    }
    print("MLP 784-128-10, batch 64, float32: median ms per training step (optimizer step alone)")
    for name, make in optimizers.items():
        ours = _bench(symgrad, make, weights, x, y, repeats)
        line = f"  {name:18} symgrad {ours[0]:7.2f} ms ({ours[1]:5.2f} ms)"
        if torch is not None:
            theirs = _bench(torch, make, weights, x, y, repeats)
            line += (f"   torch {theirs[0]:7.2f} ms ({theirs[1]:5.2f} ms)   ratio "
                     f"{ours[0] / theirs[0]:4.1f}x   final losses {ours[2]:.5f} / {theirs[2]:.5f}")
        print(line)
    if torch is None:
        print("  (PyTorch not installed: its columns are skipped)")


if __name__ == "__main__":
    main()
