"""The generalized Pareto distribution, PyTorch's ``GeneralizedPareto``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, broadcast_all
from symgrad.tensor import Size, Tensor


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of location ``loc``, scale ``scale`` and shape
    ``concentration`` ξ: survival ``(1 + ξ z)^(-1/ξ)``, ``z = (x - loc) / scale`` (``exp(-z)``
    at ξ = 0); on ``[loc, inf)``, or ``[loc, loc - scale / ξ]`` for ξ < 0. ``rsample`` is the
    icdf of a uniform draw.

    >>> symgrad.distributions.GeneralizedPareto(0.0, 1.0, 0.5).log_prob(symgrad.tensor(1.0))
    tensor(-1.2164)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 concentration: Tensor | float, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers_only = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(Size() if numbers_only else self.loc.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> GeneralizedPareto:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.GeneralizedPareto(0.0, 1.0, 0.5).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, loc=self.loc.expand(batch_shape),
                              scale=self.scale.expand(batch_shape),
                              concentration=self.concentration.expand(batch_shape))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``[loc, loc - scale / ξ]`` for ξ < 0, else ``[loc, inf]``."""
        upper = symgrad.where(self.concentration < 0,
                              self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    def _at_zero(self, zero: Tensor) -> tuple[Tensor, Tensor]:
        """Where ξ is close to ``zero``, and ξ with those entries replaced by 1 (so that the
        branch for ξ ≠ 0 stays finite there). (PyTorch's log_prob compares with a float32
        zero, which isclose refuses for float64 parameters: an error there, as in PyTorch.)"""
        near = symgrad.isclose(self.concentration, zero)
        return near, symgrad.where(near, symgrad.ones_like(self.concentration),
                                   self.concentration)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The icdf of uniform draws: differentiable in the parameters.

        >>> symgrad.distributions.GeneralizedPareto(0.0, 1.0, symgrad.zeros(2)).rsample(
        ...     (3,)).shape
        symgrad.Size([3, 2])
        """
        u = symgrad.rand(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(scale) - (1 + 1/ξ) log1p(ξ z)`` (``-log(scale) - z`` at ξ = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, xi = self._at_zero(symgrad.tensor(0.0))
        y = 1 / xi + symgrad.ones_like(z)
        nonzero = symgrad.where(y == 0, y, y * symgrad.log1p(xi * z))
        return -self.scale.log() - symgrad.where(zero, z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """``log P(X > value) = -log1p(ξ z) / ξ`` (``-z`` at ξ = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, xi = self._at_zero(symgrad.tensor(0.0))
        return symgrad.where(zero, -z, -symgrad.log1p(xi * z) / xi)

    def log_cdf(self, value: Tensor) -> Tensor:
        """``log1p(-exp(log_survival_function))``."""
        return symgrad.log1p(-symgrad.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        """``exp(log_cdf)``.

        >>> symgrad.distributions.GeneralizedPareto(0.0, 1.0, 0.0).cdf(symgrad.tensor(1.0))
        tensor(0.6321)
        """
        return symgrad.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        """``loc + scale expm1(-ξ log(1 - u)) / ξ`` (``loc - scale log(1 - u)`` at ξ = 0)."""
        zero, xi = self._at_zero(symgrad.zeros_like(self.concentration))
        log_survival = symgrad.log1p(-value)
        return symgrad.where(zero, self.loc - self.scale * log_survival,
                             self.loc + self.scale / xi * symgrad.expm1(-xi * log_survival))

    @property
    def mean(self) -> Tensor:
        """``loc + scale / (1 - ξ)`` for ξ < 1, nan otherwise."""
        valid = self.concentration < 1
        xi = symgrad.where(valid, self.concentration, 0.5)
        return symgrad.where(valid, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self) -> Tensor:
        """``scale² / ((1 - ξ)² (1 - 2ξ))`` for ξ < 1/2, nan otherwise."""
        valid = self.concentration < 0.5
        xi = symgrad.where(valid, self.concentration, 0.25)
        return symgrad.where(valid, self.scale ** 2 / ((1 - xi) ** 2 * (1 - 2 * xi)), math.nan)

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    def entropy(self) -> Tensor:
        """``log(scale) + ξ + 1``.

        >>> symgrad.distributions.GeneralizedPareto(0.0, 1.0, 0.0).entropy()
        tensor(1.)
        """
        return symgrad.broadcast_to(symgrad.log(self.scale) + self.concentration + 1,
                                    self._batch_shape)
