"""The Pareto distribution (type I), PyTorch's ``Pareto``: ``scale exp(e)``, e exponential."""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.distributions import constraints
from symgrad.distributions.distribution import broadcast_all
from symgrad.distributions.exponential import Exponential
from symgrad.distributions.transformed import TransformedDistribution
from symgrad.distributions.transforms import AffineTransform, ExpTransform
from symgrad.tensor import Tensor


class Pareto(TransformedDistribution):
    """The Pareto distribution of minimum ``scale`` and tail index ``alpha``: draws are
    ``scale exp(e)``, e exponential of rate ``alpha``; the density is
    ``alpha scale^alpha / x^(alpha + 1)`` above ``scale``.

    >>> symgrad.distributions.Pareto(1.0, 2.0).log_prob(symgrad.tensor(2.0))
    tensor(-1.3863)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Tensor | float, alpha: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(0, self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Pareto:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Pareto(1.0, 2.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = super().expand(batch_shape)
        new.scale, new.alpha = self.scale.expand(batch_shape), self.alpha.expand(batch_shape)
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Tensor:
        """``alpha scale / (alpha - 1)``; inf for ``alpha <= 1`` (alpha taken at least 1)."""
        alpha = self.alpha.clamp(min=1)
        return alpha * self.scale / (alpha - 1)

    @property
    def mode(self) -> Tensor:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """``scale² alpha / ((alpha - 1)² (alpha - 2))``; inf for ``alpha <= 2``."""
        alpha = self.alpha.clamp(min=2)
        return self.scale.pow(2) * alpha / ((alpha - 1).pow(2) * (alpha - 2))

    def entropy(self) -> Tensor:
        """``log(scale / alpha) + 1 + 1 / alpha``.

        >>> symgrad.distributions.Pareto(1.0, 1.0).entropy()
        tensor(2.)
        """
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
