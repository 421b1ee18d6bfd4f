"""``symgrad.special``: PyTorch's ``torch.special``, the special functions with their
gradients, each lowered to sympy like every recorded op.

Most are PyTorch's other spellings of symgrad functions (``expit`` is ``sigmoid``, ``gammaln``
``lgamma``, ``psi`` ``digamma``, ``multigammaln`` ``mvlgamma`` ...). Of their own: ``entr``
(``-x log x``), ``ndtr`` (the standard normal CDF, recorded as PyTorch records it: through
``erf``), ``log_ndtr`` and ``ndtri`` (its log and its inverse, accurate far into the tails) and
``xlog1py`` (``x log1p(y)``), ``gammainc`` and ``gammaincc`` (the regularized incomplete
gamma functions), the modified Bessel functions ``i0``, ``i1``, ``i0e``, ``i1e`` and ``erfcx``
with their gradients, and PyTorch's Bessel functions without a gradient (``bessel_j0`` ...
``spherical_bessel_j0``), the Hurwitz ``zeta`` and the orthogonal polynomials
(``chebyshev_polynomial_t`` ... ``legendre_polynomial_p``, without a gradient). PyTorch's
``airy_ai`` is computed too (without a gradient).

>>> x = symgrad.tensor([0.975], dtype=symgrad.float64, requires_grad=True)
>>> z = symgrad.special.ndtri(x)
>>> z
tensor([1.9600], dtype=symgrad.float64, grad_fn=<SpecialNdtriBackward0>)
>>> symgrad.special.ndtr(z).item()
0.975
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import named_node
from symgrad.dispatch import _broadcast_error, apply_op
from symgrad.numeric import bessel, dtypes, polynomials
from symgrad.tensor import Tensor, _make
from symgrad.torch_api import lazy
from symgrad.torch_api.arguments import result_dtype
from symgrad.torch_api.arithmetic import sigmoid as expit
from symgrad.torch_api.composites import mvlgamma as multigammaln
from symgrad.torch_api.pointwise import (
    _xlogy_named,
    _xlogy_operands,
    igamma,
    igammac,
    logit,
    polygamma,
    xlogy,
)
from symgrad.torch_api.reductions import logsumexp
from symgrad.torch_api.softmax import log_softmax, softmax

# the unary functions torch_api.pointwise installs (symgrad.erf ...), under PyTorch's names here
digamma = psi = lazy.function("digamma")
erf, erfc, erfinv = lazy.function("erf"), lazy.function("erfc"), lazy.function("erfinv")
exp2, expm1, log1p = lazy.function("exp2"), lazy.function("expm1"), lazy.function("log1p")
gammaln, sinc = lazy.function("lgamma"), lazy.function("sinc")
_round = lazy.function("round")

# (strings only: the API reference's reader takes nothing else)
__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "gammainc",
           "gammaincc", "i0", "i0e", "i1", "i1e", "erfcx", "bessel_j0", "bessel_j1", "bessel_y0",
           "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "zeta", "airy_ai", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
           "legendre_polynomial_p"]

_ew = ops.elementwise


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    """``symgrad.round`` with ``decimals`` always given, as PyTorch's ``special.round`` calls it
    (``RoundBackward1``).

    >>> symgrad.special.round(symgrad.tensor([0.5, 1.5, 2.25]))
    tensor([0., 2., 2.])
    """
    return _round(input, decimals=decimals)


def entr(input: Tensor) -> Tensor:  # noqa: A002
    """``-x log(x)`` elementwise: 0 at 0, -inf for negative x (``SpecialEntrBackward0``).

    >>> symgrad.special.entr(symgrad.tensor([0.5, 0.0, -1.0]))
    tensor([0.3466, 0.0000,   -inf])
    """
    return apply_op(_ew.entr, parser.tensor_arg("special_entr", "input", input))


def ndtr(input: Tensor) -> Tensor:  # noqa: A002
    """The standard normal CDF, ``(1 + erf(x / √2)) / 2``, recorded as PyTorch records it (a
    product, ``erf``, a sum and a product), so it rounds to 0 below about -8.3 in float64:
    :func:`log_ndtr` keeps the left tail.

    >>> symgrad.special.ndtr(symgrad.tensor([0.0, 1.0]))
    tensor([0.5000, 0.8413])
    """
    x = parser.tensor_arg("special_ndtr", "input", input)
    scaled = named_node(x * (1 / math.sqrt(2)), "MulBackward1")
    shifted = apply_op(_ew.add_scalar, erf(scaled), other=1)
    return named_node(shifted * 0.5, "MulBackward1")


def log_ndtr(input: Tensor) -> Tensor:  # noqa: A002
    """The log of the standard normal CDF, accurate in both tails
    (``SpecialLogNdtrBackward0``).

    >>> symgrad.special.log_ndtr(symgrad.tensor([0.0, -40.0], dtype=symgrad.float64))
    tensor([  -0.6931, -804.6084], dtype=symgrad.float64)
    """
    return apply_op(_ew.log_ndtr, parser.tensor_arg("special_log_ndtr", "input", input))


def ndtri(input: Tensor) -> Tensor:  # noqa: A002
    """The inverse of the standard normal CDF: -inf at 0, inf at 1, nan outside [0, 1]
    (``SpecialNdtriBackward0``).

    >>> symgrad.special.ndtri(symgrad.tensor([0.5, 0.025]))
    tensor([ 0.0000, -1.9600])
    """
    return apply_op(_ew.ndtri, parser.tensor_arg("special_ndtri", "input", input))


def gammainc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularized lower incomplete gamma function ``P(a, x)``: :func:`symgrad.igamma`
    (``IgammaBackward0``; no gradient in ``input``, as PyTorch).

    >>> symgrad.special.gammainc(symgrad.tensor([2.5]), symgrad.tensor([2.5]))
    tensor([0.5841])
    """
    parser.tensor_arg("special_gammainc", "input", input)
    parser.tensor_arg("special_gammainc", "other", other, 2)
    return igamma(input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``:
    :func:`symgrad.igammac` (``IgammacBackward0``).

    >>> symgrad.special.gammaincc(symgrad.tensor([2.5]), symgrad.tensor([2.5]))
    tensor([0.4159])
    """
    parser.tensor_arg("special_gammaincc", "input", input)
    parser.tensor_arg("special_gammaincc", "other", other, 2)
    return igammac(input, other)


def xlog1py(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input * log1p(other)``, and 0 where ``input == 0`` (unless ``other`` is nan); either
    may be a Python number (``SpecialXlog1PyBackward0``, ``1`` for a number ``input``, ``2``
    for a number ``other``).

    >>> symgrad.special.xlog1py(symgrad.tensor([0.0, 2.0]), symgrad.tensor([-1.0, 1.0]))
    tensor([0.0000, 1.3863])
    """
    out = apply_op(_ew.xlog1py, *_xlogy_operands(input, other, "special_xlog1py"))
    return _xlogy_named(out, input, other, "SpecialXlog1Py")


def i0(input: Tensor) -> Tensor:  # noqa: A002
    """The modified Bessel function ``I0``: :func:`symgrad.i0` (``I0Backward0``).

    >>> symgrad.special.i0(symgrad.tensor([0.0, 1.0]))
    tensor([1.0000, 1.2661])
    """
    return apply_op(_ew.i0, parser.tensor_arg("special_i0", "input", input))


def i0e(input: Tensor) -> Tensor:  # noqa: A002
    """``e^-|x| I0(x)``, finite where ``I0`` overflows (``SpecialI0EBackward0``; its gradient
    ``i1e(x) - sign(x) i0e(x)`` is 0 at the kink at 0, as PyTorch's).

    >>> symgrad.special.i0e(symgrad.tensor([0.0, 1.0, 1000.0]))
    tensor([1.0000, 0.4658, 0.0126])
    """
    return apply_op(_ew.i0e, parser.tensor_arg("special_i0e", "input", input))


def i1(input: Tensor) -> Tensor:  # noqa: A002
    """The modified Bessel function of the first kind of order one, ``I1``
    (``SpecialI1Backward0``: ``I0(x) - I1(x) / x``, 1/2 at 0).

    >>> symgrad.special.i1(symgrad.tensor([0.0, 1.0, -2.0]))
    tensor([ 0.0000,  0.5652, -1.5906])
    """
    return apply_op(_ew.i1, parser.tensor_arg("special_i1", "input", input))


def i1e(input: Tensor) -> Tensor:  # noqa: A002
    """``e^-|x| I1(x)`` (``SpecialI1EBackward0``).

    >>> symgrad.special.i1e(symgrad.tensor([1.0, -1000.0]))
    tensor([ 0.2079, -0.0126])
    """
    return apply_op(_ew.i1e, parser.tensor_arg("special_i1e", "input", input))


def erfcx(input: Tensor) -> Tensor:  # noqa: A002
    """The scaled complementary error function ``e^(x²) erfc(x)``, accurate where ``erfc``
    underflows (about ``1 / (x √π)`` for large x) and inf where it overflows below about
    -26.6 (``SpecialErfcxBackward0``: ``2x erfcx(x) - 2/√π``).

    >>> symgrad.special.erfcx(symgrad.tensor([0.0, 1.0, 50.0, -30.0]))
    tensor([1.0000, 0.4276, 0.0113,    inf])
    """
    x = parser.tensor_arg("special_erfcx", "input", input)
    if x.dtype is dtypes.float16:
        raise dtypes.not_implemented("erfcx_cpu", x.dtype)
    return apply_op(_ew.erfcx, x)


def _without_gradient(name: str, input: Any, kernel: Any) -> Tensor:  # noqa: A002
    """``kernel`` of ``input``'s values as PyTorch's special functions without a derivative give
    it: a result that does not require grad, integer and bool inputs in the default float
    dtype, float16 refused by the ``<name>_cpu`` kernel."""
    x = parser.tensor_arg(f"special_{name}", "input", input)
    if x.dtype is dtypes.float16:
        raise dtypes.not_implemented(f"{name}_cpu", x.dtype)
    value = x._value
    if not x.dtype.is_floating_point:
        value = value.astype(dtypes.get_default_dtype().np_dtype)
    return _make(kernel(value))


def bessel_j0(input: Tensor) -> Tensor:  # noqa: A002
    """The Bessel function of the first kind of order zero ``J0``; no gradient (as PyTorch's:
    the result does not require grad).

    >>> symgrad.special.bessel_j0(symgrad.tensor([0.0, 1.0, -2.0]))
    tensor([1.0000, 0.7652, 0.2239])
    """
    return _without_gradient("bessel_j0", input, bessel.j0)


def bessel_j1(input: Tensor) -> Tensor:  # noqa: A002
    """The Bessel function of the first kind of order one ``J1`` (odd); no gradient.

    >>> symgrad.special.bessel_j1(symgrad.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  0.4401, -0.4401])
    """
    return _without_gradient("bessel_j1", input, bessel.j1)


def bessel_y0(input: Tensor) -> Tensor:  # noqa: A002
    """The Bessel function of the second kind of order zero ``Y0``: -inf at 0, nan for negative
    x; no gradient.

    >>> symgrad.special.bessel_y0(symgrad.tensor([0.0, 1.0, -1.0]))
    tensor([   -inf, 0.0883,     nan])
    """
    return _without_gradient("bessel_y0", input, bessel.y0)


def bessel_y1(input: Tensor) -> Tensor:  # noqa: A002
    """The Bessel function of the second kind of order one ``Y1``: -inf at 0, nan for negative
    x; no gradient.

    >>> symgrad.special.bessel_y1(symgrad.tensor([0.0, 1.0]))
    tensor([   -inf, -0.7812])
    """
    return _without_gradient("bessel_y1", input, bessel.y1)


def modified_bessel_i0(input: Tensor) -> Tensor:  # noqa: A002
    """``I0``, the values of :func:`i0` without a gradient (as PyTorch's).

    >>> symgrad.special.modified_bessel_i0(symgrad.tensor([1.0]))
    tensor([1.2661])
    """
    return _without_gradient("modified_bessel_i0", input, bessel.i0)


def modified_bessel_i1(input: Tensor) -> Tensor:  # noqa: A002
    """``I1``, the values of :func:`i1` without a gradient (as PyTorch's).

    >>> symgrad.special.modified_bessel_i1(symgrad.tensor([1.0]))
    tensor([0.5652])
    """
    return _without_gradient("modified_bessel_i1", input, bessel.i1)


def modified_bessel_k0(input: Tensor) -> Tensor:  # noqa: A002
    """The modified Bessel function of the second kind of order zero ``K0``: inf at 0, nan
    for negative x; no gradient.

    >>> symgrad.special.modified_bessel_k0(symgrad.tensor([0.0, 1.0, 10.0]))
    tensor([       inf, 4.2102e-01, 1.7780e-05])
    """
    return _without_gradient("modified_bessel_k0", input, bessel.k0)


def modified_bessel_k1(input: Tensor) -> Tensor:  # noqa: A002
    """The modified Bessel function of the second kind of order one ``K1``: inf at 0, nan for
    negative x; no gradient.

    >>> symgrad.special.modified_bessel_k1(symgrad.tensor([1.0, 2.0]))
    tensor([0.6019, 0.1399])
    """
    return _without_gradient("modified_bessel_k1", input, bessel.k1)


def scaled_modified_bessel_k0(input: Tensor) -> Tensor:  # noqa: A002
    """``e^x K0(x)``, finite where ``K0`` underflows; no gradient.

    >>> symgrad.special.scaled_modified_bessel_k0(symgrad.tensor([1.0, 1000.0]))
    tensor([1.1445, 0.0396])
    """
    return _without_gradient("scaled_modified_bessel_k0", input, bessel.k0e)


def scaled_modified_bessel_k1(input: Tensor) -> Tensor:  # noqa: A002
    """``e^x K1(x)``, finite where ``K1`` underflows; no gradient.

    >>> symgrad.special.scaled_modified_bessel_k1(symgrad.tensor([1.0, 1000.0]))
    tensor([1.6362, 0.0396])
    """
    return _without_gradient("scaled_modified_bessel_k1", input, bessel.k1e)


def spherical_bessel_j0(input: Tensor) -> Tensor:  # noqa: A002
    """The spherical Bessel function of the first kind of order zero, ``sin(x) / x`` (1 at 0,
    0 at ±inf); no gradient.

    >>> symgrad.special.spherical_bessel_j0(symgrad.tensor([0.0, 3.141592653589793]))
    tensor([ 1.0000e+00, -2.7828e-08])
    """
    return _without_gradient("spherical_bessel_j0", input, bessel.spherical_j0)


def zeta(input: Any, other: Any) -> Tensor:  # noqa: A002
    """The Hurwitz zeta function ``ζ(x, q) = Σ_(k>=0) (k + q)^-x`` of ``input`` (x) and
    ``other`` (q), broadcast; either may be a Python number. inf at ``x = 1`` and at the poles
    ``q = 0, -1 ...``, nan for ``x < 1`` (``SpecialZetaBackward0``; ``1`` for a number
    ``input``, ``2`` for a number ``other``; the gradient in q is ``-x ζ(x + 1, q)``, and, as
    PyTorch, none in x: NotImplementedError at backward).

    >>> symgrad.special.zeta(symgrad.tensor([2.0, 3.0]), 1.0)
    tensor([1.6449, 1.2021])
    """
    for value in (input, other):
        if not isinstance(value, Tensor | bool | int | float):
            both = (input, other)
            raise TypeError("special_zeta() received an invalid combination of arguments - got "
                            f"({', '.join(type(v).__name__ for v in both)}), but expected one "
                            "of:\n * (Tensor input, Tensor other)\n * (Number self, Tensor "
                            "other)\n * (Tensor self, Number other)")
    x, q = _xlogy_operands(input, other, "special_zeta")
    common = result_dtype(x, q)
    if common is dtypes.float16:
        raise dtypes.not_implemented("zeta_cpu", common)
    return _xlogy_named(apply_op(_ew.zeta, x, q), input, other, "SpecialZeta")


def airy_ai(input: Tensor) -> Tensor:  # noqa: A002
    """The Airy function ``Ai``, the solution of ``y'' = x y`` decaying as x grows (nan at
    ±inf); no gradient, as PyTorch's.

    >>> symgrad.special.airy_ai(symgrad.tensor([0.0, 1.0, -5.0]))
    tensor([0.3550, 0.1353, 0.3508])
    """
    return _without_gradient("airy_ai", input, bessel.airy_ai)


def _polynomial(name: str, x: Any, n: Any) -> Tensor:
    """PyTorch's orthogonal polynomial ``name`` of ``x`` and the degree ``n`` (tensors or one
    Python number, broadcast; the degree truncated to an integer, none below 0 (0 there): a
    result without gradient in the promoted floating dtype, float16 refused by ``<name>_cpu``."""
    if not (isinstance(x, Tensor) and isinstance(n, Tensor | bool | int | float)
            or isinstance(x, bool | int | float) and isinstance(n, Tensor)):
        raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                        f"({type(x).__name__}, {type(n).__name__}), but expected one of:\n"
                        " * (Tensor x, Tensor n)\n * (Number x, Tensor n)\n * (Tensor x, "
                        "Number n)")
    common = result_dtype(x, n)
    if common is dtypes.float16:
        raise dtypes.not_implemented(f"{name}_cpu", common)
    if not common.is_floating_point:
        common = dtypes.get_default_dtype()
    values = [v._value if isinstance(v, Tensor) else float(v) for v in (x, n)]
    try:
        np.broadcast_shapes(*(np.shape(v) for v in values))
    except ValueError:
        raise RuntimeError(_broadcast_error(values)) from None
    return _make(polynomials.evaluate(name, *values).astype(common.np_dtype))


