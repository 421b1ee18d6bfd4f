"""The Hurwitz zeta function ``ζ(x, q) = Σ_(k>=0) (k + q)^-x`` (PyTorch's ``special.zeta``),
written from the Euler-Maclaurin formula: the first terms summed until ``q + n >= 10`` (at least
ten of them), then ``a = q + n`` and the tail ``a^(1-x)/(x-1) + a^-x/2 + Σ_j B_2j/(2j)! x(x+1)...
(x+2j-2) a^(-x-2j+1)``. The edge values are PyTorch's: inf at ``x = 1`` and at the poles ``q =
0, -1, -2 ...``, nan for ``x < 1`` and for a negative non-integer ``q`` with a non-integer
``x``; for ``x = inf`` only ``q <= 1`` has a value (1 at ``q = 1``, inf below) and a finite
``x`` with ``q = inf`` is nan, as in PyTorch.

>>> zeta(np.array([2.0, 3.0]), np.array([1.0, 2.0])).round(6).tolist()
[1.644934, 0.202057]
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, factorial
from typing import Any

import numpy as np


def _bernoulli_over_factorial(count: int) -> list[float]:
    """``B_2j / (2j)!`` for ``j = 1 .. count``, from ``Σ_(k<m) C(m+1, k) B_k = -(m+1) B_m``."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b.append(-sum((comb(m + 1, k) * b[k] for k in range(m)), Fraction(0)) / (m + 1))
    return [float(b[2 * j] / factorial(2 * j)) for j in range(1, count + 1)]


_TAIL = _bernoulli_over_factorial(14)
_START = 10.0


def zeta(x: Any, q: Any) -> np.ndarray:
    """``ζ(x, q)`` elementwise, broadcast, in the common floating dtype of ``x`` and ``q``
    (float64 for integers), computed in float64."""
    x, q = np.asarray(x), np.asarray(q)
    dtype = np.result_type(x, q)
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    s, q = np.broadcast_arrays(x.astype(np.float64), q.astype(np.float64))
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        undefined = (s < 1) | (q < 0) & ~pole & (s != np.floor(s)) | (q == np.inf)
        ok = ~pole & ~undefined & (s != 1) & np.isfinite(s) & ~np.isnan(q)  # (s nan: no)
        s0, q0 = np.where(ok, s, 2.0), np.where(ok, q, 1.0)
        # the first terms: n = max(10, ceil(10 - q)) of them
        count = np.maximum(_START, np.ceil(_START - q0))
        total = np.zeros_like(s0)
        a = q0.copy()
        for k in range(int(count.max(initial=_START))):
            total = total + np.where(k < count, a ** -s0, 0.0)
            a = np.where(k < count, a + 1.0, a)
        tail = a ** (1.0 - s0) / (s0 - 1.0) + 0.5 * a ** -s0
        rising, power = s0, a ** (-s0 - 1.0)
        for j, c in enumerate(_TAIL):
            tail = tail + c * rising * power
            rising = rising * (s0 + 2 * j + 1) * (s0 + 2 * j + 2)
            power = power / (a * a)
        out = total + tail
        # PyTorch's order: x = 1, x < 1, the poles, a negative q with a non-integer x, nan;
        # x = inf leaves the terms (q + k)^-x with |q + k| <= 1: 1 at q = 1, inf below (a
        # term with |q + k| < 1), nan above (0/0 in PyTorch's kernel)
        infinite = np.where(q == 1, 1.0, np.where(q < 1, np.inf, np.nan))
        out = np.where(ok, out, np.where(s == np.inf, infinite, np.nan))
        out = np.where((s < 1) | (q < 0) & ~pole & (s != np.floor(s)), np.nan,
                       np.where(pole, np.inf, out))
        out = np.where(s == 1, np.inf, out)
    return np.asarray(out, dtype=dtype)
