"""The gamma distribution, its chi-squared case and Student's t (a normal over a chi-squared
root), PyTorch's ``Gamma``, ``Chi2`` and ``StudentT``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad import creation, ops
from symgrad.dispatch import apply_op
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, ExponentialFamily, broadcast_all
from symgrad.tensor import Size, Tensor


def standard_gamma(concentration: Tensor) -> Tensor:
    """Draws of the standard gamma distributions of shapes ``concentration``, recorded
    (``StandardGammaBackward0``): the gradient in the shape holds each draw's quantile fixed
    (implicit reparameterization), as PyTorch's ``_standard_gamma``. symgrad computes it from
    the incomplete gamma function to ~1e-9; PyTorch's approximation differs by up to ~1e-4.

    >>> a = symgrad.tensor([2.0], requires_grad=True)
    >>> standard_gamma(a).grad_fn
    <StandardGammaBackward0 object at 0x...>
    """
    draw = creation.stream(None, "_standard_gamma").standard_gamma(concentration._value)
    return apply_op(ops.elementwise.standard_gamma, concentration,
                    draw=np.asarray(draw, concentration._value.dtype))


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and inverse scale ``rate``;
    ``rsample`` is a standard gamma draw (differentiable in the shape, implicitly) over
    ``rate``.

    >>> symgrad.distributions.Gamma(2.0, 3.0).log_prob(symgrad.tensor(1.0))
    tensor(-0.8028)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        numbers_only = isinstance(concentration, numbers.Number) and isinstance(rate,
                                                                               numbers.Number)
        super().__init__(Size() if numbers_only else self.concentration.size(),
                         validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        """``(concentration - 1) / rate``, at least 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        """``concentration / rate²``."""
        return self.concentration / self.rate.pow(2)

    def expand(self, batch_shape: Sequence[int]) -> Gamma:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Gamma(1.0, 1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, concentration=self.concentration.expand(batch_shape),
                              rate=self.rate.expand(batch_shape))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """A standard gamma draw of shape ``concentration`` over ``rate`` (at least the dtype's
        smallest normal number), differentiable in both.

        >>> symgrad.distributions.Gamma(symgrad.ones(2), 1.0).rsample((3,)).shape
        symgrad.Size([3, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(np.finfo(value.dtype.np_dtype).tiny))
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        """``xlogy(c, rate) + xlogy(c - 1, value) - rate value - lgamma(c)``."""
        value = symgrad.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (symgrad.xlogy(self.concentration, self.rate)
                + symgrad.xlogy(self.concentration - 1, value)
                - self.rate * value - symgrad.lgamma(self.concentration))

    def entropy(self) -> Tensor:
        """``c - log(rate) + lgamma(c) + (1 - c) digamma(c)``.

        >>> symgrad.distributions.Gamma(2.0, 1.0).entropy()
        tensor(1.5772)
        """
        c = self.concentration
        return c - symgrad.log(self.rate) + symgrad.lgamma(c) + (1.0 - c) * symgrad.digamma(c)

    def cdf(self, value: Tensor) -> Tensor:
        """``P(concentration, rate value)``, the regularized lower incomplete gamma function.

        >>> symgrad.distributions.Gamma(2.0, 1.0).cdf(symgrad.tensor(1.0))
        tensor(0.2642)
        """
        if self._validate_args:
            self._validate_sample(value)
        return symgrad.special.gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    >>> symgrad.distributions.Chi2(3.0).mean
    tensor(3.)
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        """``2 concentration``."""
        return self.concentration * 2


class StudentT(Distribution):
    """Student's t distribution of ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``; ``rsample`` is ``loc + scale x / sqrt(z / df)``, x standard normal and z a
    ``Chi2(df)`` draw (differentiable in ``df`` through the gamma draw).

    >>> symgrad.distributions.StudentT(3.0).log_prob(symgrad.tensor(1.0))
    tensor(-1.6671)
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Tensor | float, loc: Tensor | float = 0.0,
                 scale: Tensor | float = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """``loc``; nan where ``df <= 1``."""
        mean = self.loc.clone()
        mean[self.df <= 1] = math.nan
        return mean

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale² df / (df - 2)`` where ``df > 2``; inf for ``1 < df <= 2``, nan below."""
        variance = self.df.clone()
        above = self.df > 2
        variance[above] = self.scale[above].pow(2) * self.df[above] / (self.df[above] - 2)
        variance[(self.df <= 2) & (self.df > 1)] = math.inf
        variance[self.df <= 1] = math.nan
        return variance

    def expand(self, batch_shape: Sequence[int]) -> StudentT:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.StudentT(3.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, df=self.df.expand(batch_shape),
                              loc=self.loc.expand(batch_shape),
                              scale=self.scale.expand(batch_shape),
                              _chi2=self._chi2.expand(batch_shape))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``loc + scale x / sqrt(z / df)``: differentiable in all three parameters.

        >>> symgrad.distributions.StudentT(symgrad.ones(2) * 3).rsample((4,)).shape
        symgrad.Size([4, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        x = symgrad.randn(*shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * symgrad.rsqrt(z / self.df))

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(df + 1)/2 log1p(y² / df) - log(scale √(df π) Γ(df/2) / Γ((df+1)/2))``,
        ``y = (value - loc) / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        normalizer = self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) \
            + symgrad.lgamma(0.5 * self.df) - symgrad.lgamma(0.5 * (self.df + 1.0))
        return -0.5 * (self.df + 1.0) * symgrad.log1p(y ** 2.0 / self.df) - normalizer

    def entropy(self) -> Tensor:
        """``log(scale) + (df+1)/2 (ψ((df+1)/2) - ψ(df/2)) + log(√df B(df/2, 1/2))``.

        >>> symgrad.distributions.StudentT(3.0).entropy()
        tensor(1.7733)
        """
        log_beta = symgrad.lgamma(0.5 * self.df) + math.lgamma(0.5) - \
            symgrad.lgamma(0.5 * (self.df + 1))
        return self.scale.log() + 0.5 * (self.df + 1) * (
            symgrad.digamma(0.5 * (self.df + 1)) - symgrad.digamma(0.5 * self.df)) + \
            0.5 * self.df.log() + log_beta