def chebyshev_polynomial_t(x: Any, n: Any) -> Tensor:
    """The Chebyshev polynomial of the first kind ``T_n(x)`` (``T_n(cos θ) = cos nθ``); no
    gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.chebyshev_polynomial_t(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-1., 26.])
    """
    return _polynomial("chebyshev_polynomial_t", x, n)


def chebyshev_polynomial_u(x: Any, n: Any) -> Tensor:
    """The Chebyshev polynomial of the second kind ``U_n(x)`` (``U_n(cos θ) = sin((n+1)θ) / sin
    θ``); no gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.chebyshev_polynomial_u(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-1., 56.])
    """
    return _polynomial("chebyshev_polynomial_u", x, n)


def chebyshev_polynomial_v(x: Any, n: Any) -> Tensor:
    """The Chebyshev polynomial of the third kind ``V_n(x)`` (``V_n(cos θ) = cos((n+½)θ) /
    cos(θ/2)``); no gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.chebyshev_polynomial_v(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-1., 41.])
    """
    return _polynomial("chebyshev_polynomial_v", x, n)


def chebyshev_polynomial_w(x: Any, n: Any) -> Tensor:
    """The Chebyshev polynomial of the fourth kind ``W_n(x)`` (``W_n(cos θ) = sin((n+½)θ) /
    sin(θ/2)``); no gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.chebyshev_polynomial_w(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-1., 71.])
    """
    return _polynomial("chebyshev_polynomial_w", x, n)


