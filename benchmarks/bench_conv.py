"""A LeNet-style training step, symgrad against PyTorch (when installed).

Run from the repository root::

    python benchmarks/bench_conv.py              # median of 20 steps after 3 warm-up steps
    python benchmarks/bench_conv.py --repeats 50 --profile

One step: forward of a batch of 64 float32 28x28 images through conv(1->6, 5x5, padding 2) ->
relu -> max_pool 2 -> conv(6->16, 5x5) -> relu -> max_pool 2 -> flatten -> linear 400->120 ->
relu -> linear 120->84 -> relu -> linear 84->10 -> cross_entropy, backward, and a plain SGD
update of the ten parameter tensors (in place, under ``no_grad``), the grads reset to None.
Both libraries start from the same weights; the script first checks that the first step's
loss and gradients agree (float32 tolerance) and stops if they don't. It prints ms per step
for each and the ratio symgrad / torch (goal: within 2x). It changes no thread settings.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a source checkout

import symgrad as t  # noqa: E402
import symgrad.nn.functional as F  # noqa: E402

try:
    import torch
    import torch.nn.functional as TF
except (ImportError, OSError):  # torch is optional
    torch = None

SHAPES = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,),
          (10, 84), (10,)]
LR = 0.01


def _init(rng: np.random.Generator) -> list[np.ndarray]:
    params = []
    for shape in SHAPES:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 16
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, size=shape).astype(np.float32))
    return params


def _forward(lib, f, params, x, y):
    c1, b1, c2, b2, w3, b3, w4, b4, w5, b5 = params
    h = f.max_pool2d(f.relu(f.conv2d(x, c1, b1, padding=2)), 2)
    h = f.max_pool2d(f.relu(f.conv2d(h, c2, b2)), 2)
    h = h.reshape(h.shape[0], -1)
    h = f.relu(h @ w3.T + b3)
    h = f.relu(h @ w4.T + b4)
    return f.cross_entropy(h @ w5.T + b5, y)


def _step(lib, f, params, x, y):
    loss = _forward(lib, f, params, x, y)
    loss.backward()
    with lib.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None
    return loss


def _setup(lib, values, x, y):
    params = [lib.tensor(v, requires_grad=True) for v in values]
    return params, lib.tensor(x), lib.tensor(y)


def _time(step, repeats: int, warmup: int) -> float:
    for _ in range(warmup):
        step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _check(values, x, y) -> None:
    """The first step's loss and gradients agree between symgrad and torch."""
    ours, ox, oy = _setup(t, values, x, y)
    theirs, tx, ty = _setup(torch, values, x, y)
    a = _forward(t, F, ours, ox, oy)
    b = _forward(torch, TF, theirs, tx, ty)
    a.backward()
    b.backward()
    assert abs(float(a) - float(b)) < 1e-5, (float(a), float(b))
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--profile", action="store_true", help="cProfile symgrad's steps")
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    values = _init(rng)
    x = rng.standard_normal((args.batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, size=args.batch)
    use_torch = torch is not None and not args.no_torch
    print(f"numpy {np.__version__}" + (f", torch {torch.__version__} "
                                       f"({torch.get_num_threads()} threads)" if use_torch
                                       else ", torch not timed"))
    if use_torch:
        _check(values, x, y)
        print("first step: symgrad's loss and gradients match torch's")
    params, sx, sy = _setup(t, values, x, y)
    ours = _time(lambda: _step(t, F, params, sx, sy), args.repeats, args.warmup)
    print(f"LeNet step, batch {args.batch}: symgrad {ours:8.2f} ms")
    if use_torch:
        time.sleep(0.5)
        params_t, tx, ty = _setup(torch, values, x, y)
        theirs = _time(lambda: _step(torch, TF, params_t, tx, ty), args.repeats, args.warmup)
        print(f"LeNet step, batch {args.batch}: torch   {theirs:8.2f} ms")
        print(f"ratio symgrad / torch: {ours / theirs:.2f}x (goal: within 2x)")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.repeats):
            _step(t, F, params, sx, sy)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())


if __name__ == "__main__":
    main()
