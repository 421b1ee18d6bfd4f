"""Sequence models: one training step (forward, loss, backward) of an LSTM, a GRU, a
transformer encoder layer and a CTC loss, against the same step in PyTorch (when installed).

Run from the repository root::

    python benchmarks/bench_sequence.py            # about a minute on 2 cores
    python benchmarks/bench_sequence.py --quick

Each case is timed alternately in both libraries (paired: the ratio is the median of the
per-pair ratios, so a busy machine affects both sides alike); torch runs on one thread. The
recurrent layers record every time step's ops (PyTorch runs one fused kernel per layer), so
their ratio grows with the sequence length; the encoder layer's step is a few large matmuls.
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

T, N, FEATURES, HIDDEN, CLASSES = 20, 16, 32, 64, 10


def _cases(lib):
    """name -> (module factory, step(module, inputs))."""

    def recurrent(kind):
        def make():
            return getattr(lib.nn, kind)(FEATURES, HIDDEN)

        def step(model, x):
            out, _ = model(x)
            out.sum().backward()
        return make, step

    def encoder():
        def make():
            return lib.nn.TransformerEncoderLayer(FEATURES, 4, HIDDEN, dropout=0.0,
                                                  batch_first=True)

        def step(model, x):
            model(x.transpose(0, 1)).sum().backward()
        return make, step

    def ctc():
        targets = lib.tensor(np.random.default_rng(1).integers(1, CLASSES, (N, 8)))
        lengths = lib.tensor([T] * N)
        target_lengths = lib.tensor([8] * N)

        def make():
            return lib.nn.Linear(FEATURES, CLASSES)

        def step(model, x):
            log_probs = model(x).log_softmax(2)
            lib.nn.functional.ctc_loss(log_probs, targets, lengths, target_lengths).backward()
        return make, step

    return {"LSTM": recurrent("LSTM"), "GRU": recurrent("GRU"),
            "TransformerEncoderLayer": encoder(), "CTC loss (+ Linear)": ctc()}


def _time(lib, make, step, x, repeats):
    lib.manual_seed(0)
    model = make()
    xs = lib.tensor(x)
    step(model, xs)  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step(model, xs)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats, pairs = (3, 3) if args.quick else (5, 7)
    x = np.random.default_rng(0).standard_normal((T, N, FEATURES)).astype(np.float32)
    ours = _cases(symgrad)
    theirs = _cases(torch) if torch is not None else {}
    if torch is not None:
        torch.set_num_threads(1)  # as symgrad: on a shared machine, threads only contend
    threads = ", torch on 1 thread" if torch is not None else ""
    print(f"time steps {T}, batch {N}, features {FEATURES}, hidden {HIDDEN} (float32)"
          f"{threads}")
    for name, (make, step) in ours.items():
        ratios, mine, other = [], [], []
        for _ in range(pairs):
            mine.append(_time(symgrad, make, step, x, repeats))
            if name in theirs:
                other.append(_time(torch, *theirs[name], x, repeats))
                ratios.append(mine[-1] / other[-1])
        line = f"{name:26s} symgrad {statistics.median(mine) * 1e3:8.2f} ms"
        if ratios:
            line += (f"   torch {statistics.median(other) * 1e3:8.2f} ms   symgrad/torch "
                     f"{statistics.median(ratios):6.2f}")
        print(line)


if __name__ == "__main__":
    main()
