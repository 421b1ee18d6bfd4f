"""The models of ``bench_symbolic.py`` (issue 13), importable without sympy: a fresh process
imports this, builds a model and times its first ``symbolic.check`` -- sympy's import, the
templates' derivation and compilation included, as a user's first check pays them."""

from __future__ import annotations

import numpy as np

import symgrad as t
import symgrad.nn.functional as F


def mlp(i: int, h: int, o: int, batch: int, activation=None) -> t.Tensor:
    """cross_entropy of ``(x @ W1 + b1).tanh() @ W2`` (float64; W1, b1, W2 require grad)."""
    rng = np.random.default_rng(0)
    x = t.tensor(rng.standard_normal((batch, i)), dtype=t.float64)
    W1 = t.tensor(rng.standard_normal((i, h)) / np.sqrt(i), dtype=t.float64, requires_grad=True)
    b1 = t.tensor(rng.standard_normal(h) * 0.1, dtype=t.float64, requires_grad=True)
    W2 = t.tensor(rng.standard_normal((h, o)) / np.sqrt(h), dtype=t.float64, requires_grad=True)
    y = t.tensor(rng.integers(0, o, batch))
    hidden = x @ W1 + b1
    hidden = hidden.tanh() if activation is None else activation(hidden)
    return F.cross_entropy(hidden @ W2, y)


class OffByOne(t.autograd.Function):
    """tanh whose backward is wrong on one element (the mutation the check must catch)."""

    @staticmethod
    def forward(ctx, x):
        y = x.tanh()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        wrong = t.zeros(y.shape, dtype=y.dtype)
        wrong[3, 5] = 1e-3
        return g * (1 - y * y) + wrong


def cnn() -> t.Tensor:
    """conv2d 1->4 3x3, relu, max_pool2d 2, linear, cross_entropy; batch 8, 12x12, float64."""
    rng = np.random.default_rng(0)
    x = t.tensor(rng.standard_normal((8, 1, 12, 12)), dtype=t.float64)
    K = t.tensor(rng.standard_normal((4, 1, 3, 3)) / 3, dtype=t.float64, requires_grad=True)
    kb = t.tensor(rng.standard_normal(4) * 0.1, dtype=t.float64, requires_grad=True)
    W = t.tensor(rng.standard_normal((10, 100)) / 10, dtype=t.float64, requires_grad=True)
    b = t.tensor(np.zeros(10), dtype=t.float64, requires_grad=True)
    y = t.tensor(rng.integers(0, 10, 8))
    h = F.max_pool2d(F.conv2d(x, K, kb).relu(), 2)
    return F.cross_entropy(h.reshape(8, -1) @ W.t() + b, y)


def mutated() -> None:
    """The 784-128-10 model with :class:`OffByOne`: ``check(sample=32)`` must name it."""
    from symgrad import symbolic

    try:
        symbolic.check(mlp(784, 128, 10, 64, OffByOne.apply), sample=32)
    except symbolic.GradientMismatch as error:
        assert "OffByOneBackward" in str(error), error
        return
    raise AssertionError("the wrong backward was not caught")


# name -> (code run by the case, target seconds or None)
CASES = {
    "MLP 128-32-10 b16, full check": ("symbolic.check(mlp(128, 32, 10, 16))", 2.0),
    "MLP 128-32-10 b16, sample=20": ("symbolic.check(mlp(128, 32, 10, 16), sample=20)", None),
    "MLP 784-128-10 b64, sample=32": ("symbolic.check(mlp(784, 128, 10, 64), sample=32)", 10.0),
    "same, tanh Function wrong on 1 element": ("mutated()", 10.0),
    "CNN conv-relu-pool-linear b8 12x12, sample=16": ("symbolic.check(cnn(), sample=16)",
                                                      10.0),
}
