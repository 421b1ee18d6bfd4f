"""Core performance benchmarks for symgrad against hand-written numpy and (optionally) PyTorch.

Run from the repository root::

    python benchmarks/bench_core.py            # full run (about 30 s on 2 cores)
    python benchmarks/bench_core.py --quick    # short run
    python benchmarks/bench_core.py --profile  # also cProfile the chain benchmark

Three benchmarks, each reporting the median of several timed repeats after warm-up:

(a) ``chain``: forward + backward of 200 elementwise ops on a 3-element float32 tensor, in
    microseconds per op (per-op overhead of the Python layer and the engine).
(b) ``mlp``: one forward + backward step of a 64x784 -> 256 -> 10 tanh MLP with MSE loss, in
    milliseconds per step (how close the graph machinery gets to plain numpy on real work).
(c) ``long``: forward and backward through chains of 10k, 30k and 100k ops on a 1-element
    tensor, in microseconds per op (the engine's growth with graph size should be linear).

PyTorch is optional: when it cannot be imported (or ``--no-torch`` is given) its columns are
skipped with a note. The script never changes environment variables or thread settings.
"""

from __future__ import annotations

import argparse
import cProfile
import ctypes
import datetime
import gc
import io
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a source checkout

import symgrad as t  # noqa: E402

try:
    import torch
except (ImportError, OSError):  # torch is optional (OSError: a broken install)
    torch = None

SEED = 0
CHAIN_OPS = 200  # (a): 40 repetitions of the 5-op body below
CHAIN_BODY = 5  # ops per body, in (a) and in (c)
GROUP_PAUSE = 0.5  # seconds between timing numpy/symgrad and timing torch

Step = Callable[[], Any]


# --------------------------------------------------------------------------- timing helpers
def time_steps(
    groups: list[dict[str, Step]], inner: int, repeats: int, warmup: int, gc_off: bool
) -> dict[str, list[float]]:
    """Seconds per call of every step, one sample per repeat (take the median of the list).

    Steps in one group are timed round-robin (so drift hits them alike): each first runs
    ``warmup`` times, then ``repeats`` times ``inner`` calls in a row under
    ``time.perf_counter``. Groups run one after the other with a pause in between: torch's
    OpenMP workers and numpy's OpenBLAS workers spin for a while after their last task, and on
    a 2-core machine a spinning pool of one library slows the other's threaded matmuls by up to
    several times, so the two libraries are not interleaved.
    """
    samples: dict[str, list[float]] = {}
    for index, steps in enumerate(groups):
        if index:
            time.sleep(GROUP_PAUSE)
        for step in steps.values():
            for _ in range(warmup):
                step()
        for name in steps:
            samples[name] = []
        for _ in range(repeats):
            for name, step in steps.items():
                gc.collect()
                if gc_off:
                    gc.disable()
                try:
                    start = time.perf_counter()
                    for _ in range(inner):
                        step()
                    elapsed = time.perf_counter() - start
                finally:
                    gc.enable()
                samples[name].append(elapsed / inner)
    return samples


def spread(values: list[float], scale: float) -> str:
    """``median (min-max)`` of ``values`` times ``scale``."""
    return (f"{statistics.median(values) * scale:8.3f}  "
            f"(min {min(values) * scale:.3f}, max {max(values) * scale:.3f})")


def ratio(a: float | None, b: float | None) -> str:
    """``a / b`` formatted, or ``n/a`` when either is missing."""
    if a is None or b is None:
        return "n/a"
    return f"{a / b:.2f}x"


def print_figures(res: dict[str, list[float]], scale: float, unit: str, target: str,
                  args: argparse.Namespace, use_torch: bool) -> None:
    """One line per library (median, min, max) and the ratios symgrad/numpy and symgrad/torch."""
    medians = {name: statistics.median(v) * scale for name, v in res.items()}
    for name, values in res.items():
        print(f"    {name:<8} {spread(values, scale)} {unit}")
    if not use_torch:
        print(f"    torch    skipped: {args.torch_note}")
    print(f"    ratio symgrad/numpy = {ratio(medians['symgrad'], medians['numpy'])}   "
          f"symgrad/torch = {ratio(medians['symgrad'], medians.get('torch'))}   "
          f"(target: {target})")
    # the fastest repeats show the intrinsic cost when the shared machine is noisy
    best = {name: min(v) * scale for name, v in res.items()}
    print(f"    best-of ratios: symgrad/numpy = {ratio(best['symgrad'], best['numpy'])}   "
          f"symgrad/torch = {ratio(best['symgrad'], best.get('torch'))}")


