"""The numeric array namespace: the numpy subset that op rules are written against.

Op forwards and VJPs call ``xp.exp``, ``xp.matmul``, ``xp.sum_to_shape`` ... and never import
numpy themselves, so the same rules run here on float arrays, in ``symgrad.autograd.differentiable``
on Tensors (for ``create_graph=True``) and in ``symgrad.symbolic`` on sympy object arrays.
"""

from __future__ import annotations

import math

import numpy as np
from numpy import (  # noqa: F401 - re-exported as the namespace
    abs,
    broadcast_to,
    cos,
    exp,
    full_like,
    log,
    matmul,
    sign,
    sin,
    sqrt,
    tanh,
    where,
    zeros_like,
)

# numpy's function spellings of the array methods below cost about a microsecond of Python
# dispatch each; the methods themselves do not, and the engine calls these on every node.


def sum(a: np.ndarray, axis: tuple[int, ...] | None = None,  # noqa: A001 - numpy's name
        keepdims: bool = False) -> np.ndarray:
    """``numpy.sum`` through the array method."""
    return a.sum(axis=axis, keepdims=keepdims)


def mean(a: np.ndarray, axis: tuple[int, ...] | None = None,
         keepdims: bool = False) -> np.ndarray:
    """``numpy.mean`` as sum / count (numpy's own mean has several microseconds of overhead)."""
    count = a.size if axis is None else math.prod(a.shape[d] for d in axis)
    return a.sum(axis=axis, keepdims=keepdims) / count


def reshape(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``numpy.reshape`` through the array method."""
    return a.reshape(shape)


def swapaxes(a: np.ndarray, axis1: int, axis2: int) -> np.ndarray:
    """``numpy.swapaxes`` through the array method."""
    return a.swapaxes(axis1, axis2)


def transpose(a: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
    """``numpy.transpose`` through the array method."""
    return a.transpose(axes)


def squeeze(a: np.ndarray, axis: int | tuple[int, ...] | None = None) -> np.ndarray:
    """``numpy.squeeze`` through the array method."""
    return a.squeeze(axis)


def expand_dims(a: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    """``numpy.expand_dims`` as a reshape."""
    axes = (axis,) if isinstance(axis, int) else axis
    ndim = a.ndim + len(axes)
    shape = list(a.shape)
    for d in sorted(x % ndim for x in axes):
        shape.insert(d, 1)
    return a.reshape(shape)


def spread(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``g`` broadcast to ``shape`` as a new array: a reduction's VJP (``broadcast_to`` would
    give a read-only view, but through numpy's slower Python wrapper)."""
    out = np.empty(shape, dtype=g.dtype)
    out[...] = g
    return out


def astype(a: np.ndarray, dtype: str | None) -> np.ndarray:
    """A copy of ``a`` converted to the dtype named ``dtype`` (its own dtype when None)."""
    return a.astype(dtype if dtype is not None else a.dtype, copy=True)


def scalar_log(c: float) -> float:
    """Natural log of a Python scalar (nan for negatives, as numpy; exact when symbolic)."""
    return math.log(c) if c > 0 else (-math.inf if c == 0 else math.nan)


def sigmoid(a: np.ndarray) -> np.ndarray:
    """Logistic function, computed without overflow for large negative inputs."""
    out = np.exp(-np.logaddexp(0, -a))
    return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out


def relu(a: np.ndarray) -> np.ndarray:
    """max(a, 0), keeping the dtype."""
    return np.maximum(a, 0)


def sum_to_shape(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast gradient back to ``shape``: the one rule for broadcasting's VJP."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))  # a fresh array: no reshape (view) needed after
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


def index_backward(g: np.ndarray, shape: tuple[int, ...], key: object) -> np.ndarray:
    """Scatter ``g`` into zeros of ``shape`` at ``key``, adding where indices repeat."""
    out = np.zeros(shape, dtype=g.dtype)
    if is_basic_index(key):
        out[key] = g
    else:
        np.add.at(out, key, g)
    return out


def index_put(a: np.ndarray, key: object, value: object) -> np.ndarray:
    """A copy of ``a`` with ``a[key] = value``."""
    out = np.array(a, copy=True)
    out[key] = value
    return out


def is_basic_index(key: object) -> bool:
    """Whether ``key`` holds only ints, slices, None and ``...`` (numpy returns a view)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(p is None or p is Ellipsis or isinstance(p, int | slice) for p in parts)
