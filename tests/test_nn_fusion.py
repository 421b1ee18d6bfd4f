"""``nn.utils.fusion`` (batch norms folded into the convolution or linear layer before them)
against PyTorch 2.13: each case's tensors (values, node names, dtypes), Parameter flags and
reprs, or its error's type and first sentence, recorded by ``python
tools/record_torch_cases.py tests/test_nn_fusion.py`` into ``tests/data/torch_nn_fusion.json``;
this module never imports torch. Every weight and running statistic is set to fixed values."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from torch_cases import assert_same, outcome

import symgrad as t

DATA = pathlib.Path(__file__).parent / "data" / "torch_nn_fusion.json"


def fixed(L, shape, shift=0.0, dtype=None):
    n = int(np.prod(shape))
    return L.tensor((np.sin(np.arange(1, n + 1) * 0.7 + shift) * 1.3).reshape(shape),
                    dtype=dtype or L.float32)


def _set(L, module, shift=0.0):
    with L.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(fixed(L, tuple(p.shape), shift + i))
    return module


def _bn(L, cls, n, affine=True):
    bn = _set(L, getattr(L.nn, cls)(n, affine=affine), 3.0)
    with L.no_grad():
        bn.running_mean.copy_(fixed(L, (n,), 5.0))
        bn.running_var.copy_(fixed(L, (n,), 6.0).abs() + 0.2)
    return bn.eval()


def _fused(L, layer, bn, x, fuse, **kw):
    fused = fuse(layer.eval(), bn, **kw)
    out = fused(x)
    return {"out": out, "reference": bn(layer(x)), "weight": fused.weight, "bias": fused.bias,
            "types": [type(fused.weight).__name__, type(fused.bias).__name__],
            "requires_grad": [fused.weight.requires_grad, fused.bias.requires_grad],
            "repr": repr(fused), "same": fused is layer}


def _conv(L, bias=True, affine=True):
    return _fused(L, _set(L, L.nn.Conv2d(2, 3, 2, bias=bias)), _bn(L, "BatchNorm2d", 3, affine),
                  fixed(L, (1, 2, 3, 3), 1.0), L.nn.utils.fuse_conv_bn_eval)


def _weights(L, conv_b, bn_w, bn_b, transpose=False):
    w = fixed(L, (3, 2, 2) if not transpose else (2, 3, 2)).requires_grad_()
    return list(L.nn.utils.fuse_conv_bn_weights(
        w, conv_b, fixed(L, (3,), 5.0), fixed(L, (3,), 6.0).abs() + 0.2, 1e-3, bn_w, bn_b,
        transpose)) + [w.grad_fn]


CASES = {
    "conv": lambda L: _conv(L),
    "conv without bias": lambda L: _conv(L, bias=False),
    "conv, bn without affine": lambda L: _conv(L, affine=False),
    "transposed conv": lambda L: _fused(
        L, _set(L, L.nn.ConvTranspose1d(2, 3, 2)), _bn(L, "BatchNorm1d", 3),
        fixed(L, (1, 2, 4), 1.0), L.nn.utils.fuse_conv_bn_eval, transpose=True),
    "linear": lambda L: _fused(L, _set(L, L.nn.Linear(2, 3)), _bn(L, "BatchNorm1d", 3),
                               fixed(L, (4, 2), 1.0), L.nn.utils.fuse_linear_bn_eval),
    "linear without bias": lambda L: _fused(
        L, _set(L, L.nn.Linear(2, 3, bias=False)), _bn(L, "BatchNorm1d", 3),
        fixed(L, (4, 2), 1.0), L.nn.utils.fuse_linear_bn_eval),
    "linear, one bn feature": lambda L: _fused(
        L, _set(L, L.nn.Linear(2, 3)), _bn(L, "BatchNorm1d", 1), fixed(L, (4, 1, 2), 1.0),
        L.nn.utils.fuse_linear_bn_eval),
    "linear float64": lambda L: _fused(
        L, _set(L, L.nn.Linear(2, 3)).double(), _bn(L, "BatchNorm1d", 3).double(),
        fixed(L, (4, 2), 1.0, L.float64), L.nn.utils.fuse_linear_bn_eval),
    "conv in training mode": lambda L: L.nn.utils.fuse_conv_bn_eval(
        L.nn.Conv2d(2, 3, 2), L.nn.BatchNorm2d(3).eval()),
    "bn in training mode": lambda L: L.nn.utils.fuse_linear_bn_eval(
        L.nn.Linear(2, 3).eval(), L.nn.BatchNorm1d(3)),
    "linear, bn of other features": lambda L: L.nn.utils.fuse_linear_bn_eval(
        L.nn.Linear(2, 3).eval(), L.nn.BatchNorm1d(2).eval()),
    "bn without running stats": lambda L: L.nn.utils.fuse_conv_bn_eval(
        L.nn.Conv2d(2, 3, 2).eval(), L.nn.BatchNorm2d(3, track_running_stats=False).eval()),
    "weights": lambda L: _weights(L, fixed(L, (3,), 2.0), fixed(L, (3,), 3.0),
                                  fixed(L, (3,), 4.0)),
    "weights, nothing optional": lambda L: _weights(L, None, None, None),
    "weights transposed": lambda L: _weights(L, None, None, None, transpose=True),
    "linear weights": lambda L: list(L.nn.utils.fuse_linear_bn_weights(
        fixed(L, (3, 2)).requires_grad_(), None, fixed(L, (3,), 5.0),
        fixed(L, (3,), 6.0).abs(), 1e-5, fixed(L, (3,), 1.0), fixed(L, (3,), 2.0))),
}


def record_all(L) -> dict:
    return {name: outcome(L, case) for name, case in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_same(outcome(t, CASES[name]), RECORDED[name], rtol=2e-6, atol=1e-6)


def test_the_fused_layer_computes_the_pair():
    got = outcome(t, CASES["conv"])
    np.testing.assert_allclose(got["out"][1], got["reference"][1], rtol=1e-5, atol=1e-6)
