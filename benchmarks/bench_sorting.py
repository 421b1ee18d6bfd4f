"""Sorting and order statistics on a 100 x 1000 float64 tensor: rows of distinct values (numpy
throughout) and rows with repeated values, where symgrad reproduces PyTorch's choice among
equal values in Python (sort without stable=True, topk, mode). Prints seconds per call, and
PyTorch's when it is installed.

    PYTHONPATH=. python benchmarks/bench_sorting.py
"""

from __future__ import annotations

import time

import numpy as np

import symgrad

try:
    import torch
except ImportError:  # optional
    torch = None

CASES = {
    "sort(1)": lambda x: x.sort(1),
    "sort(dim=1, stable=True)": lambda x: x.sort(dim=1, stable=True),
    "topk(10)": lambda x: x.topk(10),
    "kthvalue(500)": lambda x: x.kthvalue(500),
    "median(1)": lambda x: x.median(1),
    "mode(1)": lambda x: x.mode(1),
    "cummax(1)": lambda x: x.cummax(1),
}


def _seconds(fn, x, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(x)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    data = {"distinct": rng.standard_normal((100, 1000)),
            "repeated": rng.integers(0, 50, (100, 1000)).astype(np.float64)}
    for kind, values in data.items():
        print(f"-- rows of {kind} values")
        for name, fn in CASES.items():
            ours = _seconds(fn, symgrad.tensor(values))
            line = f"{name:24s} symgrad {ours:8.4f} s"
            if torch is not None:
                line += f"   torch {_seconds(fn, torch.tensor(values)):8.4f} s"
            print(line)


if __name__ == "__main__":
    main()
