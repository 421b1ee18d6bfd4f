"""The PyTorch names added for parity (special functions, aliases, products, shape helpers,
metadata): values, gradients and errors as torch 2.13 gives them (numbers recorded from torch;
no torch needed here). Gradients of the registered ops are also checked by the registry tests
against finite differences and sympy."""

from __future__ import annotations

import math
import warnings

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
    (lambda: t.tensordot(t.arange(6.0).reshape(2, 3), t.arange(12.0).reshape(3, 4), dims=1),
     [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]),
    (lambda: t.tensordot(t.arange(6.0).reshape(1, 2, 3), t.arange(6.0).reshape(3, 2),
                         dims=([1, 2], [1, 0])), [50.0]),
    (lambda: t.inner(t.arange(6.0).reshape(2, 3), t.arange(6.0).reshape(2, 3)),
     [[5.0, 14.0], [14.0, 50.0]]),
    (lambda: t.addcdiv(t.ones(2), t.tensor([1.0, 2]), t.tensor([4.0, 4]), value=2), [1.5, 2.0]),
    (lambda: t.addcmul(t.tensor([1, 2]), t.tensor([1, 2]), t.tensor([1, 2]), value=2), [3, 10]),
    (lambda: t.addcmul(t.tensor([1, 2]), t.tensor([1, 2]), t.tensor([1, 2]), value=0.5),
     [1, 2]),  # value cast to the integer result type
    (lambda: t.bmm(t.ones(2, 1, 3), t.arange(12.0).reshape(2, 3, 2)),
     [[[6.0, 9.0]], [[24.0, 27.0]]]),
]


@pytest.mark.parametrize(("call", "expected"), VALUES)
def test_values_match_pytorch(call, expected):
    _close(call(), expected)


