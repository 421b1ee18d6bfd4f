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


def test_sort_signatures_as_pytorch():
    x = t.tensor([[3.0, 1.0, 2.0]], requires_grad=True)
    assert x.sort(1).values.grad_fn.name() == "SortBackward0"
    assert x.sort(dim=1, stable=True).values.grad_fn.name() == "SortBackward1"
    assert x.argsort(stable=True, dim=1).tolist() == [[1, 2, 0]]
    assert t.argsort(x, 1, True).tolist() == [[0, 2, 1]]
    for call, fn in ((lambda: x.sort(1, stable=True), "sort"),
                     (lambda: t.sort(x, 1, True, stable=False), "sort"),
                     (lambda: x.argsort(1, stable=True), "argsort")):
        with pytest.raises(TypeError, match=f"^{fn}\\(\\) received an invalid combination of "
                                            "arguments"):
            call()
    with pytest.raises(TypeError, match="got multiple values for argument 'dim'"):
        x.sort(1, dim=1)


X23 = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
COMPOSITES = [  # (call, torch 2.13's values)
    (lambda: t.diff(t.tensor(X23)), [[1.0, 1.0], [1.0, 1.0]]),
    (lambda: t.diff(t.tensor([1.0, 4, 9, 16]), n=2), [2.0, 2.0]),
    (lambda: t.diff(t.tensor([1.0, 4]), prepend=t.tensor([0.0]), append=t.tensor([20.0])),
     [1.0, 3.0, 16.0]),
    (lambda: t.diff(t.tensor(X23), dim=0), [[3.0, 3.0, 3.0]]),
    (lambda: t.diff(t.tensor([True, True, False])), [False, True]),
    (lambda: t.cross(t.ones(2, 3), t.tensor(X23), dim=1), [[1.0, -2.0, 1.0], [1.0, -2.0, 1.0]]),
    (lambda: t.block_diag(t.ones(2, 2), t.tensor([3.0]), t.tensor(5.0)),
     [[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 5.0]]),
    (lambda: t.diagflat(t.tensor([1.0, 2]), 1), [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0],
                                                 [0.0, 0.0, 0.0]]),
    (lambda: t.count_nonzero(t.tensor([[0, 1], [2, 0]]), dim=0), [1, 1]),
    (lambda: t.count_nonzero(t.tensor([[0, 1], [2, 3]]), dim=(0, 1)), 3),
    (lambda: t.nansum(t.tensor([1.0, NAN, 2.0])), 3.0),
    (lambda: t.nanmean(t.tensor([1.0, NAN, 2.0])), 1.5),
    (lambda: t.nanmean(t.tensor([NAN])), NAN),
    (lambda: t.logspace(0, 2, 3), [1.0, 10.0, 100.0]),
    (lambda: t.logspace(0, 2, 3, base=2), [1.0, 2.0, 4.0]),
    (lambda: t.logspace(0, 2, 3, dtype=t.int64), [1, 10, 100]),
    (lambda: t.scalar_tensor(True), 1.0),
    (lambda: t.tril_indices(3, 3), [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]),
    (lambda: t.triu_indices(3, 4, 1), [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]),
    (lambda: t.tril_indices(2, 3, -1), [[1], [0]]),
    (lambda: t.combinations(t.tensor([1, 2, 3])), [[1, 2], [1, 3], [2, 3]]),
    (lambda: t.combinations(t.tensor([1, 2]), with_replacement=True), [[1, 1], [1, 2], [2, 2]]),
    (lambda: t.take(t.tensor(X23), t.tensor([[0, 5]])), [[0.0, 5.0]]),
    (lambda: t.isin(t.tensor([1, 2, 3]), t.tensor([2, 5])), [False, True, False]),
    (lambda: t.isin(t.tensor([1, 2, 3]), 2), [False, True, False]),
    (lambda: t.isin(t.tensor([1, 2, 3]), t.tensor([2]), invert=True), [True, False, True]),
    (lambda: t.cdist(t.tensor([[0.0, 0]]), t.tensor([[3.0, 4], [0, 1]])), [[5.0, 1.0]]),
    (lambda: t.dist(t.tensor([0.0, 0]), t.tensor([3.0, 4])), 5.0),
    (lambda: t.trapezoid(t.tensor([1.0, 2, 3])), 4.0),
    (lambda: t.trapz(t.tensor([1.0, 2, 3]), t.tensor([0.0, 1, 3])), 6.5),
    (lambda: t.trapezoid(t.tensor(X23), dx=2.0, dim=0), [3.0, 5.0, 7.0]),
    (lambda: t.broadcast_shapes((2, 1), (3,)), [2, 3]),
    (lambda: t.aminmax(t.tensor(X23), dim=1).max, [2.0, 5.0]),
    (lambda: t.cumulative_trapezoid(t.tensor(X23)), [[0.5, 2.0], [3.5, 8.0]]),
    (lambda: t.cumulative_trapezoid(t.tensor(X23), dx=0.5, dim=0), [[0.75, 1.25, 1.75]]),
    (lambda: t.cumulative_trapezoid(t.tensor(X23), t.tensor([0.0, 1.0, 3.0])),
     [[0.5, 3.5], [3.5, 12.5]]),
    (lambda: t.cumulative_trapezoid(t.tensor([1, 2, 4])), [1.5, 4.5]),
    (lambda: t.cov(t.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])),
     [[1.0, -0.75], [-0.75, 0.5833333730697632]]),
    (lambda: t.cov(_f64([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]), correction=0,
                   fweights=t.tensor([1, 2, 1]), aweights=_f64([0.5, 1.0, 2.0])),
     [[0.4444444444444444, -0.2962962962962963], [-0.2962962962962963, 0.20987654320987653]]),
    # (float32 from int64, as PyTorch; its last bit depends on the matrix product's order)
    (lambda: t.cov(t.tensor([[1, 2, 4], [3, 3, 0]])).double().mul(6).round(),
     [[14.0, -15.0], [-15.0, 18.0]]),
    (lambda: t.corrcoef(t.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])),
     [[1.0, -0.9819804430007935], [-0.9819804430007935, 1.0]]),
    (lambda: t.tensor([[3.0, 4.0], [0.3, 0.4]]).renorm(2, 0, 1.0),
     [[0.6000000238418579, 0.800000011920929], [0.30000001192092896, 0.4000000059604645]]),
    (lambda: t.tensor([[3.0, 4.0], [1.0, -0.5]]).renorm(1, 1, 2.0),
     [[1.5, 1.7777777910232544], [0.5, -0.2222222238779068]]),
    (lambda: t.ldexp(t.tensor([1.0, 3.0]), t.tensor([2, -1])), [4.0, 1.5]),
    (lambda: t.ldexp(t.tensor([1, 3]), t.tensor([2, -1])), [4.0, 1.5]),
    (lambda: t.where(t.tensor([[0.0, 2.0], [1.0, 0.0]])), [[0, 1], [1, 0]]),
    (lambda: t.linalg.cross(t.tensor([[1.0, 2, 3]]), t.tensor([[0.5, -1.0, 2.0], [1.0, 0, 0]])),
     [[7.0, -0.5, -2.0], [0.0, 3.0, -2.0]]),
    (lambda: t.matrix_power(_f64([[1.0, 0.5], [-0.25, 2.0]]), 5),
     [[-2.140625, 14.0703125], [-7.03515625, 26.0]]),
    (lambda: t.linalg.matrix_power(_f64([[1.0, 0.5], [-0.25, 2.0]]), -2),
     [[0.8581314878892734, -0.33217993079584773], [0.16608996539792387, 0.19377162629757785]]),
    (lambda: t.mvlgamma(_f64([2.5, 4.0]), 3), [1.8809954616117743, 5.402975080909175]),
    (lambda: t.addr(t.ones(2, 2), t.tensor([1.0, 2.0]), t.tensor([3.0, -1.0]), beta=0.5,
                    alpha=2), [[6.5, -1.5], [12.5, -3.5]]),
    (lambda: t.addbmm(t.ones(2), t.arange(8.0).reshape(2, 2, 2), t.ones(2, 2, 2), beta=2),
     [[12.0, 12.0], [20.0, 20.0]]),
    (lambda: t.diagonal_scatter(t.zeros(2, 3), t.tensor([1.0, 2.0]), 1),
     [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]),
    (lambda: t.select_scatter(t.zeros(2, 2), t.tensor([3.0, 4.0]), 1, 0), [[3.0, 0.0], [4.0, 0.0]]),
    (lambda: t.slice_scatter(t.zeros(5), t.tensor([1.0, 2.0]), 0, 1, None, 3),
     [0.0, 1.0, 0.0, 0.0, 2.0]),
    (lambda: t.hardshrink(_f64([-0.5, 0.2, 0.7, NAN]), 0.5), [0.0, 0.0, 0.7, NAN]),
    (lambda: t.vander(t.tensor([1.0, 2.0, 3.0])), [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0],
                                                   [9.0, 3.0, 1.0]]),
    (lambda: t.vander(t.tensor([1, 2, 3]), N=2, increasing=True), [[1, 1], [1, 2], [1, 3]]),
    (lambda: t.vander(t.tensor([True, False])), [[1, 1], [0, 1]]),
    # integral tensors: the fused products truncate a float beta and alpha to ints
    (lambda: t.addbmm(t.ones(2, 2, dtype=t.int64), t.ones(1, 2, 2, dtype=t.int64),
                      t.ones(1, 2, 2, dtype=t.int64), beta=1.5, alpha=2.7), [[5, 5], [5, 5]]),
    (lambda: t.addmm(t.ones(2, 2, dtype=t.int64), t.ones(2, 2, dtype=t.int64),
                     t.ones(2, 2, dtype=t.int64), alpha=2.7), [[5, 5], [5, 5]]),
    (lambda: t.addmv(t.ones(2, dtype=t.int64), t.ones(2, 2, dtype=t.int64),
                     t.ones(2, dtype=t.int64), beta=1.9), [3, 3]),
]


