"""PyTorch's window functions (see ``symgrad.torch_api``): ``hann_window``,
``hamming_window``, ``blackman_window``, ``bartlett_window`` and ``kaiser_window``.

Each is a factory, not recorded: ``window_length`` values of a cosine sum (or a triangle, or
a Bessel ratio for Kaiser's) over the period ``window_length`` (``periodic=True``, the default:
the window for spectral analysis) or ``window_length - 1`` (a symmetric window, for filter
design). Computed in float64 and rounded to ``dtype`` (the default floating dtype), where
PyTorch computes in ``dtype``: float32 values can differ from PyTorch's in the last few bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation, parser
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor
from symgrad.torch_api.declaration import NO_GRAPH, torch_api


def _window(fn: str, window_length: Any, periodic: Any, dtype: Any, requires_grad: Any,
            device: Any, shape: Any) -> Tensor:
    """The window of ``shape(positions, period)`` values, after PyTorch's checks."""
    if not parser._is_int(window_length):
        raise parser.wrong_type(fn, "window_length", "int", window_length, 1)
    parser.bool_arg(fn, "periodic", periodic)
    dtype = parser.dtype_arg(fn, dtype)
    parser.bool_arg(fn, "requires_grad", requires_grad)
    length = int(window_length)
    if length < 0:
        raise RuntimeError(f"{fn} requires non-negative window_length, got "
                           f"window_length={length}")
    target = dtype if dtype is not None else dtypes.get_default_dtype()
    if not target.is_floating_point:  # (PyTorch prints the factory's options)
        flag = "true" if requires_grad else "false (default)"
        raise RuntimeError(f"{fn} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{target._cpp_name}, device=cpu, layout=Strided (default), "
                           f"requires_grad={flag}, pinned_memory=false, "
                           "memory_format=(nullopt))")
    if length <= 1:
        values = np.ones(length)
    else:
        period = length if periodic else length - 1
        values = shape(np.arange(length, dtype=np.float64), period)
    return creation._finish(values.astype(target.np_dtype), requires_grad, None, device)


def _cosine_sum(*weights: float) -> Any:
    """``w0 - w1 cos(2πn/N) + w2 cos(4πn/N) - ...``: the windows of Hann, Hamming, Blackman
    (summed from the last term, as PyTorch sums: Blackman's ends are exactly 0)."""
    def shape(n: np.ndarray, period: int) -> np.ndarray:
        total = np.zeros_like(n)
        for k in range(len(weights) - 1, 0, -1):
            total += (-1) ** k * weights[k] * np.cos(2 * np.pi * k * n / period)
        return total + weights[0]
    return shape


@torch_api(NO_GRAPH, method=False)
def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                device: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """Hann's window: ``0.5 - 0.5 cos(2πn / N)``, N the period (``window_length``, or one less
    when not ``periodic``).

    >>> symgrad.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    >>> symgrad.hann_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device,
                   _cosine_sum(0.5, 0.5))


@torch_api(NO_GRAPH, method=False)
def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, device: Any = None,
                   requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """Hamming's window: ``alpha - beta cos(2πn / N)``.

    >>> symgrad.hamming_window(4)
    tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """
    alpha = parser.number_arg("hamming_window", "alpha", alpha, 3, "float")
    beta = parser.number_arg("hamming_window", "beta", beta, 4, "float")
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device,
                   _cosine_sum(alpha, beta))


@torch_api(NO_GRAPH, method=False)
def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """Blackman's window: ``0.42 - 0.5 cos(2πn / N) + 0.08 cos(4πn / N)``.

    >>> symgrad.blackman_window(4)
    tensor([0.0000, 0.3400, 1.0000, 0.3400])
    """
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device,
                   _cosine_sum(0.42, 0.5, 0.08))


@torch_api(NO_GRAPH, method=False)
def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """Bartlett's (triangular) window: ``1 - |2n / N - 1|``.

    >>> symgrad.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device,
                   lambda n, period: 1 - np.abs(2 * n / period - 1))


@torch_api(NO_GRAPH, method=False)
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  **kwargs: Any) -> Tensor:
    """Kaiser's window: ``I0(beta √(1 - (2n / N - 1)²)) / I0(beta)``, I0 the modified Bessel
    function of order zero.

    >>> symgrad.kaiser_window(5, periodic=False, beta=8.0, dtype=symgrad.float64)
    tensor([0.0023, 0.3690, 1.0000, 0.3690, 0.0023], dtype=symgrad.float64)
    """
    beta = parser.number_arg("kaiser_window", "beta", beta, 3, "float")
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device,
                   lambda n, period: np.i0(beta * np.sqrt(np.clip(
                       1 - (2 * n / period - 1) ** 2, 0, None))) / np.i0(beta))