def check_close(name: str, got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    """Raise AssertionError (loudly) unless ``got`` matches ``want`` with float32 tolerances."""
    got, want = np.asarray(got), np.asarray(want)
    atol = 1e-5 * float(np.max(np.abs(want))) + 1e-30
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        diff = np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))
        raise AssertionError(
            f"GRADIENT MISMATCH in {name}: shapes {got.shape} vs {want.shape}, "
            f"max abs diff {diff:.3e} (rtol={rtol}, atol={atol:.3e}); refusing to time"
        )


# --------------------------------------------------------------------------- (a) op chain
def chain_body(x: Any) -> Any:
    """The 5 ops repeated in (a): mul, add, sin, exp, log (works on symgrad and torch)."""
    return (x * 2.0 + 0.1).sin().exp().log()


def chain_numpy(x0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hand-written forward + backward of (a) on numpy: returns (loss, d loss / d x0)."""
    saved = []  # the intermediates the derivative rules read: sin's input, exp's output
    x = x0
    for _ in range(CHAIN_OPS // CHAIN_BODY):
        b = x * 2.0 + 0.1
        e = np.exp(np.sin(b))
        x = np.log(e)
        saved.append((b, e))
    loss = x.sum()
    g = np.ones_like(x)  # d sum / d x
    for b, e in reversed(saved):
        g = g / e  # log: its input is e
        g = g * e  # exp: its output is e
        g = g * np.cos(b)  # sin
        g = g * 2.0  # mul (the add passes g through)
    return loss, g


def chain_step(x0: Any) -> Step:
    """One (a) step on a symgrad or torch leaf: reset grad, 200 ops, sum, backward."""

    def step() -> None:
        x0.grad = None
        x = x0
        for _ in range(CHAIN_OPS // CHAIN_BODY):
            x = chain_body(x)
        x.sum().backward()

    return step


def bench_chain(args: argparse.Namespace, use_torch: bool) -> None:
    """(a): microseconds per op, forward + backward, 200 elementwise ops on 3 elements."""
    rng = np.random.default_rng(SEED)
    x_np = rng.uniform(-1.0, 1.0, size=3).astype(np.float32)
    x_sg = t.tensor(x_np, requires_grad=True)

    chain_step(x_sg)()
    _, g_np = chain_numpy(x_np)
    assert g_np.dtype == np.float32, g_np.dtype
    check_close("(a) symgrad vs numpy", x_sg.grad.numpy(), g_np, rtol=1e-4)
    groups: list[dict[str, Step]] = [
        {"symgrad": chain_step(x_sg), "numpy": lambda: chain_numpy(x_np)}]
    if use_torch:
        x_th = torch.tensor(x_np, requires_grad=True)
        chain_step(x_th)()
        check_close("(a) torch vs numpy", x_th.grad.numpy(), g_np, rtol=1e-3)
        groups.append({"torch": chain_step(x_th)})

    res = time_steps(groups, args.chain_inner, args.repeats, args.warmup, args.gc_off)
    print(f"\n(a) chain: {CHAIN_OPS} elementwise ops (mul, add, sin, exp, log) on float32[3], "
          "then .sum().backward()")
    print(f"    gradients match the numpy baseline; median of {args.repeats} repeats x "
          f"{args.chain_inner} steps; per op = step time / {CHAIN_OPS} (the sum is included)")
    print_figures(res, 1e6 / CHAIN_OPS, "us/op", "symgrad/torch < 1", args, use_torch)


# --------------------------------------------------------------------------- (b) MLP step
def mlp_data() -> dict[str, np.ndarray]:
    """Inputs and parameters of (b), float32, from a fixed seed."""
    rng = np.random.default_rng(SEED)
    f32 = np.float32
    return {
        "x": rng.standard_normal((64, 784)).astype(f32),
        "y": rng.standard_normal((64, 10)).astype(f32),
        "W1": (rng.standard_normal((784, 256)) / np.sqrt(784)).astype(f32),
        "b1": (0.1 * rng.standard_normal(256)).astype(f32),
        "W2": (rng.standard_normal((256, 10)) / np.sqrt(256)).astype(f32),
        "b2": (0.1 * rng.standard_normal(10)).astype(f32),
    }


def mlp_numpy(d: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Hand-written forward + backward of (b): returns (loss, gradients of the parameters)."""
    x, y, w1, b1, w2, b2 = d["x"], d["y"], d["W1"], d["b1"], d["W2"], d["b2"]
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    diff = out - y
    loss = (diff * diff).mean()
    d_out = diff * (2.0 / diff.size)
    d_pre = (d_out @ w2.T) * (1.0 - h * h)
    grads = {
        "W1": x.T @ d_pre,
        "b1": d_pre.sum(axis=0),
        "W2": h.T @ d_out,
        "b2": d_out.sum(axis=0),
    }
    return loss, grads


def mlp_step(params: dict[str, Any], x: Any, y: Any) -> Step:
    """One (b) step for symgrad or torch tensors: reset grads, forward, MSE, backward."""
    w1, b1, w2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]

    def step() -> None:
        for p in (w1, b1, w2, b2):
            p.grad = None
        h = (x @ w1 + b1).tanh()
        out = h @ w2 + b2
        loss = ((out - y) ** 2).mean()
        loss.backward()

    return step