@pytest.mark.parametrize(("call", "expected"), COMPOSITES)
def test_composites_match_pytorch(call, expected):
    out = call()
    _close(out.tolist() if hasattr(out, "tolist") else list(out), expected)


def test_composite_shapes_and_kinds_match_pytorch():
    x = t.ones(2, 3, requires_grad=True)
    a, b = t.broadcast_tensors(x, t.ones(3))
    assert a is x and b.shape == (2, 3)
    assert t.atleast_1d(t.tensor(1.0)).shape == (1,)
    assert isinstance(t.atleast_1d([t.tensor(1.0)]), tuple)
    assert t.atleast_2d(t.ones(3)).shape == (1, 3)
    assert t.atleast_3d(t.ones(3)).shape == (1, 3, 1)
    assert t.atleast_3d(t.tensor(1.0)).shape == (1, 1, 1)
    assert t.atleast_3d(x).grad_fn.name() == "UnsqueezeBackward0"
    one_d = t.atleast_3d(x[0]).grad_fn  # (PyTorch: unsqueeze(0), then unsqueeze(-1))
    assert [one_d.name(), one_d.next_functions[0][0].name()] == ["UnsqueezeBackward0"] * 2
    column = t.ones(2, 1, 4, requires_grad=True)
    assert [column.squeeze(d).grad_fn.name() for d in (1, (1,), [1, 0], ())] == [
        "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward2", "SqueezeBackward2"]
    assert column.squeeze(()).shape == (2, 1, 4)
    inplace = [(column * 1).squeeze_(d) for d in (1, (1,), ())]
    assert [y.grad_fn.name() for y in inplace] == ["SqueezeBackward4", "SqueezeBackward5",
                                                   "SqueezeBackward5"]
    assert inplace[2].shape == (2, 1, 4)  # (an empty tuple squeezes nothing)
    assert t.linalg.cross(x, x.exp()).grad_fn.name() == "LinalgCrossBackward0"
    assert t.trapezoid(x).grad_fn.name() == "MulBackward1"
    assert t.cumulative_trapezoid(x, t.ones(3)).grad_fn.name() == "DivBackward1"
    assert t.cov(x).grad_fn.name() == "SqueezeBackward0"
    assert t.corrcoef(x).grad_fn.name() == "ClampBackward1"
    square = t.ones(2, 2, requires_grad=True)
    assert [t.matrix_power(square, n).grad_fn.name() for n in (0, 1, 2)] == [
        "torch::autograd::CopyBackwards", "CloneBackward0", "MmBackward0"]
    assert x.mH.grad_fn.name() == "TransposeBackward0" and x.H.shape == (3, 2)
    assert t.nn.functional.hardshrink(x, 0.8).tolist() == t.hardshrink(x, 0.8).tolist()
    assert t.vander(t.tensor([2.0]), N=0).shape == (1, 0)
    powers = t.tensor([1.5, -2.0], requires_grad=True)
    t.vander(powers, 4).sum().backward()  # d/dx (1 + x + x^2 + x^3)
    assert powers.grad.tolist() == [10.75, 9.0]
    assert [p.shape for p in t.hsplit(t.ones(2, 4), 2)] == [(2, 2), (2, 2)]
    assert [p.shape for p in t.vsplit(t.ones(4, 2), [1, 3])] == [(1, 2), (2, 2), (1, 2)]
    assert [p.shape for p in t.dsplit(t.ones(1, 2, 4), 2)] == [(1, 2, 2), (1, 2, 2)]
    assert [p.shape for p in t.hsplit(t.ones(4), 2)] == [(2,), (2,)]
    assert [p.shape for p in t.split_with_sizes(t.ones(5, 2), [2, 3])] == [(2, 2), (3, 2)]
    assert t.cross(t.ones(3, 2), t.ones(3, 2), dim=0).shape == (3, 2)
    assert t.scalar_tensor(2).dtype is t.float32 and t.scalar_tensor(2, dtype=t.int64).dtype \
        is t.int64
    assert t.nanmean(x).grad_fn.name() == "DivBackward0"
    y = t.tensor([1.0, NAN, 2.0], requires_grad=True)
    t.nansum(y).backward()
    assert y.grad.tolist() == [1.0, 0.0, 1.0]


