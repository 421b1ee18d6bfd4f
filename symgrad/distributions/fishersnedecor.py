"""The Fisher–Snedecor (F) distribution, PyTorch's ``FisherSnedecor``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, broadcast_all
from symgrad.distributions.gamma import Gamma
from symgrad.tensor import Size, Tensor


class FisherSnedecor(Distribution):
    """The F distribution of ``df1`` and ``df2`` degrees of freedom: the ratio of two
    chi-squared draws, each over its degrees of freedom. ``rsample`` divides two gamma draws
    (differentiable in both, implicitly).

    >>> symgrad.distributions.FisherSnedecor(3.0, 5.0).log_prob(symgrad.tensor(1.0))
    tensor(-1.0184)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Tensor | float, df2: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        # (χ²(d) / d is Gamma(d / 2, d / 2); PyTorch draws Gamma(d / 2, d) and their ratio)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        numbers_only = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(Size() if numbers_only else self.df1.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> FisherSnedecor:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.FisherSnedecor(3.0, 5.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, df1=self.df1.expand(batch_shape),
                              df2=self.df2.expand(batch_shape),
                              _gamma1=self._gamma1.expand(batch_shape),
                              _gamma2=self._gamma2.expand(batch_shape))

    @property
    def mean(self) -> Tensor:
        """``df2 / (df2 - 2)``; nan for ``df2 <= 2``."""
        df2 = self.df2.clone()
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        """``(df1 - 2) / df1 · df2 / (df2 + 2)``; nan for ``df1 <= 2``."""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        """``2 df2² (df1 + df2 - 2) / (df1 (df2 - 2)² (df2 - 4))``; nan for ``df2 <= 4``."""
        df2 = self.df2.clone()
        df2[df2 <= 4] = math.nan
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The ratio of the two gamma draws (each at least the dtype's smallest normal number).

        >>> symgrad.distributions.FisherSnedecor(symgrad.ones(2), 3.0).rsample((4,)).shape
        symgrad.Size([4, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = float(np.finfo(x2.dtype.np_dtype).tiny)
        x2.clamp_(min=tiny)
        ratio = x1 / x2
        ratio.clamp_(min=tiny)
        return ratio

    def log_prob(self, value: Tensor) -> Tensor:
        """``log B(d1/2, d2/2)⁻¹ + d1/2 log(d1/d2) + (d1/2 - 1) log x
        - (d1 + d2)/2 log1p(d1 x / d2)``."""
        if self._validate_args:
            self._validate_sample(value)
        half1, half2, ratio = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        log_beta = half1.lgamma() + half2.lgamma() - (half1 + half2).lgamma()
        return -log_beta + (half1 * ratio.log() + (half1 - 1) * symgrad.log(value)) - \
            (half1 + half2) * symgrad.log1p(ratio * value)
