"""The differentiable array namespace: the names of ``symgrad.numeric.namespace`` on Tensors.

With ``create_graph=True`` the engine runs the very same VJP rules with this namespace, so the
gradients it computes are themselves recorded and can be differentiated again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import ops
from symgrad.dispatch import apply_op
from symgrad.tensor import Tensor, _make


def _t(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else _make(np.asarray(x))


def exp(a: Tensor) -> Tensor:
    return a.exp()


def log(a: Tensor) -> Tensor:
    return a.log()


def sin(a: Tensor) -> Tensor:
    return a.sin()


def cos(a: Tensor) -> Tensor:
    return a.cos()


def sqrt(a: Tensor) -> Tensor:
    return a.sqrt()


def tanh(a: Tensor) -> Tensor:
    return a.tanh()


def sigmoid(a: Tensor) -> Tensor:
    return a.sigmoid()


def abs(a: Tensor) -> Tensor:  # noqa: A001 - numpy's name
    return a.abs()


def relu(a: Tensor) -> Tensor:
    return a.relu()


def mean(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    return a.mean(axis, keepdims)


def sign(a: Tensor) -> Tensor:
    """Elementwise sign, recorded (its gradient is zero) so that higher orders stay connected."""
    return a.sign()


def zeros_like(a: Tensor) -> Tensor:
    """Zeros outside the graph: a gradient that is identically zero, as PyTorch returns it."""
    return _make(np.zeros_like(_t(a)._value))


def where(condition: Any, a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.where, _t(condition), a, b)


def scalar_log(c: float) -> float:
    return math.log(c) if c > 0 else (-math.inf if c == 0 else math.nan)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    return apply_op(ops.linalg.matmul, a, b)


def swapaxes(a: Tensor, axis1: int, axis2: int) -> Tensor:
    return a.transpose(axis1, axis2)


def transpose(a: Tensor, axes: Sequence[int] | None = None) -> Tensor:
    if axes is None:
        return a.permute(*reversed(range(a.ndim)))
    return a.permute(*axes)


def reshape(a: Tensor, shape: Sequence[int]) -> Tensor:
    return a.reshape(tuple(shape))


def expand_dims(a: Tensor, axis: int | Sequence[int]) -> Tensor:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    shape = list(a.shape)
    for d in sorted(x % (len(shape) + len(axes)) for x in axes):
        shape.insert(d, 1)
    return a.reshape(tuple(shape))


def squeeze(a: Tensor, axis: int | None = None) -> Tensor:
    return a.squeeze(axis)


def broadcast_to(a: Tensor, shape: Sequence[int]) -> Tensor:
    return _t(a).expand(tuple(shape))


def sum(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return a.sum(axis, keepdims)


def spread(g: Tensor, shape: Sequence[int]) -> Tensor:
    return _t(g).expand(tuple(shape))


def sum_to_shape(g: Tensor, shape: Sequence[int]) -> Tensor:
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and g.shape[lead + i] != 1)
    out = g.sum(axes, keepdim=True) if axes else g
    return out.reshape(shape) if lead or out.shape != shape else out


def index_backward(g: Tensor, shape: Sequence[int], key: Any) -> Tensor:
    return apply_op(ops.shape.index_backward, g, shape=tuple(shape), key=key)


def index_put(a: Tensor, key: Any, value: Any) -> Tensor:
    return apply_op(ops.shape.setitem, a, value, key=key)


def full_like(a: Tensor, value: float) -> Tensor:
    return _make(np.full_like(_t(a)._value, value))


def astype(a: Tensor, dtype: str | None) -> Tensor:
    return apply_op(ops.elementwise.to_dtype, a, dtype=dtype or a._value.dtype.name)