def bench_mlp(args: argparse.Namespace, use_torch: bool) -> None:
    """(b): milliseconds per forward + backward step of the MLP, with a gradient check first."""
    d = mlp_data()
    names = ("W1", "b1", "W2", "b2")
    loss_np, g_np = mlp_numpy(d)
    for name, g in g_np.items():
        assert g.dtype == np.float32, (name, g.dtype)

    sg = {n: t.tensor(d[n], requires_grad=True) for n in names}
    sg_step = mlp_step(sg, t.tensor(d["x"]), t.tensor(d["y"]))
    sg_step()
    for n in names:
        check_close(f"(b) symgrad d loss/d {n} vs numpy", sg[n].grad.numpy(), g_np[n], rtol=1e-4)
    groups: list[dict[str, Step]] = [{"symgrad": sg_step, "numpy": lambda: mlp_numpy(d)}]
    if use_torch:
        th = {n: torch.tensor(d[n], requires_grad=True) for n in names}
        th_step = mlp_step(th, torch.tensor(d["x"]), torch.tensor(d["y"]))
        th_step()
        for n in names:
            check_close(f"(b) torch d loss/d {n} vs numpy", th[n].grad.numpy(), g_np[n],
                        rtol=1e-3)
        groups.append({"torch": th_step})

    res = time_steps(groups, args.mlp_inner, args.repeats, args.warmup, args.gc_off)
    print("\n(b) MLP step: x[64,784] -> Linear(784,256) -> tanh -> Linear(256,10) -> MSE vs "
          "y[64,10], float32, forward + backward, grads reset with .grad = None")
    print(f"    gradients of W1, b1, W2, b2 match the numpy baseline (loss {float(loss_np):.6f})")
    print(f"    median of {args.repeats} repeats x {args.mlp_inner} steps")
    print_figures(res, 1e3, "ms/step", "symgrad/numpy <= 1.3", args, use_torch)


# --------------------------------------------------------------------------- (c) long chains
def long_body(x: t.Tensor) -> t.Tensor:
    """The 5 ops repeated in (c): mul, add, exp, log, sub; d out/d in = -1, so values and
    gradients stay O(1) however long the chain (no underflow to denormals or zero)."""
    return (x * -1.0 + 0.1).exp().log() - 0.1


