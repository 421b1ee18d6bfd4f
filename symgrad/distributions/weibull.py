"""The Weibull distribution, PyTorch's ``Weibull``: ``scale e^(1/concentration)``, e a standard
exponential draw."""

from __future__ import annotations

from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import broadcast_all
from symgrad.distributions.exponential import Exponential
from symgrad.distributions.transformed import _EULER, TransformedDistribution
from symgrad.distributions.transforms import AffineTransform, PowerTransform
from symgrad.tensor import Tensor


class Weibull(TransformedDistribution):
    """The Weibull distribution of scale ``scale`` (λ) and shape ``concentration`` (k): draws
    are ``scale e^(1/k)``, e standard exponential; the density is
    ``k/λ (x/λ)^(k-1) exp(-(x/λ)^k)``.

    >>> symgrad.distributions.Weibull(1.0, 2.0).log_prob(symgrad.tensor(0.5))
    tensor(-0.2500)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Tensor | float, concentration: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        super().__init__(Exponential(symgrad.ones_like(self.scale), validate_args=validate_args),
                         self._maps(self.scale, self.concentration_reciprocal),
                         validate_args=validate_args)

    @staticmethod
    def _maps(scale: Tensor, reciprocal: Tensor) -> list:
        return [PowerTransform(reciprocal), AffineTransform(0, scale)]

    def expand(self, batch_shape: Sequence[int]) -> Weibull:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Weibull(1.0, 2.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = super().expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        new.transforms = self._maps(new.scale, new.concentration_reciprocal)
        return new

    @property
    def mean(self) -> Tensor:
        """``scale Γ(1 + 1/k)``."""
        return self.scale * symgrad.exp(symgrad.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Tensor:
        """``scale ((k - 1) / k)^(1/k)`` (nan for k < 1)."""
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Tensor:
        """``scale² (Γ(1 + 2/k) - Γ(1 + 1/k)²)``."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (symgrad.exp(symgrad.lgamma(1 + 2 * r))
                                    - symgrad.exp(2 * symgrad.lgamma(1 + r)))

    def entropy(self) -> Tensor:
        """``γ (1 - 1/k) + log(scale / k) + 1`` (γ the Euler–Mascheroni constant).

        >>> symgrad.distributions.Weibull(1.0, 1.0).entropy()
        tensor(1.)
        """
        r = self.concentration_reciprocal
        return _EULER * (1 - r) + symgrad.log(self.scale * r) + 1
