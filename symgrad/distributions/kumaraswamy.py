"""The Kumaraswamy distribution, PyTorch's ``Kumaraswamy``: ``(1 - u^(1/b))^(1/a)``, u
uniform."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import broadcast_all
from symgrad.distributions.transformed import _EULER, TransformedDistribution
from symgrad.distributions.transforms import AffineTransform, PowerTransform
from symgrad.distributions.uniform import Uniform
from symgrad.tensor import Tensor


def _moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """``E[x^n] = b B(1 + n/a, b)`` for the Kumaraswamy distribution of ``a`` and ``b``."""
    first = 1 + n / a
    return b * symgrad.exp(symgrad.lgamma(first) + symgrad.lgamma(b) - symgrad.lgamma(first + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on [0, 1] of ``concentration1`` (a) and
    ``concentration0`` (b): density ``a b x^(a-1) (1 - x^a)^(b-1)``; draws are
    ``(1 - u^(1/b))^(1/a)``, u uniform.

    >>> symgrad.distributions.Kumaraswamy(2.0, 3.0).log_prob(symgrad.tensor(0.5))
    tensor(0.5232)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Tensor | float, concentration0: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base = Uniform(symgrad.full_like(self.concentration0, 0),
                       symgrad.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(self.concentration0.reciprocal()),
                      AffineTransform(1.0, -1.0),
                      PowerTransform(self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Kumaraswamy:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Kumaraswamy(2.0, 3.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = super().expand(batch_shape)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        """``b B(1 + 1/a, b)``."""
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """``((a - 1) / (a b - 1))^(1/a)``; nan where a or b is below 1."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        """``E[x²] - mean²``."""
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self) -> Tensor:
        """``(1 - 1/b) + (1 - 1/a) H_b - log(a b)``, ``H_b = ψ(b + 1) + γ`` the b-th harmonic
        number.

        >>> symgrad.distributions.Kumaraswamy(1.0, 1.0).entropy()
        tensor(0.)
        """
        a, b = self.concentration1, self.concentration0
        harmonic = symgrad.digamma(b + 1) + _EULER
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - symgrad.log(a) - \
            symgrad.log(b)
