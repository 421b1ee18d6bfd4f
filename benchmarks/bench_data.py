"""One epoch of ``symgrad.utils.data.DataLoader`` over a ``TensorDataset`` against the same
epoch in PyTorch (when installed): the cost of fetching samples one by one and collating
them with ``default_collate``.

Run from the repository root::

    python benchmarks/bench_data.py            # about 10 s on 2 cores
    python benchmarks/bench_data.py --quick

The data are shaped like scikit-learn's digits (1,797 images 1x8x8 and their labels), loaded
in shuffled batches of 50; it reports the median time of one epoch for each library and their
ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import symgrad
from symgrad.utils.data import DataLoader, TensorDataset

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None


def _epoch_time(loader, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        count = sum(len(x) for x, _ in loader)
        times.append(time.perf_counter() - start)
    assert count == 1797
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    repeats = 3 if parser.parse_args().quick else 11
    rng = np.random.default_rng(0)
    images = rng.random((1797, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 10, 1797)
    ours = DataLoader(TensorDataset(symgrad.tensor(images), symgrad.tensor(labels)),
                      batch_size=50, shuffle=True, generator=np.random.default_rng(0))
    mine = _epoch_time(ours, repeats)
    print(f"symgrad DataLoader epoch: {mine * 1e3:8.2f} ms")
    if torch is not None:
        theirs_loader = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.tensor(images), torch.tensor(labels)),
            batch_size=50, shuffle=True)
        theirs = _epoch_time(theirs_loader, repeats)
        print(f"torch   DataLoader epoch: {theirs * 1e3:8.2f} ms")
        print(f"ratio symgrad/torch:      {mine / theirs:8.2f}x")


if __name__ == "__main__":
    main()