def run_long(x0: t.Tensor, n: int, gc_off: bool) -> tuple[float, float, float, int]:
    """Build an ``n``-op chain and backward through it once.

    Returns (forward, backward, teardown) seconds and the number of full (generation 2) garbage
    collections that ran during the forward.
    """
    x0.grad = None
    gc.collect()
    if gc_off:
        gc.disable()
    try:
        full_gcs = gc.get_stats()[2]["collections"]
        start = time.perf_counter()
        x = x0
        for _ in range(n // CHAIN_BODY):
            x = long_body(x)
        loss = x.sum()
        built = time.perf_counter()
        full_gcs = gc.get_stats()[2]["collections"] - full_gcs
        loss.backward()
        done = time.perf_counter()
        del x, loss  # frees the whole graph
        freed = time.perf_counter()
    finally:
        gc.enable()
    return built - start, done - built, freed - done, full_gcs


def long_table(x0: t.Tensor, sizes: list[int], repeats: int, gc_off: bool) -> None:
    """Time every chain length ``repeats`` times; print medians per op and the growth."""
    rows = []
    for n in sizes:
        runs = [run_long(x0, n, gc_off) for _ in range(repeats)]
        fwd, bwd, free, full = (statistics.median(column) for column in zip(*runs, strict=True))
        rows.append((n, fwd, bwd, free, full))
    print(f"    GC {'disabled in the timed region' if gc_off else 'enabled (the default)'}:")
    print(f"    {'N':>8} {'forward':>9} {'backward':>9} {'fwd us/op':>10} {'bwd us/op':>10} "
          f"{'free us/op':>11} {'full GCs':>9}")
    for n, fwd, bwd, free, full in rows:
        print(f"    {n:>8} {fwd:8.3f}s {bwd:8.3f}s {fwd / n * 1e6:10.2f} {bwd / n * 1e6:10.2f} "
              f"{free / n * 1e6:11.2f} {full:9.0f}")
    (n0, f0, b0, *_), (n1, f1, b1, *_) = rows[0], rows[-1]
    print(f"    per-op time N={n1} / N={n0}: forward {ratio(f1 / n1, f0 / n0)}, "
          f"backward {ratio(b1 / n1, b0 / n0)}   (1.00x = linear growth)")


def bench_long(args: argparse.Namespace) -> None:
    """(c): forward and backward time per op for chains of growing length.

    Without ``--gc-off`` the table is printed twice, with the cyclic GC enabled (what users
    get) and disabled, which separates the engine's own growth from the collector's.
    """
    x0 = t.tensor(np.array([0.3], dtype=np.float32), requires_grad=True)
    sizes = args.long_sizes
    run_long(x0, sizes[0], args.gc_off)  # warm-up
    expected = (-1.0) ** (sizes[0] // CHAIN_BODY)
    if not np.allclose(x0.grad.numpy(), expected, rtol=1e-3):
        raise AssertionError(f"(c) gradient {x0.grad.numpy()} != {expected}")

    print(f"\n(c) long chains on float32[1] ({CHAIN_BODY}-op body: mul, add, exp, log, sub; then "
          f".sum().backward()), median of {args.long_repeats} repeats; 'free' = deleting the "
          "graph afterwards, 'full GCs' = generation-2 collections during the forward")
    for gc_off in (True,) if args.gc_off else (False, True):
        long_table(x0, sizes, args.long_repeats, gc_off)


# --------------------------------------------------------------------------- (d) memory
def recorded_bytes_per_op(n: int) -> float:
    """Bytes (tracemalloc) that recording an ``n``-op chain on float32[10] keeps alive, per op:
    the pattern of the paired benchmark's W4 (mul, add, tanh, exp), graph only."""
    rng = np.random.default_rng(SEED)
    x = t.tensor(rng.uniform(-0.5, 0.5, 10).astype(np.float32), requires_grad=True)
    w = t.tensor(rng.uniform(0.3, 0.7, 10).astype(np.float32), requires_grad=True)
    ops = (lambda h: h * w, lambda h: h + x, lambda h: h.tanh(), lambda h: h.exp())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        h = x
        for i in range(n):
            h = ops[i & 3](h)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del h
    return (after - before) / n


def tracked_objects_per_op(n: int) -> float:
    """Objects the cyclic GC tracks that recording an ``n``-op chain on float32[10] keeps
    alive, per op, after a collection (which untracks plain nodes, their edge and input tuples
    and tuples of untracked objects): what every later full collection walks."""
    rng = np.random.default_rng(SEED)
    x = t.tensor(rng.uniform(-0.5, 0.5, 10).astype(np.float32), requires_grad=True)
    w = t.tensor(rng.uniform(0.3, 0.7, 10).astype(np.float32), requires_grad=True)
    ops = (lambda h: h * w, lambda h: h + x, lambda h: h.tanh(), lambda h: h.exp())
    gc.collect()
    before = len(gc.get_objects())
    h = x
    for i in range(n):
        h = ops[i & 3](h)
    gc.collect()
    after = len(gc.get_objects())
    del h
    return (after - before) / n


def kept_bytes_per_step(steps: int) -> float:
    """RSS growth per step of a training loop that keeps every loss (a list of losses, as
    users keep them for plotting): what a backward without retain_graph leaves alive."""
    rng = np.random.default_rng(SEED)
    w1 = t.tensor(rng.standard_normal((32, 64)).astype(np.float32) * 0.2, requires_grad=True)
    w2 = t.tensor(rng.standard_normal((64, 8)).astype(np.float32) * 0.2, requires_grad=True)
    data = t.tensor(rng.standard_normal((16, 32)).astype(np.float32))
    target = t.tensor(rng.standard_normal((16, 8)).astype(np.float32))
    losses = []

    def step() -> None:
        w1.grad = w2.grad = None
        loss = (((data @ w1).tanh() @ w2 - target) ** 2).mean()
        loss.backward()
        losses.append(loss)

    for _ in range(100):  # warm-up: allocator pools, caches
        step()
    gc.collect()
    before = rss_bytes()
    for _ in range(steps):
        step()
    gc.collect()
    return (rss_bytes() - before) / steps


def rss_bytes() -> int:
    """This process's resident set size (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def bench_memory(args: argparse.Namespace) -> None:
    """(d): memory per recorded op, and per kept loss after backward."""
    n = 2_000 if args.quick else 20_000
    print(f"\n(d) memory: a recorded op on float32[10] (chain of {n}, graph only) keeps "
          f"{recorded_bytes_per_op(n):.0f} bytes (target <= 512); objects the GC tracks per "
          f"recorded op: {tracked_objects_per_op(n):.2f}")
    kept = kept_bytes_per_step(args.kept_steps)
    print(f"    a step (16x32 -> 64 -> 8 MLP) whose loss is kept after backward keeps "
          f"{kept / 1024:.2f} KiB (RSS over {args.kept_steps} steps; its saved values are "
          "freed, the graph stays)")


# --------------------------------------------------------------------------- profile, header
def profile_chain(steps: int) -> None:
    """cProfile ``steps`` symgrad steps of (a); print the top 10 functions by tottime."""
    x0 = t.tensor(np.random.default_rng(SEED).uniform(-1, 1, 3).astype(np.float32),
                  requires_grad=True)
    step = chain_step(x0)
    step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        step()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(10)
    text = out.getvalue()
    body = text[text.find("ncalls") - 3:] if "ncalls" in text else text
    print(f"\ncProfile of {steps} symgrad steps of (a) ({steps * CHAIN_OPS} ops), "
          "top 10 by tottime:")
    print(body.rstrip())


def blas_threads() -> str:
    """numpy's OpenBLAS thread count, when it can be read without changing anything."""
    try:
        from threadpoolctl import threadpool_info  # optional
        for info in threadpool_info():
            if info.get("user_api") == "blas":
                return str(info["num_threads"])
    except ImportError:
        pass
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "openblas" in line.lower()}
        for path in sorted(libs):
            lib = ctypes.CDLL(path)
            for sym in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                        "openblas_get_num_threads"):
                fn = getattr(lib, sym, None)
                if fn is not None:
                    return str(fn())
    except OSError:
        pass
    return "unknown"


