"""``symgrad.special``: PyTorch's ``torch.special``, the special functions with their
gradients, each lowered to sympy like every recorded op.

Most are PyTorch's other spellings of symgrad functions (``expit`` is ``sigmoid``, ``gammaln``
``lgamma``, ``psi`` ``digamma``, ``multigammaln`` ``mvlgamma`` ...). Of their own: ``entr``
(``-x log x``), ``ndtr`` (the standard normal CDF, recorded as PyTorch records it: through
``erf``), ``log_ndtr`` and ``ndtri`` (its log and its inverse, accurate far into the tails) and
``xlog1py`` (``x log1p(y)``), ``gammainc`` and ``gammaincc`` (the regularized incomplete
gamma functions). PyTorch's Bessel functions, ``erfcx``, ``zeta`` and the orthogonal
polynomials are not there.

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

from symgrad import ops, parser
from symgrad.autograd.graph import named_node
from symgrad.dispatch import apply_op
from symgrad.tensor import Tensor
from symgrad.torch_api import lazy
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

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy",
           "gammainc", "gammaincc"]

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