def shifted_chebyshev_polynomial_t(x: Any, n: Any) -> Tensor:
    """The shifted Chebyshev polynomial of the first kind ``T_n(2x - 1)``; no gradient. ``x`` or
    ``n`` may be a Python number (not both).

    >>> symgrad.special.shifted_chebyshev_polynomial_t(symgrad.tensor([0.25, 1.5]), 3)
    tensor([ 1., 26.])
    """
    return _polynomial("shifted_chebyshev_polynomial_t", x, n)


def shifted_chebyshev_polynomial_u(x: Any, n: Any) -> Tensor:
    """The shifted Chebyshev polynomial of the second kind ``U_n(2x - 1)``; no gradient. ``x``
    or ``n`` may be a Python number (not both).

    >>> symgrad.special.shifted_chebyshev_polynomial_u(symgrad.tensor([0.25, 1.5]), 3)
    tensor([ 1., 56.])
    """
    return _polynomial("shifted_chebyshev_polynomial_u", x, n)


def shifted_chebyshev_polynomial_v(x: Any, n: Any) -> Tensor:
    """The shifted Chebyshev polynomial of the third kind ``V_n(2x - 1)``; no gradient. ``x`` or
    ``n`` may be a Python number (not both).

    >>> symgrad.special.shifted_chebyshev_polynomial_v(symgrad.tensor([0.25, 1.5]), 3)
    tensor([ 1., 41.])
    """
    return _polynomial("shifted_chebyshev_polynomial_v", x, n)


