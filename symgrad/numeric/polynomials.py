"""The classical orthogonal polynomials of ``torch.special``, evaluated in float64 by their
three-term recurrences: Chebyshev ``T``, ``U``, ``V``, ``W`` (and their shifted forms, of
``2x - 1``), Hermite ``H`` (physicists') and ``He`` (probabilists'), Laguerre ``L`` and
Legendre ``P``. As in PyTorch, the degree ``n`` is truncated to an integer, a negative (or nan)
degree gives 0, and inside ``(-1, 1)`` the Chebyshev polynomials of higher degree come from
their trigonometric forms (``T_n(cos θ) = cos nθ``, ``U_n = sin((n+1)θ) / sin θ``, ``V_n =
cos((n+½)θ) / cos(θ/2)``, ``W_n = sin((n+½)θ) / sin(θ/2)``), which take any degree at once.

>>> evaluate("chebyshev_polynomial_t", np.array([0.5, 2.0]), np.array([3.0, 3.0])).tolist()
[-1.0, 26.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

# name -> (the argument's map, P_0... first two members from x, the recurrence's step, the
# degree above which the trigonometric form is used inside (-1, 1): PyTorch's choices)
_CHEBYSHEV_FIRST = {"t": lambda x: x, "u": lambda x: 2 * x, "v": lambda x: 2 * x - 1,
                    "w": lambda x: 2 * x + 1}
_TRIG_ABOVE = {"chebyshev_polynomial_t": 6, "chebyshev_polynomial_u": 8,
               "chebyshev_polynomial_v": 8, "chebyshev_polynomial_w": 8,
               "shifted_chebyshev_polynomial_t": 6, "shifted_chebyshev_polynomial_u": 6,
               "shifted_chebyshev_polynomial_v": 6, "shifted_chebyshev_polynomial_w": 4}
NAMES = tuple(_TRIG_ABOVE) + ("hermite_polynomial_h", "hermite_polynomial_he",
                              "laguerre_polynomial_l", "legendre_polynomial_p")


def _first(name: str, x: np.ndarray) -> np.ndarray:
    """P_1(x)."""
    if "chebyshev" in name:
        return _CHEBYSHEV_FIRST[name[-1]](x)
    return {"hermite_polynomial_h": 2 * x, "hermite_polynomial_he": x,
            "laguerre_polynomial_l": 1 - x, "legendre_polynomial_p": x}[name]


def _step(name: str, x: np.ndarray, k: int, here: np.ndarray, before: np.ndarray) -> np.ndarray:
    """P_(k+1) from P_k (``here``) and P_(k-1) (``before``)."""
    if "chebyshev" in name:
        return 2 * x * here - before
    if name == "hermite_polynomial_h":
        return 2 * x * here - 2 * k * before
    if name == "hermite_polynomial_he":
        return x * here - k * before
    if name == "laguerre_polynomial_l":
        return ((2 * k + 1 - x) * here - k * before) / (k + 1)
    return ((2 * k + 1) * x * here - k * before) / (k + 1)  # Legendre


def _trigonometric(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    theta = np.arccos(x)
    if kind == "t":
        return np.cos(n * theta)
    if kind == "u":
        return np.sin((n + 1) * theta) / np.sin(theta)
    if kind == "v":
        return np.cos((n + 0.5) * theta) / np.cos(theta / 2)
    return np.sin((n + 0.5) * theta) / np.sin(theta / 2)


def evaluate(name: str, x: Any, n: Any) -> np.ndarray:
    """The polynomial ``name`` (PyTorch's function name) of degree ``n`` at ``x``, broadcast,
    in float64."""
    x, n = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64))
    if name.startswith("shifted_"):
        x = 2 * x - 1
    with np.errstate(all="ignore"):
        degree = np.where(np.isnan(n) | (n < 0), -1.0, np.trunc(n))
        inside = np.zeros(x.shape, dtype=bool)
        trig = np.zeros_like(x)
        if name in _TRIG_ABOVE:
            inside = (np.abs(x) < 1) & (degree > _TRIG_ABOVE[name])
            trig = _trigonometric(name[-1], np.where(inside, x, 0.0), np.where(inside, degree, 0))
        out = np.where(degree == 0, 1.0, 0.0)
        here, before = _first(name, x), np.ones_like(x)
        out = np.where(degree == 1, here, out)
        top = int(degree[~inside].max(initial=0.0))
        for k in range(1, top):
            here, before = _step(name, x, k, here, before), here
            out = np.where(degree == k + 1, here, out)
        out = np.where(inside, trig, out)
    return out