GRADIENTS = [  # (function, inputs, torch 2.13's gradients of the sum)
    (lambda x: t.logit(x, eps=0.2), [[0.2, 0.5, 0.85]], [[6.249999999999999, 4.0, 0.0]]),
    (t.sinc, [[0.0, 1.5]], [[0.0, 0.14147106052612907]]),
    (t.xlogy, [[0.0, 1.5], [2.0, 0.5]], [[0.6931471805599453, -0.6931471805599453], [0.0, 3.0]]),
    (t.xlogy, [[0.0, 0.0], [0.0, -1.0]], [[0.0, 0.0], [NAN, -0.0]]),
    (lambda x, w: t.tensordot(x, w, dims=1).pow(2), [[[1.0, 2, 3], [4, 5, 6]],
                                                     [[0.5, -1], [2, 1], [1, 0]]],
     [[[5.5, 32.0, 15.0], [16.0, 74.0, 36.0]], [[159.0, 10.0], [210.0, 14.0], [261.0, 18.0]]]),
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


ERRORS += [
    (lambda: t.bmm(t.ones(2, 3, 4), t.ones(4, 5)), RuntimeError, "batch2 must be a 3D tensor"),
    (lambda: t.bmm(t.ones(2, 3, 4), t.ones(3, 4, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4]."),
    (lambda: t.bmm(t.ones(2, 3, 4), t.ones(2, 4, 5, dtype=t.float64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda: t.addcdiv(t.tensor([1]), t.tensor([1]), t.tensor([1])), RuntimeError,
     "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
     "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
     "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
     "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
     "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
     "for all dtypes."),
    (lambda: t.ones(1).addcmul_(t.ones(2), t.ones(2)), RuntimeError,
     "output with shape [1] doesn't match the broadcast shape [2]"),
    (lambda: t.inner(t.ones(2, 3), t.ones(4)), RuntimeError,
     "inner() the last dimension must match on both input tensors but got shapes [2, 3] and "
     "[4]"),
    (lambda: t.vdot(t.ones(2, 3), t.ones(2, 3)), RuntimeError,
     "1D tensors expected, but got 2D and 2D tensors"),
    (lambda: t.tensordot(t.ones(2, 3), t.ones(4, 5), dims=([1], [0])), RuntimeError,
     "contracted dimensions need to match, but first has size 3 in dim 1 and second has size "
     "4 in dim 0"),
    (lambda: t.tensordot(t.ones(2, 3), t.ones(3, 2), dims=([1], [0, 1])), RuntimeError,
     "both dimension lists should have same length"),
    (lambda: t.tensordot(t.ones(2, 3), t.ones(3, 2), dims=-1), RuntimeError,
     "tensordot expects dims >= 0, but got dims=-1"),
    (lambda: t.chain_matmul(t.ones(3)), RuntimeError, "Tensor dimension is 1, expected 2 "
     "instead."),
]


@pytest.mark.parametrize(("call", "kind", "message"), ERRORS)
def test_errors_match_pytorch(call, kind, message):
    with pytest.raises(kind) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation
        call()
    assert type(caught.value) is kind
    assert str(caught.value).splitlines()[0] == message


def test_aliases_are_the_same_functions_as_pytorch_names_them():
    x = t.tensor([1.0, -2.0])
    pairs = [(x.multiply(2), x * 2), (x.subtract(1), x - 1), (x.absolute(), x.abs()),
             (t.absolute(x), x.abs()), (x.greater(0), x > 0), (t.greater_equal(x, 1), x >= 1),
             (x.less(0), x < 0), (t.less_equal(x, 0), x <= 0), (x.not_equal(1.0), x != 1.0),
             (x.clone().multiply_(3), x * 3), (x.clone().subtract_(1), x - 1),
             (x.clone().negative_(), -x), (x.clone().absolute_(), x.abs())]
    for got, expected in pairs:
        assert got.dtype is expected.dtype and got.tolist() == expected.tolist()


def test_inplace_function_forms():
    x = t.tensor([0.0, 1.0], dtype=t.float64)
    assert t.exp_(x) is x and x.tolist() == [1.0, math.e]
    assert t.zero_(x) is x and x.tolist() == [0.0, 0.0]
    assert t.fill_(x, 2.0).tolist() == [2.0, 2.0]
    y = t.tensor([1.0, 2.0], requires_grad=True) * 1
    t.sigmoid_(y)
    assert y.grad_fn.name() == "SigmoidBackward0"


def test_layout_metadata_matches_pytorch():
    x = t.ones(2, 3)  # torch 2.13's values in the comments' order
    assert x.stride() == (3, 1) and x.t().stride() == (1, 3) and x.stride(-1) == 1
    assert x[:, 1:].stride() == (3, 1) and x[:, 1:].storage_offset() == 1
    assert x[1].storage_offset() == 3 and x.storage_offset() == 0
    assert x[::2].stride() == (6, 1)
    assert x.expand(4, 2, 3).stride() == (0, 3, 1)
    assert t.ones(2, 1, 3).stride() == (3, 3, 1)
    assert x.flip(0).stride() == (3, 1)  # a copy in PyTorch
    assert t.ones(2, 0).stride() == (1, 1)
    assert x.nbytes == 24 and x.itemsize == 4
    assert t.ones(2, dtype=t.float64).itemsize == 8
    assert x.is_signed() and not t.tensor([True]).is_signed()
    assert x.is_same_size(t.zeros(2, 3)) and not x.is_same_size(t.zeros(3, 2))
    assert not t.tensor([0.0]).is_nonzero() and t.tensor(2).is_nonzero()
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        x.stride(2)
    for bad, message in ((t.ones(0), "Boolean value of Tensor with no values is ambiguous"),
                         (t.ones(2), "Boolean value of Tensor with more than one value is "
                                     "ambiguous")):
        with pytest.raises(RuntimeError, match=f"^{message}$"):
            bad.is_nonzero()


def test_conveniences_record_pytorchs_nodes():
    x = t.ones(2, 3, requires_grad=True)
    assert x.sum_to_size(1, 3).grad_fn.name() == "SumBackward1"
    assert x.sum_to_size(3).grad_fn.name() == "ViewBackward0"
    assert x.sum_to_size(2, 1).grad_fn.name() == "SumBackward1"
    assert x.sum_to_size((2, 3)) is x
    assert x.sum_to_size(1, 3).tolist() == [[2.0, 2.0, 2.0]]
    with pytest.raises(RuntimeError, match=r"^size \{\[3, 3\]\} is not expandable to size "
                                           r"\{\[2, 3\]\}\.$"):
        x.sum_to_size(3, 3)
    assert x.type_as(t.ones(1, dtype=t.float64)).grad_fn.name() == "ToCopyBackward0"
    assert x.type_as(x) is x
    assert x.ravel().grad_fn.name() == "ViewBackward0" and x.ravel().shape == (6,)
    assert t.positive(x) is x
    with pytest.raises(RuntimeError, match="^The `\\+` operator, on a bool tensor is not "
                                           "supported.$"):
        t.positive(t.tensor([True]))


def test_dtype_information_and_promotion():
    assert repr(t.finfo(t.float32)) == (
        "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
    assert t.finfo().dtype == "float32" and t.finfo(t.float64).eps == 2.220446049250313e-16
    assert repr(t.iinfo(t.int64)) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"
    assert t.iinfo(t.int64).max == 2**63 - 1
    assert t.promote_types(t.int64, t.float32) is t.float32
    assert t.promote_types(t.bool, t.bool) is t.bool
    assert t.result_type(t.tensor([1]), 1.0) is t.float32
    assert t.result_type(2, 3) is t.int64
    assert t.result_type(True, t.tensor([1])) is t.int64
    assert t.result_type(t.tensor([1.0]), t.tensor(1.0, dtype=t.float64)) is t.float32
    assert t.can_cast(t.float64, t.float32) and not t.can_cast(t.float64, t.int64)
    assert (t.e, t.pi, t.inf) == (math.e, math.pi, math.inf) and math.isnan(t.nan)
    for call, message in ((lambda: t.finfo(t.int64), "symgrad.finfo() requires a floating point "
                           "input type. Use symgrad.iinfo to handle 'symgrad.finfo'"),
                          (lambda: t.iinfo(t.float32), "symgrad.iinfo() requires an integer "
                           "input type. Use symgrad.finfo to handle 'symgrad.iinfo'"),
                          (lambda: t.iinfo(t.bool), "symgrad.bool is not supported by "
                           "symgrad.iinfo"),
                          (lambda: t.finfo("float32"), "finfo(): argument 'type' (position 1) "
                           "must be symgrad.dtype, not str")):
        with pytest.raises(TypeError) as caught:
            call()
        assert str(caught.value) == message


def test_generator_state_seed_and_threads():
    t.manual_seed(3)
    assert t.initial_seed() == 3
    state = t.get_rng_state()
    a = t.rand(4)
    t.set_rng_state(state)
    assert t.equal(a, t.rand(4))
    s = t.seed()
    assert s == t.initial_seed()
    with pytest.raises(TypeError):
        t.set_rng_state([1, 2])
    n = t.get_num_threads()
    try:
        t.set_num_threads(2)
        assert t.get_num_threads() == 2
        with pytest.raises(RuntimeError, match="^set_num_threads expects a positive integer$"):
            t.set_num_threads(0)
        assert t.get_num_threads() == 2  # refused before any change
    finally:
        t.set_num_threads(n)
