"""The PyTorch names added for parity (special functions, aliases, products, shape helpers,
metadata): values, gradients and errors as torch 2.13 gives them (numbers recorded from torch;
no torch needed here). Gradients of the registered ops are also checked by the registry tests
against finite differences and sympy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad as t

NAN = math.nan


def _f64(values):
    return t.tensor(values, dtype=t.float64)


def _close(actual, expected, rtol=1e-12):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float),
                               rtol=rtol, atol=1e-300, equal_nan=True)


F = [-1.5, 0.0, 0.25, 2.0]
VALUES = [  # (call, torch 2.13's values)
    (lambda: t.erfc(_f64(F)), [1.9661051464753108, 1.0, 0.7236736098317631, 0.004677734981047266]),
    (lambda: t.sinc(_f64(F)), [-0.2122065907891938, 1.0, 0.9003163161571061,
                               -3.8981718325193755e-17]),
    (lambda: t.sgn(_f64(F)), [-1.0, 0.0, 1.0, 1.0]),
    (lambda: t.deg2rad(_f64(F)), [-0.026179938779914945, 0.0, 0.004363323129985824,
                                  0.03490658503988659]),
    (lambda: t.rad2deg(_f64(F)), [-85.94366926962348, 0.0, 14.32394487827058,
                                  114.59155902616465]),
    (lambda: t.logit(_f64([0.1, 0.5, 0.9])), [-2.197224577336219, 0.0, 2.1972245773362196]),
    (lambda: t.logit(_f64([0.1, 0.5, 0.9]), eps=0.2), [-1.3862943611198906, 0.0,
                                                       1.3862943611198908]),
    (lambda: t.xlogy(_f64([0.0, 0, 2, 3]), _f64([NAN, 0, 0, 4])), [NAN, 0.0, -math.inf,
                                                                  4.1588830833596715]),
    (lambda: t.hypot(_f64([3.0, 1e200]), _f64([4.0, 1e200])), [5.0, 1.414213562373095e+200]),
]


@pytest.mark.parametrize(("call", "expected"), VALUES)
def test_values_match_pytorch(call, expected):
    _close(call(), expected)


GRADIENTS = [  # (function, inputs, torch 2.13's gradients of the sum)
    (lambda x: t.logit(x, eps=0.2), [[0.2, 0.5, 0.85]], [[6.249999999999999, 4.0, 0.0]]),
    (t.sinc, [[0.0, 1.5]], [[0.0, 0.14147106052612907]]),
    (t.xlogy, [[0.0, 1.5], [2.0, 0.5]], [[0.6931471805599453, -0.6931471805599453], [0.0, 3.0]]),
    (t.xlogy, [[0.0, 0.0], [0.0, -1.0]], [[0.0, 0.0], [NAN, -0.0]]),
]


@pytest.mark.parametrize(("fn", "inputs", "expected"), GRADIENTS)
def test_gradients_match_pytorch_at_special_points(fn, inputs, expected):
    leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in inputs]
    fn(*leaves).sum().backward()
    for leaf, grad in zip(leaves, expected, strict=True):
        _close(leaf.grad, grad)


DTYPES = [  # (call, torch 2.13's values, dtype)
    (lambda: t.sgn(t.tensor([True, False])), [True, False], t.bool),
    (lambda: t.sgn(t.tensor([-3, 4])), [-1, 1], t.int64),
    (lambda: t.erfc(t.tensor([1, 2])), [0.15729920566082, 0.004677734803408384], t.float32),
    (lambda: t.float_power(t.tensor([1, 2]), 2), [1.0, 4.0], t.float64),
    (lambda: t.signbit(t.tensor([-0.0, 0.0, -2.0])), [True, False, True], t.bool),
    (lambda: t.heaviside(t.tensor([-1.0, 0.0, 2.0]), t.tensor(0.5)), [0.0, 0.5, 1.0], t.float32),
    (lambda: t.xlogy(2.0, t.tensor([1.0, 4.0])), [0.0, 2.7725887298583984], t.float32),
]


@pytest.mark.parametrize(("call", "values", "dtype"), DTYPES)
def test_dtypes_match_pytorch(call, values, dtype):
    out = call()
    assert out.dtype is dtype
    _close(out.tolist(), values)


ERRORS = [  # (call, exception type, first line of torch 2.13's message)
    (lambda: t.hypot(t.tensor([1.0]), 2.0), TypeError,
     "hypot(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda: t.hypot(t.tensor([1]), t.tensor([1])), NotImplementedError,
     "\"hypot_cpu\" not implemented for 'Long'"),
    (lambda: t.heaviside(t.tensor([1.0]), t.tensor(1)), RuntimeError,
     "heaviside is not yet implemented for tensors with different dtypes."),
    (lambda: t.tensor([1.0]).float_power_(2), RuntimeError,
     "the base given to float_power_ has dtype Float but the operation's result requires dtype "
     "Double"),
]


@pytest.mark.parametrize(("call", "kind", "message"), ERRORS)
def test_errors_match_pytorch(call, kind, message):
    with pytest.raises(kind) as caught:
        call()
    assert type(caught.value) is kind
    assert str(caught.value).splitlines()[0] == message
