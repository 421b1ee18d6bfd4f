"""The Cauchy distribution, PyTorch's ``Cauchy``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import LocationScale
from symgrad.tensor import Size, Tensor


class Cauchy(LocationScale):
    """The Cauchy (Lorentz) distribution of median ``loc`` and half-width ``scale``; it has no
    mean (nan) nor variance (inf). ``rsample`` is ``loc + eps * scale``, eps a standard Cauchy
    draw.

    >>> symgrad.distributions.Cauchy(0.0, 2.0).log_prob(symgrad.tensor(1.0))
    tensor(-2.0610)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        """nan: the Cauchy distribution has no mean."""
        return symgrad.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self) -> Tensor:
        """inf."""
        return symgrad.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``loc + eps * scale``: recorded, differentiable in both.

        >>> symgrad.distributions.Cauchy(symgrad.zeros(2), 1.0).rsample((3,)).shape
        symgrad.Size([3, 2])
        """
        shape = self._extended_shape(sample_shape)
        eps = symgrad.empty(tuple(shape), dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(π) - log(scale) - log1p(((value - loc) / scale)²)``."""
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - \
            (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        """``atan((value - loc) / scale) / π + 1/2``.

        >>> symgrad.distributions.Cauchy(0.0, 1.0).cdf(symgrad.tensor(1.0))
        tensor(0.7500)
        """
        if self._validate_args:
            self._validate_sample(value)
        return symgrad.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        """``tan(π (value - 1/2)) scale + loc``.

        >>> symgrad.distributions.Cauchy(0.0, 1.0).icdf(symgrad.tensor(0.75))
        tensor(1.0000)
        """
        return symgrad.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        """``log(4π) + log(scale)``.

        >>> symgrad.distributions.Cauchy(0.0, 1.0).entropy()
        tensor(2.5310)
        """
        return math.log(4 * math.pi) + self.scale.log()
