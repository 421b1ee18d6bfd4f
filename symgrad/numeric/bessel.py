"""Numeric kernels of the Bessel family and ``erfcx``, written from their series, asymptotic
expansions, recurrences and integral representations (numpy has none). Each computes in float64
and returns ``a``'s floating dtype (float64 for an integer or bool ``a``); the edge values (inf,
nan, negative arguments) are PyTorch's, quirks included: ``i0`` and ``i1`` are nan at ±inf.

- ``I0``, ``I1`` (and ``e^-|x|`` times them): the power series up to ``|x| = 30``, the
  asymptotic expansion of ``e^-x I(x)`` beyond;
- ``K0``, ``K1`` (and ``e^x`` times them): the power series below ``x = 1``, beyond it the
  trapezoidal rule on ``e^x K(x) = ∫ e^(-x (cosh t - 1)) cosh(ν t) dt`` (a positive integrand
  decaying double-exponentially, for which the rule converges geometrically);
- ``J0``, ``J1``, ``Y0``, ``Y1``: the power series below ``x = 2``, Miller's backward
  recurrence (with Neumann's series for ``Y``) up to ``x = 25``, Hankel's asymptotic expansion
  beyond, its phase ``x - π/4`` taken through ``sin x`` and ``cos x`` of the exact argument;
- ``erfcx(x) = e^(x²) erfc(x)``: ``e^(x²)`` with ``x²`` split exactly into two parts, times
  ``erfc``, and Laplace's continued fraction from ``x = 5``.

>>> i0(np.array([0.0, 1.0])).round(6).tolist()
[1.0, 1.266066]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_EULER = 0.5772156649015329
_TWO_OVER_PI = 2 / math.pi
_TERMS = 64  # series terms: enough for |x| <= 30 (the last term is below 1e-20 of the sum)


def _float(a: Any) -> tuple[np.ndarray, np.dtype]:
    """``a`` in float64, and the dtype of the result."""
    a = np.asarray(a)
    dtype = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    return a.astype(np.float64), dtype


def _done(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    with np.errstate(over="ignore"):  # (a float64 value beyond float32's range is inf there)
        return np.asarray(out, dtype=dtype)


def _asymptotic_coefficients(nu: int, count: int) -> list[float]:
    """``a_k(ν) = (4ν² - 1)(4ν² - 9) ... (4ν² - (2k - 1)²) / (k! 8^k)``, k < count."""
    mu = 4.0 * nu * nu
    out, term = [1.0], 1.0
    for k in range(1, count):
        term *= (mu - (2 * k - 1) ** 2) / (k * 8.0)
        out.append(term)
    return out


# ---------------------------------------------------------------- I0, I1
_LOG_MAX_64 = math.log(float(np.finfo(np.float64).max))
_LOG_MAX_32 = math.log(float(np.finfo(np.float32).max))
_I_ASYMPTOTIC = {nu: _asymptotic_coefficients(nu, 40) for nu in (0, 1)}


def _i_series(nu: int, x: np.ndarray) -> np.ndarray:
    """``Σ (x/2)^(2k + ν) / (k! (k + ν)!)`` (all terms positive in ``x²``)."""
    q = x * x / 4
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, _TERMS):
        term = term * q / (k * (k + nu))
        total = total + term
    return total if nu == 0 else total * (x / 2)


def _i_scaled_large(nu: int, x: np.ndarray) -> np.ndarray:
    """``e^-x I_ν(x) ~ Σ (-1)^k a_k(ν) / x^k / √(2πx)`` for ``x >= 30``."""
    total = np.zeros_like(x)
    for c in reversed(_I_ASYMPTOTIC[nu]):
        total = -total / x + c
    return total / np.sqrt(2 * math.pi * x)


def _modified_i(nu: int, a: Any, scaled: bool) -> np.ndarray:
    x, dtype = _float(a)
    ax = np.abs(x)
    small = ax <= 30
    with np.errstate(all="ignore"):
        near = _i_series(nu, np.where(small, x, 0.0))
        if scaled:
            near = near * np.exp(-ax)
        far = _i_scaled_large(nu, np.where(small, 30.0, ax))
        if nu == 1:
            far = np.copysign(far, x)
        if not scaled:  # e^x I(x), without overflow of e^x before the product
            half = np.exp(ax / 2)
            far = far * half * half
        out = np.where(small, near, far)
        if nu == 1:  # (+0 at -0, as PyTorch's)
            out = np.where(x == 0, 0.0, out)
        if not scaled:  # inf where PyTorch's e^x overflows (in float32 for float32 and half)
            top = _LOG_MAX_64 if dtype == np.float64 else _LOG_MAX_32
            out = np.where(ax > top, np.copysign(np.inf, x) if nu == 1 else np.inf, out)
            out = np.where(np.isinf(x), np.nan, out)  # (PyTorch's, where e^x / √x is inf/inf)
        if scaled:
            out = np.where(np.isinf(x), np.copysign(0.0, x) if nu == 1 else 0.0, out)
    return _done(out, dtype)


def i0(a: Any) -> np.ndarray:
    """The modified Bessel function ``I0`` elementwise (nan at ±inf, as PyTorch)."""
    return _modified_i(0, a, scaled=False)


def i1(a: Any) -> np.ndarray:
    """The modified Bessel function ``I1`` elementwise (nan at ±inf, as PyTorch)."""
    return _modified_i(1, a, scaled=False)


def i0e(a: Any) -> np.ndarray:
    """``e^-|x| I0(x)`` elementwise."""
    return _modified_i(0, a, scaled=True)


def i1e(a: Any) -> np.ndarray:
    """``e^-|x| I1(x)`` elementwise."""
    return _modified_i(1, a, scaled=True)


# ---------------------------------------------------------------- K0, K1
_K_NODES = 72


def _k_series(nu: int, x: np.ndarray) -> np.ndarray:
    """K0 and K1 from their power series (for ``0 < x <= 1``).

    ``K0 = -(log(x/2) + γ) I0 + Σ H_k q^k / k!²`` and ``K1 = 1/x + (log(x/2) + γ) I1 -
    (x/4) Σ (H_k + H_(k+1)) q^k / (k! (k+1)!)``, ``q = x²/4``, ``H_k`` the harmonic numbers.
    """
    q = x * x / 4
    front = np.log(x / 2) + _EULER
    term = np.ones_like(x)  # q^k / (k! (k + ν)!)
    harmonic = 0.0
    total = np.zeros_like(x) if nu == 0 else np.ones_like(x)  # (H_0 + H_1) = 1 for ν = 1
    for k in range(1, 30):
        term = term * q / (k * (k + nu))
        harmonic += 1.0 / k
        total = total + term * (harmonic if nu == 0 else 2 * harmonic + 1.0 / (k + 1))
    if nu == 0:
        return -front * _i_series(0, x) + total
    return 1 / x + front * _i_series(1, x) - x / 4 * total


def _k_scaled_integral(nu: float, x: np.ndarray) -> np.ndarray:
    """``e^x K_ν(x) = ∫_0^∞ e^(-2x sinh²(t/2)) cosh(ν t) dt`` by the trapezoidal rule, ``x >= 1``:
    the nodes reach ``t`` where the integrand is below ``e^-45``."""
    h = np.arccosh(1 + 45 / x) / _K_NODES
    total = 0.5 * np.ones_like(x)
    for j in range(1, _K_NODES + 1):
        t = j * h
        s = np.sinh(t / 2)
        f = np.exp(-2 * x * s * s)
        total = total + (f if nu == 0 else f * np.cosh(nu * t))
    return total * h


def _modified_k(nu: int, a: Any, scaled: bool) -> np.ndarray:
    x, dtype = _float(a)
    small = (x > 0) & (x <= 1)
    large = x > 1
    with np.errstate(all="ignore"):
        near = _k_series(nu, np.where(small, x, 0.5))
        if scaled:
            near = near * np.exp(x)
        xl = np.where(large & np.isfinite(x), x, 2.0)
        far = _k_scaled_integral(nu, xl)
        if not scaled:
            far = far * np.exp(-xl)
        out = np.where(small, near, np.where(large, far, np.nan))
        out = np.where(x == 0, np.inf, np.where(x == np.inf, 0.0, out))
    return _done(out, dtype)


def k0(a: Any) -> np.ndarray:
    """The modified Bessel function ``K0`` elementwise: inf at 0, nan below."""
    return _modified_k(0, a, scaled=False)


def k1(a: Any) -> np.ndarray:
    """The modified Bessel function ``K1`` elementwise: inf at 0, nan below."""
    return _modified_k(1, a, scaled=False)


def k0e(a: Any) -> np.ndarray:
    """``e^x K0(x)`` elementwise."""
    return _modified_k(0, a, scaled=True)


def k1e(a: Any) -> np.ndarray:
    """``e^x K1(x)`` elementwise."""
    return _modified_k(1, a, scaled=True)


# ---------------------------------------------------------------- J0, J1, Y0, Y1
def _j_series(nu: int, x: np.ndarray) -> np.ndarray:
    """``Σ (-1)^k (x/2)^(2k + ν) / (k! (k + ν)!)`` (for ``|x| <= 2``)."""
    q = -x * x / 4
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, 24):
        term = term * q / (k * (k + nu))
        total = total + term
    return total if nu == 0 else total * (x / 2)


def _y_series(nu: int, x: np.ndarray) -> np.ndarray:
    """Y0, Y1 from their power series (for ``0 < x <= 2``).

    ``Y0 = (2/π) ((log(x/2) + γ) J0 + Σ (-1)^(k+1) H_k q^k / k!²)``, ``Y1 = -2/(πx) +
    (2/π) (log(x/2) + γ) J1 - (x/(2π)) Σ (-1)^k (H_k + H_(k+1)) q^k / (k! (k+1)!)``.
    """
    q = -x * x / 4
    front = np.log(x / 2) + _EULER
    term = np.ones_like(x)
    harmonic = 0.0
    total = np.zeros_like(x) if nu == 0 else np.ones_like(x)  # (H_0 + H_1) = 1 for ν = 1
    for k in range(1, 24):
        term = term * q / (k * (k + nu))
        harmonic += 1.0 / k
        total = total + term * (harmonic if nu == 0 else 2 * harmonic + 1.0 / (k + 1))
    if nu == 0:
        return _TWO_OVER_PI * (front * _j_series(0, x) - total)
    return -_TWO_OVER_PI / x + _TWO_OVER_PI * front * _j_series(1, x) - x / (2 * math.pi) * total


def _miller(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """J0, J1, Y0, Y1 for ``2 <= x <= 25`` by Miller's backward recurrence
    ``J_(k-1) = (2k/x) J_k - J_(k+1)``, normalized by ``J0 + 2 Σ J_2k = 1``, with Neumann's
    series ``Y0 = (2/π) ((log(x/2) + γ) J0 - 2 Σ (-1)^k J_2k / k)`` and its derivative
    ``Y1 = (2/π) ((log(x/2) + γ) J1 - J0/x + Σ (-1)^k (J_(2k-1) - J_(2k+1)) / k)``."""
    top = 2 * (int(np.max(x, initial=2.0)) // 2) + 40
    above = np.zeros_like(x)  # J_(k+1), unnormalized
    here = np.full_like(x, 1e-30)  # J_k
    norm = np.zeros_like(x)  # 2 Σ J_2k (k >= 1)
    y0_sum = np.zeros_like(x)  # Σ (-1)^k J_2k / k
    y1_sum = np.zeros_like(x)  # Σ (-1)^k (J_(2k-1) - J_(2k+1)) / k
    j1 = np.zeros_like(x)
    k = top
    while k > 0:
        below = (2 * k / x) * here - above  # J_(k-1)
        if k % 2 == 0:  # here is J_k, k = 2m
            m = k // 2
            sign = 1.0 if m % 2 == 0 else -1.0
            norm = norm + 2 * here
            y0_sum = y0_sum + sign * here / m
            y1_sum = y1_sum + sign * (below - above) / m
        if k == 1:
            j1 = here
        above, here = here, below
        k -= 1
        big = np.abs(here) > 1e250
        if big.any():
            scale = np.where(big, 1e-250, 1.0)
            above, here, norm = above * scale, here * scale, norm * scale
            y0_sum, y1_sum, j1 = y0_sum * scale, y1_sum * scale, j1 * scale
    total = here + norm  # J0 + 2 Σ J_2k, unnormalized
    j0, j1 = here / total, j1 / total
    front = np.log(x / 2) + _EULER
    y0 = _TWO_OVER_PI * (front * j0 - 2 * y0_sum / total)
    y1 = _TWO_OVER_PI * (front * j1 - j0 / x + y1_sum / total)
    return j0, j1, y0, y1


_HANKEL = {nu: _asymptotic_coefficients(nu, 36) for nu in (0, 1)}


def _hankel(nu: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """J_ν, Y_ν for ``x > 25``: ``√(2/(πx)) (P cos χ - Q sin χ)`` and ``(P sin χ + Q cos χ)``,
    ``χ = x - (2ν + 1) π/4``, ``P = Σ (-1)^k a_2k / x^2k``, ``Q = Σ (-1)^k a_(2k+1) /
    x^(2k+1)``."""
    c = _HANKEL[nu]
    z = 1 / (x * x)
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    for k in range(len(c) // 2 - 1, -1, -1):
        p = -p * z + c[2 * k]
        q = -q * z + c[2 * k + 1]
    q = q / x
    s, co = np.sin(x), np.cos(x)
    if nu == 0:  # χ = x - π/4
        cos_chi, sin_chi = (co + s) / math.sqrt(2), (s - co) / math.sqrt(2)
    else:  # χ = x - 3π/4
        cos_chi, sin_chi = (s - co) / math.sqrt(2), -(s + co) / math.sqrt(2)
    front = np.sqrt(_TWO_OVER_PI / x)
    return front * (p * cos_chi - q * sin_chi), front * (p * sin_chi + q * cos_chi)


def _bessel(a: Any, which: str) -> np.ndarray:
    x, dtype = _float(a)
    odd = which == "j1"
    ax = np.abs(x) if which in ("j0", "j1") else x
    small = (np.abs(ax) <= 2) if which in ("j0", "j1") else (ax > 0) & (ax <= 2)
    middle = (ax > 2) & (ax <= 25)
    large = (ax > 25) & np.isfinite(ax)
    nu = 0 if which in ("j0", "y0") else 1
    with np.errstate(all="ignore"):
        xs = np.where(small, ax, 1.0)
        near = (_j_series if which[0] == "j" else _y_series)(nu, xs)
        j0, j1, y0, y1 = _miller(np.where(middle, ax, 5.0))
        mid = {"j0": j0, "j1": j1, "y0": y0, "y1": y1}[which]
        jl, yl = _hankel(nu, np.where(large, ax, 30.0))
        far = jl if which[0] == "j" else yl
        out = np.where(small, near, np.where(middle, mid, np.where(large, far, np.nan)))
        if odd:  # (-0 at -0, as PyTorch's)
            out = np.where(np.signbit(x), -out, out)
        if which[0] == "y":
            out = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, out))
    return _done(out, dtype)


def j0(a: Any) -> np.ndarray:
    """The Bessel function of the first kind ``J0`` elementwise (nan at ±inf, as PyTorch)."""
    return _bessel(a, "j0")


def j1(a: Any) -> np.ndarray:
    """The Bessel function of the first kind ``J1`` elementwise (nan at ±inf, as PyTorch)."""
    return _bessel(a, "j1")


def y0(a: Any) -> np.ndarray:
    """The Bessel function of the second kind ``Y0``: -inf at 0, nan below and at inf."""
    return _bessel(a, "y0")


def y1(a: Any) -> np.ndarray:
    """The Bessel function of the second kind ``Y1``: -inf at 0, nan below and at inf."""
    return _bessel(a, "y1")


def spherical_j0(a: Any) -> np.ndarray:
    """``sin(x) / x`` elementwise, 1 at 0 (its Taylor polynomial below ``|x| = 1e-4``), 0 at
    ±inf."""
    x, dtype = _float(a)
    with np.errstate(all="ignore"):
        x2 = x * x
        out = np.where(np.abs(x) < 1e-4, 1 - x2 / 6 * (1 - x2 / 20), np.sin(x) / x)
        out = np.where(np.isinf(x), 0.0, out)
    return _done(out, dtype)


# ---------------------------------------------------------------- erfcx
_erfc = np.frompyfunc(math.erfc, 1, 1)
_SQRT_PI = math.sqrt(math.pi)


def _exp_square(x: np.ndarray) -> np.ndarray:
    """``e^(x²)`` without the rounding of ``x²``: ``x = h + l``, ``h`` of 26 bits, so that
    ``h²`` is exact and ``x² = h² + (2h + l) l``."""
    h = np.float64(134217729.0) * x  # Veltkamp's split
    h = h - (h - x)
    low = x - h
    return np.exp(h * h) * np.exp((2 * h + low) * low)


def _erfcx_fraction(x: np.ndarray) -> np.ndarray:
    """Laplace's continued fraction ``erfcx(x) = (1/√π) / (x + (1/2) / (x + 1 / (x + (3/2) /
    (x + ...))))`` for ``x >= 5``, evaluated from the bottom."""
    tail = np.zeros_like(x)
    for k in range(60, 0, -1):
        tail = (k / 2) / (x + tail)
    return 1 / (_SQRT_PI * (x + tail))


def erfcx(a: Any) -> np.ndarray:
    """The scaled complementary error function ``e^(x²) erfc(x)`` elementwise: ``~1/(x√π)``
    for large x, inf where ``2 e^(x²)`` overflows (x below about -26.6)."""
    x, dtype = _float(a)
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        inner = np.where(ax < 5, ax, 0.0)
        near = _exp_square(inner) * np.asarray(_erfc(inner), dtype=np.float64)
        far = _erfcx_fraction(np.where(ax >= 5, ax, 5.0))
        positive = np.where(ax < 5, near, far)  # erfcx(|x|)
        negative = 2 * _exp_square(x) - positive  # erfcx(-|x|) = 2 e^(x²) - erfcx(|x|)
        out = np.where(x >= 0, positive, negative)
        out = np.where(x == np.inf, 0.0, np.where(x == -np.inf, np.inf, out))
    return _done(out, dtype)


# ---------------------------------------------------------------- Ai
_AI0 = 0.355028053887817239260  # Ai(0) = 1 / (3^(2/3) Γ(2/3))
_AI1 = 0.258819403792806798405  # -Ai'(0) = 1 / (3^(1/3) Γ(1/3))
_GAMMA_THIRD = {1 / 3: 2.678938534707747633, -1 / 3: -4.062353818279201250}  # Γ(±1/3)


def _airy_series(x: np.ndarray) -> np.ndarray:
    """``Ai(x) = Ai(0) f(x) + Ai'(0) g(x)``, ``f = Σ 3^k (1/3)_k x^3k / (3k)!``, ``g = Σ 3^k
    (2/3)_k x^(3k+1) / (3k+1)!`` (for ``-3 <= x <= 1``)."""
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(1, 40):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI0 * f - _AI1 * g


def _j_fractional(nu: float, z: np.ndarray) -> np.ndarray:
    """``J_ν(z)`` for ``ν = ±1/3`` by Miller's backward recurrence over the orders ``ν + k``,
    normalized by ``(z/2)^ν = Σ (ν + 2k) Γ(ν + k) / k! J_(ν+2k)(z)``."""
    top = 2 * (int(np.max(z, initial=2.0)) // 2) + 40
    weights = [_GAMMA_THIRD[nu]]  # Γ(ν + k) / k!
    for k in range(top // 2):
        weights.append(weights[-1] * (nu + k) / (k + 1))
    above, here = np.zeros_like(z), np.full_like(z, 1e-30)
    total = np.zeros_like(z)
    for k in range(top, 0, -1):
        if k % 2 == 0:
            total = total + (nu + k) * weights[k // 2] * here
        above, here = here, (2 * (nu + k) / z) * here - above
        big = np.abs(here) > 1e250
        if big.any():
            scale = np.where(big, 1e-250, 1.0)
            above, here, total = above * scale, here * scale, total * scale
    total = total + nu * weights[0] * here
    return here * (z / 2) ** nu / total


def _airy_oscillating(x: np.ndarray) -> np.ndarray:
    """``Ai(-x) ~ x^(-1/4) / √π (sin(ζ + π/4) P - cos(ζ + π/4) Q)`` for ``x >= 12``, ``ζ = (2/3)
    x^(3/2)``, ``P = Σ (-1)^k u_2k / ζ^2k``, ``Q = Σ (-1)^k u_(2k+1) / ζ^(2k+1)``, ``u_k = (2k+1)
    (2k+3) ... (6k-1) / (216^k k!)``."""
    zeta = 2 / 3 * x * np.sqrt(x)
    u = [1.0]
    for k in range(1, 30):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    inv2 = 1 / (zeta * zeta)
    p, q = np.zeros_like(x), np.zeros_like(x)
    for k in range(len(u) // 2 - 1, -1, -1):
        p = -p * inv2 + u[2 * k]
        q = -q * inv2 + u[2 * k + 1]
    q = q / zeta
    s, c = np.sin(zeta), np.cos(zeta)  # sin(ζ + π/4) = (s + c)/√2, cos(ζ + π/4) = (c - s)/√2
    return (x ** -0.25 / math.sqrt(2 * math.pi)) * ((s + c) * p - (c - s) * q)


def airy_ai(a: Any) -> np.ndarray:
    """The Airy function ``Ai`` elementwise: the Maclaurin series on [-3, 1], beyond 1
    ``Ai(x) = √(x/3) / π K_(1/3)(ζ)`` (``ζ = (2/3) x^(3/2)``, the trapezoidal rule of ``K``),
    down to -12 ``Ai(-x) = (√x / 3) (J_(1/3)(ζ) + J_(-1/3)(ζ))`` by Miller's recurrence, below
    the asymptotic expansion; nan at ±inf, as PyTorch."""
    x, dtype = _float(a)
    near = (x >= -3) & (x <= 1)
    right = (x > 1) & np.isfinite(x)
    left = (x < -3) & (x > -12)
    far = (x <= -12) & np.isfinite(x)
    with np.errstate(all="ignore"):
        series = _airy_series(np.where(near, x, 0.0))
        xr = np.where(right, x, 2.0)
        zr = 2 / 3 * xr * np.sqrt(xr)
        decaying = np.sqrt(xr / 3) / math.pi * np.exp(-zr) * _k_scaled_integral(1 / 3, zr)
        xl = np.where(left, -x, 5.0)
        zl = 2 / 3 * xl * np.sqrt(xl)
        middle = np.sqrt(xl) / 3 * (_j_fractional(1 / 3, zl) + _j_fractional(-1 / 3, zl))
        oscillating = _airy_oscillating(np.where(far, -x, 20.0))
        out = np.where(near, series, np.where(right, decaying, np.where(
            left, middle, np.where(far, oscillating, np.nan))))
    return _done(out, dtype)