def shifted_chebyshev_polynomial_w(x: Any, n: Any) -> Tensor:
    """The shifted Chebyshev polynomial of the fourth kind ``W_n(2x - 1)``; no gradient. ``x``
    or ``n`` may be a Python number (not both).

    >>> symgrad.special.shifted_chebyshev_polynomial_w(symgrad.tensor([0.25, 1.5]), 3)
    tensor([ 1., 71.])
    """
    return _polynomial("shifted_chebyshev_polynomial_w", x, n)


def hermite_polynomial_h(x: Any, n: Any) -> Tensor:
    """The physicists' Hermite polynomial ``H_n(x)`` (``H_(n+1) = 2x H_n - 2n H_(n-1)``); no
    gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.hermite_polynomial_h(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-5., 40.])
    """
    return _polynomial("hermite_polynomial_h", x, n)


def hermite_polynomial_he(x: Any, n: Any) -> Tensor:
    """The probabilists' Hermite polynomial ``He_n(x)`` (``He_(n+1) = x He_n - n He_(n-1)``); no
    gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.hermite_polynomial_he(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-1.3750,  2.0000])
    """
    return _polynomial("hermite_polynomial_he", x, n)


def laguerre_polynomial_l(x: Any, n: Any) -> Tensor:
    """The Laguerre polynomial ``L_n(x)`` (``(n+1) L_(n+1) = (2n+1-x) L_n - n L_(n-1)``); no
    gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.laguerre_polynomial_l(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-0.1458, -0.3333])
    """
    return _polynomial("laguerre_polynomial_l", x, n)


def legendre_polynomial_p(x: Any, n: Any) -> Tensor:
    """The Legendre polynomial ``P_n(x)`` (``(n+1) P_(n+1) = (2n+1) x P_n - n P_(n-1)``); no
    gradient. ``x`` or ``n`` may be a Python number (not both).

    >>> symgrad.special.legendre_polynomial_p(symgrad.tensor([0.5, 2.0]), 3)
    tensor([-0.4375, 17.0000])
    """
    return _polynomial("legendre_polynomial_p", x, n)
