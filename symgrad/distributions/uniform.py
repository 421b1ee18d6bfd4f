"""The continuous uniform distribution, PyTorch's ``Uniform``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, broadcast_all
from symgrad.tensor import Size, Tensor


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``; ``rsample`` is ``low + u (high - low)``.

    >>> symgrad.distributions.Uniform(0.0, 4.0).log_prob(symgrad.tensor(1.0))
    tensor(-1.3863)
    """

    has_rsample = True

    def __init__(self, low: Tensor | float, high: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        numbers_only = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        super().__init__(Size() if numbers_only else self.low.size(), validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """``low < high``."""
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``[low, high]``."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        """``(low + high) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        """nan: every point is a mode."""
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        """``(high - low) / √12``."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        """``(high - low)² / 12``."""
        return (self.high - self.low).pow(2) / 12

    def expand(self, batch_shape: Sequence[int]) -> Uniform:
        """The same distribution with ``low`` and ``high`` expanded to ``batch_shape``.

        >>> symgrad.distributions.Uniform(0.0, 1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, low=self.low.expand(batch_shape),
                              high=self.high.expand(batch_shape))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``low + u (high - low)``, u uniform in [0, 1): differentiable in both bounds.

        >>> symgrad.distributions.Uniform(0.0, 1.0).rsample((2, 3)).shape
        symgrad.Size([2, 3])
        """
        shape = self._extended_shape(sample_shape)
        return self.low + symgrad.rand(*shape, dtype=self.low.dtype) * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(high - low)`` inside, -inf outside."""
        if self._validate_args:
            self._validate_sample(value)
        inside_low = self.low.le(value).type_as(self.low)
        inside_high = self.high.gt(value).type_as(self.low)
        return symgrad.log(inside_low.mul(inside_high)) - symgrad.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        """``(value - low) / (high - low)``, clamped to [0, 1].

        >>> symgrad.distributions.Uniform(0.0, 4.0).cdf(symgrad.tensor(1.0))
        tensor(0.2500)
        """
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        """``value (high - low) + low``."""
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        """``log(high - low)``."""
        return symgrad.log(self.high - self.low)
