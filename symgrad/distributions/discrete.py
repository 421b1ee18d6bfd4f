"""Counting distributions, PyTorch's ``Poisson`` and ``Geometric``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli import BinaryProbability
from symgrad.distributions.distribution import Distribution, ExponentialFamily, broadcast_all
from symgrad.tensor import Size, Tensor


class Poisson(ExponentialFamily):
    """The number of events at ``rate`` events per interval.

    >>> symgrad.distributions.Poisson(symgrad.tensor([4.0])).log_prob(symgrad.tensor([2.0]))
    tensor([-1.9206])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        shape = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """``rate``."""
        return self.rate

    @property
    def mode(self) -> Tensor:
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        """``rate``."""
        return self.rate

    def expand(self, batch_shape: Sequence[int]) -> Poisson:
        """The same distribution with ``rate`` expanded to ``batch_shape``.

        >>> symgrad.distributions.Poisson(1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = Poisson.__new__(Poisson)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Counts in ``rate``'s dtype, not recorded.

        >>> symgrad.distributions.Poisson(symgrad.zeros(2)).sample((3,))
        tensor([[0., 0.],
                [0., 0.],
                [0., 0.]])
        """
        shape = self._extended_shape(sample_shape)
        with symgrad.no_grad():
            return symgrad.poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``xlogy(value, rate) - rate - lgamma(value + 1)``."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()


class Geometric(BinaryProbability):
    """The number of failures before the first success of trials that succeed with
    probability ``probs`` (or ``sigmoid(logits)``).

    >>> symgrad.distributions.Geometric(symgrad.tensor([0.3])).log_prob(symgrad.tensor([2.0]))
    tensor([-1.9173])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(probs, logits, validate_args=validate_args)
        if self._validate_args and probs is not None:
            invalid = ~(self.probs > 0)
            if bool(invalid.any()):
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of "
                                 f"shape {tuple(self.probs.shape)}) of distribution {self!r} "
                                 f"to be positive but found invalid values:\n"
                                 f"{self.probs.detach()[invalid]}")

    @property
    def mean(self) -> Tensor:
        """``1 / probs - 1``."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        """0."""
        return symgrad.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        """``(1 / probs - 1) / probs``."""
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``floor(log(u) / log1p(-probs))``, u uniform in (tiny, 1); not recorded.

        >>> symgrad.distributions.Geometric(symgrad.ones(2)).sample()
        tensor([0., 0.])
        """
        shape = self._extended_shape(sample_shape)
        tiny = float(np.finfo(self.probs.dtype.np_dtype).tiny)
        with symgrad.no_grad():
            u = symgrad.rand(*shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        """``value log1p(-probs) + log(probs)`` (0 at a certain success and value 0)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        """``binary_cross_entropy_with_logits(logits, probs) / probs``.

        >>> symgrad.distributions.Geometric(0.5).entropy()
        tensor(1.3863)
        """
        from symgrad.nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs,
                                                reduction="none") / self.probs