COMPOSITE_ERRORS = [  # (call, exception type, first line of torch 2.13's message)
    (lambda: t.broadcast_shapes((2,), (3,)), RuntimeError,
     "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 "
     "had (3,); but expected shape should be broadcastable to [2]"),
    (lambda: t.broadcast_tensors(t.ones(2), t.ones(3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension "
     "0"),
    (lambda: t.cross(t.ones(2, 2), t.ones(2, 2)), RuntimeError, "no dimension of size 3 in "
     "input"),
    (lambda: t.hsplit(t.ones(2, 3), 2), RuntimeError,
     "symgrad.hsplit attempted to split along dimension 1, but the size of the dimension 3 is "
     "not divisible by the split_size 2!"),
    (lambda: t.vsplit(t.ones(3), 1), RuntimeError,
     "symgrad.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 "
     "dimensions!"),
    (lambda: t.split_with_sizes(t.ones(5), [2, 2]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at "
     "dimension 0), but got split_sizes=[2, 2]"),
    (lambda: t.nanmean(t.tensor([1, 2])), RuntimeError,
     "nanmean(): expected input to have floating point or complex dtype but got Long"),
    (lambda: t.take(t.ones(2, 3), t.tensor([6])), IndexError,
     "out of range: tried to access index 6 on a tensor of 6 elements."),
    (lambda: t.cov(t.ones(2, 2, 2)), RuntimeError, "cov(): expected input to have two or fewer "
     "dimensions but got an input with 3 dimensions"),
    (lambda: t.cov(t.ones(2, 3), fweights=t.ones(3)), RuntimeError, "cov(): expected fweights "
     "to have integral dtype but got fweights with Float dtype"),
    (lambda: t.cov(t.ones(2, 3), aweights=t.tensor([1.0, -1, 1])), RuntimeError,
     "cov(): aweights cannot be negative"),
    (lambda: t.cov(t.ones(2, 3), fweights=t.tensor([0, 0, 0])), RuntimeError,
     "cov(): weights sum to zero, can't be normalized"),
    (lambda: t.corrcoef(t.ones(2, 2, 2)), RuntimeError, "corrcoef(): expected input to have "
     "two or fewer dimensions but got an input with 3 dimensions"),
    (lambda: t.ones(2, 2).renorm(0, 0, 1.0), RuntimeError,
     "renorm: non-positive-norm not supported"),
    (lambda: t.ones(2).renorm(2, 0, 1.0), RuntimeError,
     "renorm: input needs at least 2 dimensions, got 1 dimensions"),
    (lambda: t.ones(2, 2).renorm(2, 0, -1.5), RuntimeError,
     "renorm: expected maxnorm to be >= 0 but got -1.5"),
    (lambda: t.linalg.cross(t.ones(2, 3), t.ones(3)), RuntimeError,
     "linalg.cross: inputs must have the same number of dimensions."),
    (lambda: t.cross(t.ones(2, 3, dtype=t.float64), t.ones(2, 3), dim=1), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda: t.cross(t.ones(1, 3), t.ones(2, 1)), RuntimeError,
     "linalg.cross: inputs dimension 1 must have length 3. Got 3 and 1"),
    (lambda: t.where(t.tensor([True]), t.ones(1)), TypeError, "where() received an invalid "
     "combination of arguments - got (Tensor, Tensor), but expected one of:"),
    (lambda: t.ldexp(t.ones(1), 2), TypeError,
     "ldexp(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda: t.matrix_power(t.ones(2, 3), 2), RuntimeError, "linalg.matrix_power: A must be "
     "batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: t.ones(3).matrix_power(2), RuntimeError, "linalg.matrix_power: The input tensor A "
     "must have at least 2 dimensions."),
    (lambda: t.ones(2, 2).matrix_power(2.0), TypeError,
     "matrix_power(): argument 'n' (position 1) must be int, not float"),
    (lambda: t.ones(3).adjoint(), RuntimeError, "tensor.adjoint() is only supported on matrices "
     "or batches of matrices. Got 1-D tensor."),
    (lambda: t.ones(3).mH, RuntimeError, "tensor.mH is only supported on matrices or batches of "
     "matrices. Got 1-D tensor."),
    (lambda: t.ones(2, 2, 3).H, RuntimeError, "tensor.H is only supported on matrices (2-D "
     "tensors). Got 3-D tensor."),
    (lambda: t.mvlgamma(t.ones(2), 0), RuntimeError, "p has to be greater than or equal to 1"),
    (lambda: t.diagonal_scatter(t.zeros(3, 3), t.ones(2)), RuntimeError, "expected src to have "
     "a size equal to the slice of self. src size = [2], slice size = [3]"),
    (lambda: t.addr(t.ones(2, 3), t.ones(2, 1), t.ones(3)), RuntimeError,
     "addr: Expected 1-D argument vec1, but got 2-D"),
    (lambda: t.addbmm(t.ones(2, 2), t.ones(3, 2, 4), t.ones(2, 4, 2)), RuntimeError,
     "batch1 and batch2 must have same number of batches, got 3 and 2"),
    (lambda: t.vander(t.ones(2, 2)), RuntimeError, "x must be a one-dimensional tensor."),
    (lambda: t.addr(t.ones(2, 2, dtype=t.int64), t.tensor([1, 2]), t.tensor([3, 4]), alpha=0.5),
     RuntimeError, "For integral input tensors, argument alpha must not be a floating point "
     "number."),
    (lambda: t.vander(t.ones(2), N=-1), RuntimeError, "N must be non-negative."),
]


@pytest.mark.parametrize(("call", "kind", "message"), COMPOSITE_ERRORS)
def test_composite_errors_match_pytorch(call, kind, message):
    with pytest.raises(kind) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cross without dim
        call()
    assert type(caught.value) is kind
    assert str(caught.value).splitlines()[0] == message


@pytest.mark.parametrize("fn", [
    lambda a, b: t.cross(a, b, dim=1),
    lambda a, b: t.cdist(a, b),
    lambda a, b: t.trapezoid(a, dx=0.5),
    lambda a, b: t.diff(a, n=2, append=b),
    lambda a, b: t.block_diag(a, b),
    lambda a, b: t.tensordot(a, b, ([1], [1])),
    lambda a, b: t.inner(a, b),
    lambda a, b: t.addcdiv(a, a, b.abs() + 1, value=0.5),
    lambda a, b: t.nanmean(a * b, 1),
    lambda a, b: t.aminmax(a - b).max,
])
def test_composites_pass_gradcheck(fn):
    rng = np.random.default_rng(0)
    a = t.tensor(rng.uniform(-1, 1, (2, 3)), dtype=t.float64, requires_grad=True)
    b = t.tensor(rng.uniform(-1, 1, (2, 3)), dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(fn, (a, b))


def test_random_fills_record_zero_gradient_nodes():
    x = t.ones(2, 3, requires_grad=True)
    names = []
    for fill in (lambda y: y.uniform_(-1, 1), lambda y: y.normal_(0, 2),
                 lambda y: y.bernoulli_(0.5), lambda y: y.exponential_(),
                 lambda y: y.random_(0, 5), lambda y: y.fill_diagonal_(5.0)):
        y = x * 1
        fill(y)
        names.append(y.grad_fn.name())
        y.sum().backward()
    # torch 2.13's nodes; every fill overwrites, so no gradient reaches x but the diagonal's
    assert names == ["UniformBackward0", "NormalBackward0", "BernoulliBackward2",
                     "ExponentialBackward0", "RandomBackward0", "torch::autograd::CopySlices"]
    # (PyTorch's own autograd nodes carry its namespace in name(), not in their class name)
    copied = t.ones(2, requires_grad=True) * 1
    copied.copy_(t.zeros(2))
    assert (copied.grad_fn.name(), type(copied.grad_fn).__name__) == (
        "torch::autograd::CopyBackwards", "CopyBackwards")
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]


def test_random_fill_values_and_errors():
    t.manual_seed(0)
    u = t.empty(2000).uniform_(-2, 2)
    assert bool((u >= -2).all() and (u < 2).all())
    n = t.empty(20000, dtype=t.float64).normal_(3.0, 0.5)
    assert abs(n.mean().item() - 3.0) < 0.02 and abs(n.std().item() - 0.5) < 0.02
    r = t.zeros(300, dtype=t.int64).random_(3)
    assert sorted(set(r.tolist())) == [0, 1, 2]
    assert t.zeros(4).bernoulli_(t.tensor([0.0, 1.0, 0.0, 1.0])).tolist() == [0, 1, 0, 1]
    assert t.bernoulli(t.tensor([0.0, 1.0])).tolist() == [0.0, 1.0]
    assert t.poisson(t.tensor([0.0, 2.0])).dtype is t.float32
    assert t.normal(t.zeros(2), 1.0).shape == (2,) and t.normal(0.0, 1.0, size=(2,)).shape == (2,)
    assert t.ones(7, 3).fill_diagonal_(5, wrap=True).tolist()[4] == [5.0, 1.0, 1.0]
    assert t.ones(7, 3).fill_diagonal_(5).tolist()[4] == [1.0, 1.0, 1.0]
    x = t.ones(3)
    for call, kind, message in (
            (lambda: t.ones(2).normal_(0, -1), RuntimeError,
             "normal expects std >= 0.0, but found std -1"),
            (lambda: t.ones(2).uniform_(2, 1), RuntimeError,
             "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
            (lambda: x.fill_diagonal_(1), RuntimeError, "dimensions must larger than 1"),
            (lambda: t.ones(2).bernoulli_(2.0), RuntimeError,
             "bernoulli_ expects p to be in [0, 1], but got p=2"),
            (lambda: t.ones(2).exponential_(-1), RuntimeError,
             "exponential_ expects lambda > 0.0, but found lambda=-1"),
            (lambda: t.ones(2, dtype=t.int64).normal_(), NotImplementedError,
             "\"normal_kernel_cpu\" not implemented for 'Long'"),
            (lambda: t.ones(2, requires_grad=True).uniform_(), RuntimeError,
             "a leaf Variable that requires grad is being used in an in-place operation.")):
        with pytest.raises(kind) as caught:
            call()
        assert str(caught.value).splitlines()[0] == message
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_embedding_max_norm_scale_grad_by_freq_and_sparse():
    import symgrad.nn.functional as F

    idx = t.tensor([0, 0, 2, 1])
    w = t.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], requires_grad=True)
    y = F.embedding(idx, w, max_norm=1.0)
    # torch 2.13: the looked-up rows above the norm are scaled in place by 1 / (norm + 1e-7)
    _close(w.detach().tolist(), [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]], rtol=1e-6)
    assert w._version == 1 and y.grad_fn.name() == "EmbeddingBackward0"
    _close(y.tolist(), [[0.6, 0.8], [0.6, 0.8], [0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    y.sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0], [1.0, 1.0], [1.0, 1.0]]
    w3 = t.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    F.embedding(t.tensor([[0, 2]]), w3, max_norm=2.0, norm_type=1.0)
    _close(w3.tolist(), [[0.857142865657806, 1.1428571939468384], [0.3, 0.4],
                         [0.857142865657806, 1.1428571939468384]], rtol=1e-6)
    w2 = t.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], requires_grad=True)
    F.embedding(idx, w2, scale_grad_by_freq=True).sum().backward()
    assert w2.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    w4 = t.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], requires_grad=True)
    F.embedding(idx, w4, padding_idx=0, scale_grad_by_freq=True).sum().backward()
    assert w4.grad.tolist() == [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    assert F.embedding(idx, w4, sparse=False).shape == (4, 2)
    with pytest.raises(NotImplementedError, match="symgrad has no sparse tensors"):
        F.embedding(idx, w4, sparse=True)


@pytest.mark.parametrize(("kwargs", "expected"), [  # torch 2.13's values
    ({"size": (2, 5), "mode": "bicubic"},
     [[1.2100417122950857, 2.105731642757208, 3.722987617736381, 5.904237914283138,
       7.745056592624066], [19.340761416136534, 22.11921316114952, 25.942896949845704,
                            29.99855110718384, 33.16573347531765]]),
    ({"size": (4, 3), "mode": "bicubic", "align_corners": True},
     [[0.0, 1.7859893156893039, 5.196152422706632],
      [3.8562129261515334, 7.565503381316725, 12.329787030611072],
      [13.493816462323743, 19.269817762016295, 25.655612331308557],
      [22.627416997969522, 29.265683948636102, 36.4828726939094]]),
    ({"size": (2, 3), "mode": "area"},
     [[5.045084971874737, 7.426426367236052, 10.310444295401005],
      [17.20193922136712, 21.125013736470454, 25.3307117324361]]),
])
def test_interpolate_bicubic_and_area_match_pytorch(kwargs, expected):
    import symgrad.nn.functional as F

    x = t.arange(12.0, dtype=t.float64).reshape(1, 1, 3, 4) ** 1.5
    # source positions are computed in float32 arithmetic, as PyTorch's float32 kernels
    _close(F.interpolate(x, **kwargs)[0, 0].tolist(), expected, rtol=1e-6)
    assert t.autograd.gradcheck(lambda v: F.interpolate(v, **kwargs), (x.requires_grad_(),))


def test_interpolate_refusals():
    import symgrad.nn.functional as F

    with pytest.raises(NotImplementedError, match="^Got 3D input, but bicubic mode needs 4D "
                                                  "input$"):
        F.interpolate(t.ones(1, 1, 3), size=4, mode="bicubic")
    with pytest.raises(ValueError, match="^Anti-alias option is restricted to bilinear and "
                                         "bicubic modes"):
        F.interpolate(t.ones(1, 1, 3, 3), size=4, mode="nearest", antialias=True)
    with pytest.raises(NotImplementedError, match="antialias=True"):
        F.interpolate(t.ones(1, 1, 3, 3), size=4, mode="bilinear", antialias=True)


def test_unique_and_unique_consecutive_match_pytorch():
    x = t.tensor([3, 1, 2, 3, 1, 5])
    values, inverse, counts = t.unique(x, return_inverse=True, return_counts=True)
    assert (values.tolist(), inverse.tolist(), counts.tolist()) == (
        [1, 2, 3, 5], [2, 0, 1, 2, 0, 3], [2, 1, 2, 1])
    rows, inverse, counts = t.unique(t.tensor([[1, 2], [1, 2], [3, 4]]), dim=0,
                                     return_inverse=True, return_counts=True)
    assert (rows.tolist(), inverse.tolist(), counts.tolist()) == ([[1, 2], [3, 4]], [0, 0, 1],
                                                                  [2, 1])
    runs, inverse, counts = t.unique_consecutive(t.tensor([1, 1, 2, 2, 3, 1, 1]),
                                                 return_inverse=True, return_counts=True)
    assert (runs.tolist(), inverse.tolist(), counts.tolist()) == (
        [1, 2, 3, 1], [0, 0, 1, 1, 2, 3, 3], [2, 2, 1, 2])
    assert t.unique_consecutive(t.tensor([[1, 2], [1, 2], [3, 4]]), dim=0).tolist() == [
        [1, 2], [3, 4]]
    nans = t.unique(t.tensor([NAN, 1.0, NAN])).tolist()
    assert nans[0] == 1.0 and all(math.isnan(v) for v in nans[1:])  # nan are all distinct


def test_quantile_matches_pytorch():
    q = t.tensor([[1.0, 2, 3, 4], [0, 5, 10, 20]], dtype=t.float64, requires_grad=True)
    _close(t.quantile(q, 0.5, dim=1).tolist(), [2.5, 7.5])
    _close(t.quantile(q, 0.3).tolist(), 2.1)
    assert t.quantile(q, t.tensor([0.25, 0.75]), dim=1, keepdim=True).shape == (2, 2, 1)
    for how, expected in (("linear", [1.9, 4.5]), ("lower", [1.0, 0.0]), ("higher", [2.0, 5.0]),
                          ("midpoint", [1.5, 2.5]), ("nearest", [2.0, 5.0])):
        _close(t.quantile(q, 0.3, dim=1, interpolation=how).tolist(), expected)
    t.quantile(q, 0.3, dim=1).sum().backward()
    _close(q.grad.tolist(), [[0.1, 0.9, 0.0, 0.0], [0.1, 0.9, 0.0, 0.0]])
    assert t.nanquantile(t.tensor([1.0, NAN, 3.0]), 0.5).item() == 2.0
    assert math.isnan(t.quantile(t.tensor([1.0, NAN, 3.0]), 0.5).item())
    assert t.autograd.gradcheck(lambda v: t.quantile(v, t.tensor([0.2, 0.9]), dim=0),
                                (q.detach().requires_grad_(),))
    for call, message in (
            (lambda: t.quantile(q, 1.5), "quantile() q must be in the range [0, 1] but got 1.5"),
            (lambda: t.quantile(t.tensor([1, 2]), 0.5),
             "quantile() input tensor must be either float or double dtype"),
            (lambda: t.quantile(q, 0.5, interpolation="x"),
             "quantile() interpolation must be one of linear, lower, higher, midpoint or "
             "nearest, but got x"),
            (lambda: t.quantile(q, t.tensor([[0.5]])), "quantile() q must be a scalar or 1D "
             "tensor")):
        with pytest.raises(RuntimeError) as caught:
            call()
        assert str(caught.value) == message
