"""The inverse gamma distribution, PyTorch's ``InverseGamma``: ``1 / x``, x gamma."""

from __future__ import annotations

import math

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.gamma import Gamma
from symgrad.distributions.transformed import TransformedDistribution
from symgrad.distributions.transforms import PowerTransform
from symgrad.tensor import Tensor


class InverseGamma(TransformedDistribution):
    """``1 / x`` for x gamma of shape ``concentration`` (α) and rate ``rate`` (β): density
    ``β^α / Γ(α) x^(-α-1) exp(-β / x)``.

    >>> symgrad.distributions.InverseGamma(2.0, 3.0).log_prob(symgrad.tensor(1.0))
    tensor(-0.8028)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())),
                         validate_args=validate_args)

    @property
    def concentration(self) -> Tensor:
        """The gamma's shape α."""
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        """The gamma's rate β (the inverse gamma's scale)."""
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        """``β / (α - 1)`` for α > 1, inf otherwise."""
        return symgrad.where(self.concentration > 1, self.rate / (self.concentration - 1),
                             math.inf)

    @property
    def mode(self) -> Tensor:
        """``β / (α + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        """``β² / ((α - 1)² (α - 2))`` for α > 2, inf otherwise."""
        a = self.concentration
        return symgrad.where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)),
                             math.inf)

    def entropy(self) -> Tensor:
        """``α + log β + lgamma(α) - (1 + α) ψ(α)``.

        >>> symgrad.distributions.InverseGamma(1.0, 1.0).entropy()
        tensor(2.1544)
        """
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
