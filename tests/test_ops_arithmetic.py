"""Integer-aware arithmetic against values confirmed with PyTorch 2.13: //, %, fmod,
div(rounding_mode=), copysign, bitwise operators and shifts, logical functions and predicates,
lerp, logaddexp, nan_to_num, the inverse hyperbolic functions (gradients: test_registry.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad as t

A = [7, -7, 5, -5]
B = [2, 2, -3, -3]


def _eq(x, values, dtype):
    assert x.dtype is dtype
    assert x.tolist() == values


def test_floor_division_and_remainder_on_integers():
    a, b = t.tensor(A), t.tensor(B)
    _eq(a // b, [3, -4, -2, 1], t.int64)
    _eq(a % b, [1, 1, -1, -2], t.int64)
    _eq(t.fmod(a, b), [1, -1, 2, -2], t.int64)
    _eq(t.div(a, b, rounding_mode="trunc"), [3, -3, -1, 1], t.int64)
    _eq(t.div(a, b, rounding_mode="floor"), [3, -4, -2, 1], t.int64)
    _eq(t.floor_divide(a, 2), [3, -4, 2, -3], t.int64)
    _eq(t.remainder(5, a), [5, -2, 0, 0], t.int64)
    _eq(7 // a, [1, -1, 1, -2], t.int64)


def test_floor_division_and_remainder_on_floats():
    a, b = t.tensor(A).float(), t.tensor(B).float()
    _eq(a // b, [3.0, -4.0, -2.0, 1.0], t.float32)
    _eq(a % b, [1.0, 1.0, -1.0, -2.0], t.float32)
    _eq(t.tensor(A) // 2.5, [2.0, -3.0, 2.0, -2.0], t.float32)
    _eq(7.5 % t.tensor(A), [0.5, -6.5, 2.5, -2.5], t.float32)
    _eq(t.fmod(a, -3), [1.0, -1.0, 2.0, -2.0], t.float32)
    assert (a // 0).tolist() == [math.inf, -math.inf, math.inf, -math.inf]
    assert all(math.isnan(v) for v in (a % 0).tolist())
    assert t.div(a, b).tolist() == pytest.approx([3.5, -3.5, -5 / 3, 5 / 3])


def test_integer_division_by_zero_and_bool_raise_as_pytorch():
    a = t.tensor(A)
    for fn in (lambda: a // 0, lambda: a % 0, lambda: t.fmod(t.tensor([5]), 0),
               lambda: t.tensor([5]) // t.tensor([0])):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            fn()
    m = t.tensor([True, False])
    with pytest.raises(NotImplementedError, match="\"div_floor_cpu\" not implemented for 'Bool'"):
        m // m
    with pytest.raises(NotImplementedError, match="\"remainder_cpu\" not implemented for 'Bool'"):
        m % m
    with pytest.raises(RuntimeError, match="^div expected rounding_mode to be one of None, "
                                           "'trunc', or 'floor' but found 'x'"):
        t.div(a, 2, rounding_mode="x")
    with pytest.raises(TypeError, match="unsupported operand type"):
        a // "a"
    with pytest.raises(TypeError, match=r"^floor_divide\(\) received an invalid combination"):
        t.floor_divide(a, "a")


def test_inplace_floor_division_and_remainder():
    x = t.tensor([1, 2])
    x //= 2
    assert x.tolist() == [0, 1]
    x %= 2
    assert x.tolist() == [0, 1]
    z = t.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        z //= 1.5
    assert z.tolist() == [1, 2]


def test_gradients_and_node_names():
    x = t.tensor([5.0, -2.0, 3.0], requires_grad=True)
    o = t.tensor([2.0, 3.0, -2.0], requires_grad=True)
    y = t.remainder(x, o)
    assert y.tolist() == [1.0, 1.0, -1.0] and y.grad_fn.name() == "RemainderBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0] and o.grad.tolist() == [-2.0, 1.0, 2.0]
    x.grad = o.grad = None
    y = t.fmod(x, o)
    assert y.tolist() == [1.0, -2.0, 1.0] and y.grad_fn.name() == "FmodBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0] and o.grad.tolist() == [-2.0, 0.0, 1.0]
    assert (x % 2).grad_fn.name() == "RemainderBackward0"
    assert t.fmod(x, 2).grad_fn.name() == "FmodBackward0"
    y = t.div(x, 2.0, rounding_mode="floor")
    assert y.grad_fn.name() == "DivBackward2"
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_floor_divide_and_reflected_remainder_have_no_derivative():
    x = t.tensor([0.0, -2.0, 3.0], requires_grad=True)
    for y, name in ((x // 2, "floor_divide"), (2 % x, "remainder")):
        assert type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match=f"^derivative for aten::{name} is not "
                                               "implemented"):
            y.sum().backward()
    assert x.grad is None


def test_copysign():
    x = t.tensor([0.0, -2.0, 3.0], requires_grad=True)
    y = t.copysign(x, t.tensor([-1.0, 1.0, -1.0]))
    assert y.grad_fn.name() == "CopysignBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, -1.0]  # 0 at x == 0
    assert t.copysign(x, 2).grad_fn.name() == "CopysignBackward1"
    _eq(t.copysign(t.tensor(A), t.tensor(B)), [7.0, 7.0, -5.0, -5.0], t.float32)
    _eq(t.copysign(t.tensor(A).float(), -0.0), [-7.0, -7.0, -5.0, -5.0], t.float32)


def test_bitwise_operators_and_shifts():
    a, b = t.tensor(A), t.tensor(B)
    _eq(a & 3, [3, 1, 1, 3], t.int64)
    _eq(a << 1, [14, -14, 10, -10], t.int64)
    _eq(a >> 1, [3, -4, 2, -3], t.int64)
    _eq(1 << a.abs(), [128, 128, 32, 32], t.int64)
    _eq(t.bitwise_left_shift(a, 2), [28, -28, 20, -20], t.int64)
    _eq(t.bitwise_not(a), [-8, 6, -6, 4], t.int64)
    _eq(a.bitwise_and(b), [2, 0, 5, -7], t.int64)
    _eq(a << -1, [0, 0, 0, 0], t.int64)
    _eq(a >> 70, [0, -1, 0, -1], t.int64)
    _eq(a << 70, [0, 0, 0, 0], t.int64)
    m = t.tensor([True, False])
    _eq(~m, [False, True], t.bool)
    _eq(m ^ True, [False, True], t.bool)
    _eq(m << 1, [2, 0], t.int64)
    _eq(3 | m, [3, 3], t.int64)
    x = t.tensor([1, 2, 3])
    x &= t.tensor([3, 3, 3])
    x <<= 1
    x |= 8
    x ^= 1
    assert x.tolist() == [11, 13, 15]


def test_bitwise_refuses_floats_as_pytorch():
    f = t.tensor([1.0, 2.0])
    cases = ((lambda: f & f, "bitwise_and_cpu", "Float"),
             (lambda: f | 1, "bitwise_or_cpu", "Float"),
             (lambda: f << 1, "lshift_cpu", "Float"),
             (lambda: 2.5 >> t.tensor([1]), "rshift_cpu", "Float"),
             (lambda: t.bitwise_not(f), "bitwise_not_cpu", "Float"),
             (lambda: t.tensor([True]) >> t.tensor([True]), "rshift_cpu", "Bool"))
    for fn, kernel, dtype in cases:
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for "
                                                      f"'{dtype}'"):
            fn()
    with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on integer"):
        ~f  # noqa: B018
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        t.tensor([1, 2, 3]) | t.tensor([1, 2])  # noqa: B018 - the error is the point


def test_masks_combined_with_operators_still_lower():
    from symgrad import symbolic

    x = t.tensor([-1.0, 2.0], dtype=t.float64, requires_grad=True)
    y = t.where((x > 0) & ~(x > 5), x * x, 0.0).sum()
    assert "Piecewise" in str(symbolic.lower(y).expr)


def test_logical_functions_and_predicates():
    f = t.tensor([1.0, 0.0, 2.0])
    _eq(t.logical_xor(f, t.tensor([0, 0, 3])), [True, False, False], t.bool)
    _eq(t.logical_and(f, t.tensor([1, 1, 0])), [True, False, False], t.bool)
    _eq(t.logical_not(t.tensor([0, 3])), [True, False], t.bool)
    special = t.tensor([1.0, math.nan, math.inf, -math.inf])
    _eq(t.isnan(special), [False, True, False, False], t.bool)
    _eq(special.isinf(), [False, False, True, True], t.bool)
    _eq(t.isfinite(special), [True, False, False, False], t.bool)
    _eq(t.isposinf(special), [False, False, True, False], t.bool)
    _eq(t.isclose(t.tensor([1.0, math.nan, math.inf]), t.tensor([1.00001, math.nan, math.inf])),
        [False, False, True], t.bool)  # 1e-5 apart: not within rtol * 1.00001 in float32
    _eq(t.isclose(t.tensor([1.0, math.nan]), t.tensor([1.0, math.nan]), equal_nan=True),
        [True, True], t.bool)
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        t.isclose(t.ones(1), t.ones(1, dtype=t.float64))


def test_lerp_logaddexp_and_inverse_hyperbolic():
    x = t.tensor([5.0, -2.0, 3.0], requires_grad=True)
    o = t.tensor([2.0, 3.0, -2.0], requires_grad=True)
    assert t.lerp(x, o, 0.3).tolist() == pytest.approx([4.1, -0.5, 1.5])
    assert t.lerp(x, o, 0.3).grad_fn.name() == "LerpBackward0"
    assert t.lerp(x, o, o).grad_fn.name() == "LerpBackward1"
    # the end is exact at weight 1 (PyTorch computes from the nearer end)
    assert t.lerp(t.tensor([0.1]), t.tensor([0.7]), 1.0).tolist() == t.tensor([0.7]).tolist()
    assert t.logaddexp(x, o).tolist() == pytest.approx([5.0485873, 3.0067153, 3.0067153])
    assert t.logaddexp2(x, o).tolist() == pytest.approx([5.169925, 3.0443941, 3.0443941])
    assert t.asinh(x).tolist() == pytest.approx([2.3124383, -1.4436355, 1.8184465])
    assert t.atanh(x / 10).tolist() == pytest.approx([0.5493061, -0.2027326, 0.3095196])
    acosh = t.acosh(x).tolist()
    assert acosh[0] == pytest.approx(2.2924316) and math.isnan(acosh[1])
    assert t.arcsinh(x).grad_fn.name() == "AsinhBackward0"


def test_nan_to_num():
    special = t.tensor([math.nan, math.inf, -math.inf, 1.0])
    assert t.nan_to_num(special).tolist() == [0.0, float(np.finfo(np.float32).max),
                                              float(np.finfo(np.float32).min), 1.0]
    assert t.nan_to_num(t.tensor([math.inf], dtype=t.float64)).item() == np.finfo(np.float64).max
    z = t.tensor([math.nan, math.inf, 1.0], requires_grad=True)
    y = t.nan_to_num(z, nan=2.0, posinf=3.0)
    assert y.tolist() == [2.0, 3.0, 1.0] and y.grad_fn.name() == "NanToNumBackward0"
    y.sum().backward()
    assert z.grad.tolist() == [0.0, 0.0, 1.0]
    _eq(t.nan_to_num(t.tensor([1, 2])), [1, 2], t.int64)
