"""The exponential and Laplace distributions, PyTorch's ``Exponential`` and ``Laplace``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import (
    ExponentialFamily,
    LocationScale,
    Rate,
)
from symgrad.tensor import Size, Tensor


class Exponential(Rate, ExponentialFamily):
    """The exponential distribution of rate ``rate``; ``rsample`` is ``e / rate``, e a
    standard exponential draw.

    >>> symgrad.distributions.Exponential(2.0).log_prob(symgrad.tensor(1.0))
    tensor(-1.3069)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        """0."""
        return symgrad.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        """``rate⁻²``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``e / rate``: differentiable in ``rate``.

        >>> symgrad.distributions.Exponential(symgrad.ones(2)).rsample((3,)).shape
        symgrad.Size([3, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        return symgrad.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        """``log(rate) - rate value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        """``1 - exp(-rate value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - symgrad.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        """``-log1p(-value) / rate``."""
        return -symgrad.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        """``1 - log(rate)``."""
        return 1.0 - symgrad.log(self.rate)


class Laplace(LocationScale):
    """The Laplace distribution of location ``loc`` and scale ``scale``.

    >>> symgrad.distributions.Laplace(0.0, 1.0).log_prob(symgrad.tensor(1.0))
    tensor(-1.6931)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def variance(self) -> Tensor:
        """``2 scale²``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        """``√2 scale``."""
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``loc - scale sign(u) log1p(-|u|)``, u uniform in (-1, 1).

        >>> symgrad.distributions.Laplace(0.0, 1.0).rsample((4,)).shape
        symgrad.Size([4])
        """
        shape = tuple(self._extended_shape(sample_shape))
        eps = float(np.finfo(self.loc.dtype.np_dtype).eps)
        u = symgrad.empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * symgrad.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(2 scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        return -symgrad.log(2 * self.scale) - symgrad.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        """``1/2 - sign(value - loc) expm1(-|value - loc| / scale) / 2``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * symgrad.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        """``loc - scale sign(value - 1/2) log1p(-2 |value - 1/2|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * symgrad.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        """``1 + log(2 scale)``."""
        return 1 + symgrad.log(2 * self.scale)
