"""Counting distributions, PyTorch's ``Poisson``, ``Geometric`` and ``Binomial``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad import creation
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli import BinaryProbability, CountedTrials
from symgrad.distributions.distribution import (
    ExponentialFamily,
    Rate,
    broadcast_all,
)
from symgrad.tensor import Size, Tensor


class Poisson(Rate, ExponentialFamily):
    """The number of events at ``rate`` events per interval.

    >>> symgrad.distributions.Poisson(symgrad.tensor([4.0])).log_prob(symgrad.tensor([2.0]))
    tensor([-1.9206])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

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


class Binomial(CountedTrials):
    """The number of successes in ``total_count`` trials that succeed with probability
    ``probs`` (or ``sigmoid(logits)``).

    >>> symgrad.distributions.Binomial(10, symgrad.tensor([0.3])).log_prob(symgrad.tensor([3.0]))
    tensor([-1.3173])
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Tensor | int = 1, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(total_count, probs, logits, validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The integers from 0 to ``total_count``."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        """``total_count probs``."""
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        """``floor((total_count + 1) probs)``, at most ``total_count``."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        """``total_count probs (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Counts in ``probs``' dtype, not recorded.

        >>> symgrad.distributions.Binomial(4, symgrad.tensor([0.0, 1.0])).sample()
        tensor([0., 4.])
        """
        shape = tuple(self._extended_shape(sample_shape))
        with symgrad.no_grad():
            count = np.broadcast_to(self.total_count._value, shape).astype(np.int64)
            p = np.broadcast_to(self.probs._value, shape)
            draws = creation.stream(None, "binomial").binomial(count, p)
            return symgrad.tensor(draws, dtype=self.probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        """``log C(n, k) + k logits - n log1p(exp(logits))``, the last term written without
        overflow: ``n max(logits, 0) + n log1p(exp(-|logits|))``."""
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = symgrad.lgamma(n + 1) - symgrad.lgamma(value + 1) - \
            symgrad.lgamma(n - value + 1)
        # (max(logits, 0) as a mean of two clamps: at 0 its gradient is 1/2, as PyTorch's)
        positive = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
        normalize = n * positive + n * symgrad.log1p(symgrad.exp(-logits.abs()))
        return value * logits + log_choose - normalize

    def entropy(self) -> Tensor:
        """``-Σ p log p`` over the support (one ``total_count`` for the whole batch).

        >>> symgrad.distributions.Binomial(2, 0.5).entropy()
        tensor(1.0397)
        """
        if not self.total_count.min() == int(self.total_count.max()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(symgrad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """0 to ``total_count`` along a new first dim (expanded over the batch with
        ``expand``); one ``total_count`` for the whole batch.

        >>> symgrad.distributions.Binomial(2, symgrad.tensor([0.5, 0.1])).enumerate_support()
        tensor([[0., 0.],
                [1., 1.],
                [2., 2.]])
        """
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError("Inhomogeneous total count not supported by "
                                      "`enumerate_support`.")
        values = symgrad.arange(1 + count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values
