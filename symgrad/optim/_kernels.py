"""PyTorch's CPU in-place update kernels on numpy arrays, rounding as they round.

For float32, PyTorch's ``add_(b, alpha=a)``, ``addcmul_`` and ``lerp_`` use a fused
multiply-add (one rounding of ``x + y·z``); numpy has no FMA, so these compute in float64 —
exact for a product of two float32 numbers — and round once to float32. ``addcdiv_`` is
``self + (value·t1)/t2`` with each step rounded, as PyTorch's kernel does. Scalars are first
rounded to the tensor's dtype, as PyTorch converts them. Float64 tensors use plain numpy
arithmetic (no FMA emulation).
"""

from __future__ import annotations

import numpy as np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _fma(a: np.ndarray, x: np.ndarray | np.floating, y: np.ndarray | np.floating) -> None:
    """``a = a + x·y`` rounded once (float32), in place."""
    if a.dtype == _F32:
        exact = a.astype(_F64)
        exact += np.asarray(x, dtype=_F64) * np.asarray(y, dtype=_F64)
        np.copyto(a, exact, casting="same_kind")
    else:
        a += x * y


def add_(a: np.ndarray, b: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """``a.add_(b, alpha=alpha)``."""
    if alpha == 1:
        a += b
    else:
        _fma(a, a.dtype.type(alpha), b)
    return a


def add(a: np.ndarray, b: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """``a.add(b, alpha=alpha)`` (a new array)."""
    return add_(a.copy(), b, alpha)


def mul_(a: np.ndarray, s: float) -> np.ndarray:
    """``a.mul_(s)``."""
    a *= a.dtype.type(s)
    return a


def lerp_(a: np.ndarray, b: np.ndarray, weight: float) -> np.ndarray:
    """``a.lerp_(b, weight)``: ``a + w·(b - a)`` for w < 0.5, else ``b - (b - a)·(1 - w)``."""
    diff = b - a
    w = a.dtype.type(weight)
    if abs(weight) < 0.5:
        _fma(a, w, diff)
    else:
        np.copyto(a, b)
        _fma(a, -diff, a.dtype.type(1) - w)
    return a


def addcmul_(a: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1.0) -> np.ndarray:
    """``a.addcmul_(t1, t2, value=value)``: ``a + (value·t1)·t2``, the last step fused."""
    _fma(a, a.dtype.type(value) * t1, t2)
    return a


def addcdiv_(a: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1.0) -> np.ndarray:
    """``a.addcdiv_(t1, t2, value=value)``: ``a + (value·t1)/t2``."""
    a += (a.dtype.type(value) * t1) / t2
    return a


def div(a: np.ndarray, s: float) -> np.ndarray:
    """``a / s`` for a Python number ``s``."""
    return a / a.dtype.type(s)
