"""Machine instructions per MLP step, counted by valgrind's callgrind: the Python layer's cost
as a figure that does not drift with the machine's load (timings on a shared machine do, by
20% over minutes).

Run from the repository root (needs valgrind; about 2 minutes)::

    python benchmarks/bench_mlp_instructions.py
    python benchmarks/bench_mlp_instructions.py --steps 50    # quicker
    python benchmarks/bench_mlp_instructions.py --chain       # the tiny-op chain instead

``--chain`` counts the paired benchmark's W1 step instead, per op: a chain of 200 ops (mul, add,
tanh, exp) on float32[3] and its backward, against torch's same step when torch is installed.

The step is bench_mlp_phases.py's tiny one (8x12 -> 6 -> 3, float32: ``H = (X @ W1 +
b1).tanh(); D = H @ W2 + b2 - T; loss = (D * D).sum() / N; loss.backward()``), where the array
work is negligible, against the same step in numpy with its gradients written by hand. Only the
steps are counted (callgrind collects inside a marker call around them, after a warm-up), once
for symgrad's forward alone and once for its whole step, so the backward is the difference.
"""

from __future__ import annotations

import argparse
import itertools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("symgrad-forward", "symgrad-step", "numpy-step")
CHAIN_KINDS = ("chain-forward", "chain-step", "chain-torch-forward", "chain-torch-step")
CHAIN_OPS = 200


def make_chain_step(kind: str):  # noqa: ANN201 - a benchmark helper
    """The W1 chain's step to count (symgrad's, or torch's for the kinds naming it)."""
    if "torch" in kind:
        import torch as t
    else:
        sys.path.insert(0, str(ROOT))  # run from a source checkout
        import symgrad as t
    rng = np.random.RandomState(1234)
    x = t.tensor(rng.uniform(-0.5, 0.5, 3).astype(np.float32), requires_grad=True)
    w = t.tensor(rng.uniform(0.3, 0.7, 3).astype(np.float32), requires_grad=True)
    backward = kind.endswith("step")

    def chain_step() -> None:
        x.grad = w.grad = None
        h = x
        for i in range(CHAIN_OPS):
            k = i & 3
            h = h * w if k == 0 else h + x if k == 1 else h.tanh() if k == 2 else h.exp()
        loss = h.sum()
        if backward:
            loss.backward()
    return chain_step


def make_step(kind: str):  # noqa: ANN201 - a benchmark helper
    """The step to count, on the tiny MLP's inputs."""
    if kind in CHAIN_KINDS:
        return make_chain_step(kind)
    rng = np.random.default_rng(0)
    f32 = np.float32
    X, T = rng.standard_normal((8, 12)).astype(f32), rng.standard_normal((8, 3)).astype(f32)
    W1, W2 = rng.standard_normal((12, 6)).astype(f32), rng.standard_normal((6, 3)).astype(f32)
    b1, b2 = np.zeros(6, f32), np.zeros(3, f32)
    N = T.size
    if kind == "numpy-step":
        def numpy_step() -> None:
            H = np.tanh(X @ W1 + b1)
            D = H @ W2 + b2 - T
            _ = (D * D).sum() / N
            gY = D * np.float32(2.0 / N)
            gZ = (gY @ W2.T) * (1 - H * H)
            _ = (X.T @ gZ, gZ.sum(0), H.T @ gY, gY.sum(0))
        return numpy_step
    sys.path.insert(0, str(ROOT))  # run from a source checkout
    import symgrad as t

    Xt, Tt = t.tensor(X), t.tensor(T)
    params = [t.tensor(a, requires_grad=True) for a in (W1, b1, W2, b2)]
    p1, q1, p2, q2 = params
    backward = kind == "symgrad-step"

    def symgrad_step() -> None:
        for p in params:
            p.grad = None
        H = (Xt @ p1 + q1).tanh()
        D = H @ p2 + q2 - Tt
        loss = (D * D).sum() / N
        if backward:
            loss.backward()
    return symgrad_step


def child(kind: str, steps: int) -> None:
    """Run ``steps`` steps inside itertools.pairwise (callgrind's marker), after a warm-up."""
    step = make_step(kind)
    for _ in range(50):
        step()
    for _ in itertools.pairwise(step() for _ in range(steps + 1)):  # (steps + 1 calls inside)
        pass


def count(kind: str, steps: int) -> float:
    """Instructions per step of ``kind``, run under callgrind."""
    command = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               "--toggle-collect=*pairwise_next", "--callgrind-out-file=/dev/null",
               sys.executable, __file__, "--child", kind, "--steps", str(steps)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no count in callgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1)) / (steps + 1)


def count_chain(steps: int) -> None:
    """Print the W1 chain's instructions per op, symgrad's and (if installed) torch's."""
    try:
        import torch  # noqa: F401 - only whether it is there
        kinds = CHAIN_KINDS
    except ImportError:
        kinds = CHAIN_KINDS[:2]
    counts = {kind: count(kind, steps) / CHAIN_OPS for kind in kinds}
    print(f"tiny-op chain ({CHAIN_OPS} ops on float32[3]), instructions per op ({steps} steps):")
    for who, forward, step in (("symgrad", "chain-forward", "chain-step"),
                               ("torch", "chain-torch-forward", "chain-torch-step")):
        if step in counts:
            print(f"    {who:8} forward {counts[forward] / 1e3:6.2f} k   backward "
                  f"{(counts[step] - counts[forward]) / 1e3:6.2f} k   step "
                  f"{counts[step] / 1e3:6.2f} k")
    if "chain-torch-step" in counts:
        ratio = counts["chain-step"] / counts["chain-torch-step"]
        print(f"    ratio (symgrad / torch) {ratio:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--chain", action="store_true", help="count the W1 chain, per op")
    parser.add_argument("--child", choices=KINDS + CHAIN_KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.steps)
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count")
        return
    if args.chain:
        count_chain(args.steps)
        return
    counts = {kind: count(kind, args.steps) for kind in KINDS}
    forward, step, reference = (counts[k] for k in KINDS)
    print(f"tiny MLP step (8x12 -> 6 -> 3), instructions per step ({args.steps} steps):")
    print(f"    symgrad forward   {forward / 1e3:8.1f} k")
    print(f"    symgrad backward  {(step - forward) / 1e3:8.1f} k")
    print(f"    symgrad step      {step / 1e3:8.1f} k")
    print(f"    numpy step        {reference / 1e3:8.1f} k   (gradients by hand)")
    print(f"    ratio             {step / reference:8.2f}")


if __name__ == "__main__":
    main()
