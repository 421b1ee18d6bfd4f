"""Indexing follows PyTorch's rules where they differ from numpy's (issue 15 items 13, 15): an
int is a select done first, not an index array, so the dims of index arrays separated from
each other only by ints stay in place; masks and keys of the wrong kind get PyTorch's errors.
Shapes below were read off torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t

IDX = t.tensor([1, 0])
SHAPES = [  # (shape, key, PyTorch's result shape)
    ((2, 3, 4), (0, slice(None), IDX), (3, 2)),
    ((2, 3, 4), (IDX, slice(None), 0), (2, 3)),
    ((2, 3, 4), (IDX, slice(None), t.tensor([0, 1])), (2, 3)),
    ((2, 3, 4), (slice(None), IDX, 0), (2, 2)),
    ((2, 3, 4), (0, IDX), (2, 4)),
    ((2, 3, 4), (None, 0, slice(None), IDX), (1, 3, 2)),
    ((2, 3, 4), (0, None, IDX), (1, 2, 4)),
    ((2, 3, 4), (0, Ellipsis, IDX), (3, 2)),
    ((2, 3, 4, 5), (0, slice(None), IDX, 0), (3, 2)),
    ((2, 3, 4, 5), (slice(None), 0, slice(None), IDX), (2, 4, 2)),
    ((2, 3, 4, 5), (IDX, 0, IDX), (2, 5)),
    ((2, 3, 4), (0, slice(None), t.tensor([True, False, True, False])), (3, 2)),
    ((2, 3, 4), (t.tensor(1), slice(None), IDX), (3, 2)),
    ((2, 3, 4), (0, slice(None), [1, 0]), (3, 2)),
    ((2, 3, 4), (t.tensor([[1, 0]]), slice(None), 0), (1, 2, 3)),
]


def _select_then_index(a: np.ndarray, key: tuple) -> np.ndarray:
    """PyTorch's definition: the ints (and slices, None, ...) as a view, then the arrays."""
    basic, advanced = [], []
    for k in key:
        k = k.numpy() if isinstance(k, t.Tensor) and k.ndim else k
        k = k.item() if isinstance(k, t.Tensor) else k
        if isinstance(k, list | np.ndarray):
            k = np.asarray(k)
            basic += [slice(None)] * (k.ndim if k.dtype == bool else 1)
            advanced.append(k)
        elif isinstance(k, int):
            basic.append(k)
        elif k is Ellipsis:
            basic.append(k)
            advanced.append(k)
        else:
            basic.append(k)
            advanced.append(slice(None))
    return a[tuple(basic)][tuple(advanced)]


@pytest.mark.parametrize(("shape", "key", "expected"), SHAPES)
def test_mixed_basic_and_advanced_indexing_like_pytorch(shape, key, expected):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = t.tensor(a, dtype=t.float64, requires_grad=True)
    y = x[key]
    assert tuple(y.shape) == expected
    np.testing.assert_array_equal(y.detach().numpy(), _select_then_index(a, key))
    w = np.random.default_rng(0).standard_normal(expected)
    (y * t.tensor(w)).sum().backward()
    # the gradient scatters w back through the same selection
    reference = np.zeros(shape)
    flat = np.arange(reference.size).reshape(shape)
    positions = _select_then_index(flat, key)
    np.add.at(reference.reshape(-1), positions.reshape(-1), w.reshape(-1))
    np.testing.assert_array_equal(x.grad.numpy(), reference)


def test_mixed_index_records_a_select_then_an_index():
    x = t.zeros(2, 3, 4, requires_grad=True) * 1
    y = x[0, :, IDX]
    assert type(y.grad_fn).__name__ == "IndexBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "SelectBackward0"


def test_mixed_index_assignment_like_pytorch():
    values = t.arange(6.0).reshape(3, 2)
    w = t.zeros(2, 3, 4)
    w[0, :, IDX] = values
    expected = np.zeros((2, 3, 4))
    expected[0][:, [1, 0]] = values.numpy()
    np.testing.assert_array_equal(w.numpy(), expected)
    assert w._version == 1

    x = t.zeros(2, 3, 4, requires_grad=True)
    y = x * 1
    y[0, :, IDX] = values
    assert type(y.grad_fn).__name__ == "CopySlices"
    y.sum().backward()
    grad = np.ones((2, 3, 4))
    grad[0][:, [1, 0]] = 0.0
    np.testing.assert_array_equal(x.grad.numpy(), grad)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation.$"):
        x[0, :, IDX] = 1.0
    with pytest.raises(RuntimeError, match=r"^shape mismatch: value tensor of shape \[2, 3\] "
                                           r"cannot be broadcast to indexing result of shape "
                                           r"\[3, 2\]$"):
        w[0, :, IDX] = t.ones(2, 3)
    assert w._version == 1  # refused before anything changed


REFUSED = [
    (lambda x: x[t.tensor([True, False, True])], IndexError, "The shape of the mask [3] at "
     "index 0 does not match the shape of the indexed tensor [2, 3] at index 0"),
    (lambda x: x[t.tensor([[True, False]])], IndexError, "The shape of the mask [1, 2] at "
     "index 0 does not match the shape of the indexed tensor [2, 3] at index 0"),
    (lambda x: x[:, t.tensor([True, False])], IndexError, "The shape of the mask [2] at index 0 "
     "does not match the shape of the indexed tensor [2, 3] at index 1"),
    (lambda x: x[..., t.tensor([True, False])], IndexError, "The shape of the mask [2] at "
     "index 0 does not match the shape of the indexed tensor [2, 3] at index 1"),
    (lambda x: x.__setitem__(t.tensor([True, False, True]), 1.0), IndexError, "The shape of "
     "the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0"),
    (lambda x: x["a"], TypeError, "new(): invalid data type 'str'"),
    (lambda x: x[None, "a"], TypeError, "new(): invalid data type 'str'"),
    (lambda x: x[1.5], IndexError, "only integers, slices (`:`), ellipsis (`...`), None and "
     "long or byte Variables are valid indices (got float)"),
    (lambda x: x[{}], IndexError, "only integers, slices (`:`), ellipsis (`...`), None and "
     "long or byte Variables are valid indices (got dict)"),
    (lambda x: x.__setitem__(1.5, 0.0), IndexError, "only integers, slices (`:`), ellipsis "
     "(`...`), None and long or byte Variables are valid indices (got float)"),
    (lambda x: x[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
    # numpy reverses on a negative step; PyTorch refuses it (x.flip(0) reverses)
    (lambda x: x[::-1], ValueError, "step must be greater than zero"),
    (lambda x: x[:, 2:0:-1], ValueError, "step must be greater than zero"),
    (lambda x: x[..., ::np.int64(-2)], ValueError, "step must be greater than zero"),
    (lambda x: x[::0], ValueError, "slice step cannot be zero"),
    (lambda x: x.__setitem__(slice(None, None, -1), 1.0), ValueError,
     "step must be greater than zero"),
]


@pytest.mark.parametrize(("call", "kind", "message"), REFUSED)
def test_bad_keys_refused_like_pytorch(call, kind, message):
    x = t.zeros(2, 3)
    with pytest.raises(kind) as caught:
        call(x)
    assert type(caught.value) is kind and str(caught.value) == message
    assert x._version == 0 and not x.any()
