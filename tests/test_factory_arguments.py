"""Factories and tensor() refuse what PyTorch refuses, with its exception type and first line
(each expectation below was read off torch 2.13; ``torch.dtype`` reads ``symgrad.dtype``), and
integer powers follow PyTorch's arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t

DT = "symgrad.dtype"
REFUSED = [
    # sizes: PyTorch's argument parser
    (lambda: t.ones(2.5), TypeError,
     "ones(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: t.randn("3"), TypeError,
     "randn(): argument 'size' (position 1) must be tuple of ints, not str"),
    (lambda: t.zeros(None), TypeError,
     "zeros(): argument 'size' (position 1) must be tuple of ints, not NoneType"),
    (lambda: t.ones(True), TypeError,
     "ones(): argument 'size' (position 1) must be tuple of ints, not bool"),
    (lambda: t.ones(t.tensor(2.5)), TypeError,
     "ones(): argument 'size' (position 1) must be tuple of ints, not Tensor"),
    (lambda: t.ones(np.float64(2)), TypeError,
     "ones(): argument 'size' (position 1) must be tuple of ints, not numpy.float64"),
    (lambda: t.ones(2, 2.5), TypeError, "ones(): argument 'size' failed to unpack the object "
     "at pos 2 with error \"type must be tuple of ints,but got float\""),
    (lambda: t.rand([2, 3, 2.5]), TypeError, "rand(): argument 'size' failed to unpack the "
     "object at pos 3 with error \"type must be tuple of ints,but got float\""),
    (lambda: t.empty([2.5]), TypeError, "empty(): argument 'size' (position 1) must be tuple "
     "of ints, but found element of type float at pos 0"),
    (lambda: t.ones(2.5, 3), TypeError, "ones() takes 1 positional argument but 2 were given"),
    (lambda: t.ones(), TypeError, 'ones() missing 1 required positional arguments: "size"'),
    (lambda: t.full(2, 1.0), TypeError,
     "full(): argument 'size' (position 1) must be tuple of ints, not int"),
    (lambda: t.full((2.5,), 1.0), TypeError, "full(): argument 'size' (position 1) must be "
     "tuple of ints, but found element of type float at pos 0"),
    # dtypes, flags and fill values
    (lambda: t.ones(2, dtype="float32"), TypeError,
     f"ones(): argument 'dtype' must be {DT}, not str"),
    (lambda: t.zeros(2, dtype=np.float32), TypeError,
     f"zeros(): argument 'dtype' must be {DT}, not type"),
    (lambda: t.tensor([1.0], dtype=np.dtype("float32")), TypeError,
     f"tensor(): argument 'dtype' must be {DT}, not numpy.dtypes.Float32DType"),
    (lambda: t.full((2,), 1.0, dtype="float32"), TypeError,
     f"full(): argument 'dtype' must be {DT}, not str"),
    (lambda: t.zeros_like(t.ones(2), dtype="x"), TypeError,
     f"zeros_like(): argument 'dtype' must be {DT}, not str"),
    (lambda: t.as_tensor([1.0], dtype="float32"), TypeError,
     f"as_tensor(): argument 'dtype' must be {DT}, not str"),
    (lambda: t.zeros(2, requires_grad=1), TypeError,
     "zeros(): argument 'requires_grad' must be bool, not int"),
    (lambda: t.tensor([1.0], requires_grad="yes"), TypeError,
     "tensor(): argument 'requires_grad' must be bool, not str"),
    (lambda: t.full((2,), "a"), TypeError,
     "full(): argument 'fill_value' (position 2) must be Number, not str"),
    (lambda: t.full_like(t.ones(2), None), TypeError,
     "full_like(): argument 'fill_value' (position 2) must be Number, not NoneType"),
    (lambda: t.ones_like([1, 2]), TypeError,
     "ones_like(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda: t.full_like(None, 1), TypeError,
     "full_like(): argument 'input' (position 1) must be Tensor, not NoneType"),
    # overloaded factories list what they got
    (lambda: t.linspace(0, 1, 2.5), TypeError, "linspace() received an invalid combination of "
     "arguments - got (int, int, float), but expected one of:"),
    (lambda: t.arange(3, dtype="int64"), TypeError, "arange() received an invalid combination "
     "of arguments - got (int, dtype=str), but expected one of:"),
    (lambda: t.rand(2, requires_grad=1), TypeError, "rand() received an invalid combination "
     "of arguments - got (int, requires_grad=int), but expected one of:"),
    (lambda: t.eye(2, 2.5), TypeError, "eye() received an invalid combination of arguments - "
     "got (int, float), but expected one of:"),
    (lambda: t.arange("3"), TypeError,
     "arange(): argument 'end' (position 1) must be Number, not str"),
    (lambda: t.eye(2.5), TypeError, "eye(): argument 'n' (position 1) must be int, not float"),
    # values
    (lambda: t.eye(-1), RuntimeError, "n must be greater or equal to 0, got -1"),
    (lambda: t.eye(2, -1), RuntimeError, "m must be greater or equal to 0, got -1"),
    (lambda: t.arange(0.0, float("inf")), RuntimeError, "unsupported range: 0 -> inf"),
    (lambda: t.arange(1.5, float("nan")), RuntimeError, "unsupported range: 1.5 -> nan"),
    (lambda: t.linspace(t.tensor([0.0]), 1, 3), RuntimeError, "linspace only supports "
     "0-dimensional start and end tensors, but got start with 1 dimension(s)."),
    (lambda: t.full((2,), float("nan"), dtype=t.int64), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    # dtypes a kernel does not exist for
    (lambda: t.linspace(5, 10, 3, dtype=t.bool), NotImplementedError,
     "\"linspace_cpu\" not implemented for 'Bool'"),
    (lambda: t.arange(3, dtype=t.bool), NotImplementedError,
     "\"arange_cpu\" not implemented for 'Bool'"),
    (lambda: t.rand(2, dtype=t.int64), NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda: t.randn_like(t.ones(2), dtype=t.bool), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Bool'"),
    # tensor(): data it cannot hold
    (lambda: t.tensor(["a"]), ValueError, "too many dimensions 'str'"),
    (lambda: t.tensor([["a", "b"]]), ValueError, "too many dimensions 'str'"),
    (lambda: t.tensor("a"), TypeError, "new(): invalid data type 'str'"),
    (lambda: t.tensor([1, "a"]), TypeError, "new(): invalid data type 'str'"),
    (lambda: t.tensor({}), RuntimeError, "Could not infer dtype of dict"),
    (lambda: t.tensor({1, 2}), RuntimeError, "Could not infer dtype of set"),
    (lambda: t.tensor(None), RuntimeError, "Could not infer dtype of NoneType"),
    (lambda: t.tensor([None]), RuntimeError, "Could not infer dtype of NoneType"),
    (lambda: t.as_tensor({}), RuntimeError, "Could not infer dtype of dict"),
    (lambda: t.tensor(2**70), ValueError, "Overflow when unpacking long long"),
    (lambda: t.tensor([1, 2**63]), ValueError, "Overflow when unpacking long long"),
    (lambda: t.tensor(float("nan"), dtype=t.int64), RuntimeError,
     "value cannot be converted to type int64 without overflow"),
    (lambda: t.tensor([1.0, float("inf")], dtype=t.int64), RuntimeError,
     "value cannot be converted to type int64 without overflow"),
    (lambda: t.tensor(np.array(["a"])), TypeError, "can't convert np.ndarray of type "
     "numpy.str_. The only supported types are: "),
    # integer powers: a scalar negative exponent is refused, a tensor one computed
    (lambda: t.tensor([2, 3]) ** -1, RuntimeError,
     "Integers to negative integer powers are not allowed."),
    # bool to bool powers: no kernel in PyTorch (torch 2.13)
    (lambda: t.tensor([True, False]) ** t.tensor([True, True]), NotImplementedError,
     "\"pow\" not implemented for 'Bool'"),
    (lambda: True ** t.tensor([True]), NotImplementedError, "\"pow\" not implemented for 'Bool'"),
    (lambda: t.pow(t.tensor([True]), t.tensor([False])), NotImplementedError,
     "\"pow\" not implemented for 'Bool'"),
    (lambda: t.tensor([True]).pow_(t.tensor([False])), NotImplementedError,
     "\"pow\" not implemented for 'Bool'"),
    # a tensor inside a sequence is one number
    (lambda: t.tensor([t.tensor([1.0, 2.0])]), ValueError,
     "only one element tensors can be converted to Python scalars"),
    (lambda: t.tensor([t.tensor([])]), ValueError,
     "only one element tensors can be converted to Python scalars"),
]


@pytest.mark.parametrize(("call", "kind", "first"), REFUSED,
                         ids=[f"{i}-{c[2][:40]}" for i, c in enumerate(REFUSED)])
def test_refused_like_pytorch(call, kind, first):
    with pytest.raises(kind) as caught:
        call()
    assert type(caught.value) is kind
    assert str(caught.value).splitlines()[0].startswith(first), str(caught.value)


ACCEPTED = [  # (call, values, dtype)
    (lambda: t.ones(t.tensor(2)), [1.0, 1.0], t.float32),
    (lambda: t.ones(np.int64(2)), [1.0, 1.0], t.float32),
    (lambda: t.ones((2, True)), [[1.0], [1.0]], t.float32),  # a bool after the first size
    (lambda: t.ones(()), 1.0, t.float32),
    (lambda: t.zeros(t.Size([2])), [0.0, 0.0], t.float32),
    (lambda: t.ones(2, dtype=float), [1.0, 1.0], t.float64),
    (lambda: t.ones(2, dtype=bool), [True, True], t.bool),
    (lambda: t.full((2,), np.float64(1.5)), [1.5, 1.5], t.float32),  # a Number: dtype not kept
    (lambda: t.full((2,), t.tensor(1.5)), [1.5, 1.5], t.float32),
    (lambda: t.full((2,), 1.5, dtype=t.bool), [True, True], t.bool),
    (lambda: t.arange(t.tensor(3)), [0, 1, 2], t.int64),
    (lambda: t.arange(t.tensor(2.5)), [0.0, 1.0, 2.0], t.float32),
    (lambda: t.linspace(0, 10, 4, dtype=t.int64), [0, 3, 6, 10], t.int64),
    (lambda: t.linspace(t.tensor(0.0), 1, t.tensor(3)), [0.0, 0.5, 1.0], t.float32),
    (lambda: t.eye(2, dtype=t.bool), [[True, False], [False, True]], t.bool),
    (lambda: t.tensor(-2**63), -2**63, t.int64),
    (lambda: t.tensor(2**70, dtype=t.float64), 2.0**70, t.float64),
    (lambda: t.tensor(3.7, dtype=t.int64), 3, t.int64),
    # integer tensor to integer tensor powers (negative ones too)
    (lambda: t.tensor([1, 2, 3]) ** t.tensor([-2, -3, -4]), [1, 0, 0], t.int64),
    (lambda: t.tensor([1, -1, -1, 2, -2, 0]) ** t.tensor([-2, -3, -2, -1, -1, 2]),
     [1, -1, 1, 0, 0, 0], t.int64),
    (lambda: t.tensor([0]) ** t.tensor([-1]), [0], t.int64),
    (lambda: 2 ** t.tensor([-1, 2]), [0, 4], t.int64),
    (lambda: t.pow(2, t.tensor([-1, 2])), [0, 4], t.int64),
    (lambda: (-1) ** t.tensor([-1, -2, 3]), [-1, 1, -1], t.int64),
    (lambda: t.tensor([True, False]) ** t.tensor([-1, 2]), [1, 0], t.int64),
    (lambda: t.tensor([2, 3]).pow_(t.tensor([-1, -2])), [0, 0], t.int64),
    (lambda: t.tensor([2, 3]).pow(t.tensor([2, 0])), [4, 1], t.int64),
    (lambda: t.tensor([True, False]) ** True, [True, False], t.bool),
    (lambda: t.tensor([True, False]) ** False, [True, True], t.bool),
    (lambda: t.tensor([True, False]) ** 2, [1, 0], t.int64),
    (lambda: t.tensor([1, 2]) ** t.tensor([True, False]), [1, 1], t.int64),
    # tensors inside a sequence are numbers of their dtype (torch 2.13: shape (2,), not (2, 1))
    (lambda: t.tensor([t.tensor([1.0]), t.tensor([2.0])]), [1.0, 2.0], t.float32),
    (lambda: t.tensor([t.tensor([[1.0]]), 2]), [1.0, 2.0], t.float32),
    (lambda: t.tensor([t.tensor(1.0, dtype=t.float64), 2]), [1.0, 2.0], t.float64),
    (lambda: t.tensor([t.tensor(1), 2.5]), [1.0, 2.5], t.float32),
    (lambda: t.tensor([[t.tensor(True)], [False]]), [[True], [False]], t.bool),
]


@pytest.mark.parametrize(("call", "values", "dtype"), ACCEPTED)
def test_accepted_like_pytorch(call, values, dtype):
    out = call()
    assert out.dtype is dtype
    assert out.tolist() == values


def test_refusals_change_nothing():
    x = t.ones(2, requires_grad=True)
    t.manual_seed(1)
    expected = t.rand(3)
    t.manual_seed(1)
    with pytest.raises(NotImplementedError):
        t.rand(3, dtype=t.int64)
    assert t.equal(t.rand(3), expected)  # the generator did not move
    with pytest.raises(TypeError):
        t.full_like(x, "a")
    assert x.grad is None and x._version == 0