def git_state() -> str:
    """The checkout's commit, and whether symgrad/ has uncommitted changes."""
    try:
        def git(*cmd: str) -> str:
            return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True,
                                  check=True, timeout=10).stdout.strip()

        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "symgrad")
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return f"git {commit}" + (", symgrad/ has uncommitted changes" if dirty else "")


def machine_busy(window: float = 0.5) -> float | None:
    """Fraction of all cores busy over ``window`` seconds while this process sleeps (Linux)."""
    def sample() -> tuple[int, int]:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
        return sum(fields), fields[3] + fields[4]  # total, idle + iowait

    try:
        total0, idle0 = sample()
        time.sleep(window)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return 1.0 - (idle1 - idle0) / max(total1 - total0, 1)


def print_header(args: argparse.Namespace, use_torch: bool) -> None:
    """Versions, threads and settings, so a result can be compared with another machine's."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas_name = f"{blas.get('name')} {blas.get('version')}"
    except (AttributeError, KeyError, TypeError):  # purely informational
        blas_name = "unknown"
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    env = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                          "MKL_NUM_THREADS", "OPENBLAS_CORETYPE")}
    print("symgrad core benchmarks", datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    print(f"  python {platform.python_version()} ({platform.machine()}, {platform.system()}), "
          f"cores available: {cores}")
    print(f"  symgrad {t.__version__} ({git_state()}) from {Path(t.__file__).parent}")
    print(f"  numpy {np.__version__} (BLAS {blas_name}, threads {blas_threads()})")
    if torch is None:
        print("  torch not installed")
    else:
        print(f"  torch {torch.__version__} (intra-op threads {torch.get_num_threads()}, "
              f"interop {torch.get_num_interop_threads()})" + ("" if use_torch else
                                                               " -- disabled by --no-torch"))
    set_vars = ", ".join(f"{k}={v}" for k, v in env.items() if v is not None)
    print(f"  env: {set_vars or 'no thread/BLAS variables set'}")
    busy = machine_busy()
    if busy is not None:
        warn = "  <- other processes are running: figures will be noisy" if busy > 0.15 else ""
        print(f"  CPU busy with other work at start: {busy:.0%} of all cores{warn}")
    print(f"  settings: repeats={args.repeats} warmup={args.warmup} "
          f"long_repeats={args.long_repeats} long_sizes={args.long_sizes} "
          f"gc={'off in timed regions' if args.gc_off else 'on'}"
          f"{' (quick)' if args.quick else ''}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; ``--quick`` shrinks repeats, loop counts and chain lengths."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="short run (a few seconds)")
    p.add_argument("--repeats", type=int, default=None,
                   help="timed repeats for (a) and (b) (default 9; 3 with --quick)")
    p.add_argument("--long-repeats", type=int, default=None,
                   help="timed repeats per N for (c) (default 1)")
    p.add_argument("--warmup", type=int, default=3, help="untimed warm-up steps per variant")
    p.add_argument("--only", nargs="+", choices=("chain", "mlp", "long", "memory"),
                   default=["chain", "mlp", "long", "memory"], help="run only these benchmarks")
    p.add_argument("--no-torch", action="store_true", help="skip torch even if installed")
    p.add_argument("--gc-off", action="store_true",
                   help="disable Python's cyclic GC inside timed regions (default: on)")
    p.add_argument("--profile", action="store_true",
                   help="also cProfile the symgrad chain benchmark (top 10 by tottime)")
    args = p.parse_args(argv)
    if args.repeats is None:
        args.repeats = 3 if args.quick else 9
    if args.long_repeats is None:
        args.long_repeats = 1
    if args.repeats < 1 or args.long_repeats < 1 or args.warmup < 0:
        p.error("repeats must be >= 1 and warmup >= 0")
    args.torch_note = "torch not installed" if torch is None else "--no-torch given"
    args.chain_inner = 20 if args.quick else 100
    args.mlp_inner = 10 if args.quick else 40
    args.long_sizes = [2_000, 6_000, 20_000] if args.quick else [10_000, 100_000, 1_000_000]
    args.kept_steps = 1_000 if args.quick else 10_000
    return args


def main(argv: list[str] | None = None) -> None:
    """Run the selected benchmarks and print their figures and ratios."""
    args = parse_args(argv)
    use_torch = torch is not None and not args.no_torch
    print_header(args, use_torch)
    np.random.seed(SEED)  # nothing here uses the global RNG, but keep any use deterministic
    t.manual_seed(SEED)
    start = time.perf_counter()
    if "chain" in args.only:
        bench_chain(args, use_torch)
    if "mlp" in args.only:
        bench_mlp(args, use_torch)
    if "long" in args.only:
        bench_long(args)
    if "memory" in args.only:
        bench_memory(args)
    if args.profile:
        profile_chain(20 if args.quick else 100)
    busy = machine_busy()
    if busy is not None and busy > 0.15:
        print(f"\nwarning: CPU {busy:.0%} busy with other work at the end; figures may be noisy")
    print(f"\ntotal wall time {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()
