"""The Bernoulli distribution, PyTorch's ``Bernoulli``, and the base of the distributions of one
probability of success."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import (
    Distribution,
    ExponentialFamily,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from symgrad.tensor import Size, Tensor


class BinaryProbability(Distribution):
    """The distributions of one probability of success: ``probs`` or the log-odds ``logits``,
    give one of the two (``Bernoulli``, ``Geometric``)."""

    def __init__(self, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        shape = Size() if isinstance(given, numbers.Number) else self._param.size()
        super().__init__(shape, validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds, from ``probs``."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of success, from ``logits``."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._param.size()

    def expand(self, batch_shape: Sequence[int]) -> BinaryProbability:
        """The same distribution with its parameter expanded to ``batch_shape``.

        >>> symgrad.distributions.Bernoulli(0.5).expand((3,)).batch_shape
        symgrad.Size([3])
        """
        given = {name: self.__dict__[name].expand(batch_shape) for name in ("probs", "logits")
                 if name in self.__dict__}
        return self._expanded(batch_shape, _param=next(iter(given.values())), **given)



class CountedTrials(BinaryProbability):
    """The distributions of ``total_count`` and one probability of success, the two broadcast
    together (``Binomial``, ``NegativeBinomial``)."""

    def __init__(self, total_count: Tensor | float, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        count, param = broadcast_all(total_count, given)
        self.__dict__[name] = self._param = param
        self.total_count = count.type_as(param)
        Distribution.__init__(self, param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> CountedTrials:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Binomial(5, 0.5).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = super().expand(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        return new

class Bernoulli(BinaryProbability, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``: give one of the two), else 0.

    >>> d = symgrad.distributions.Bernoulli(probs=symgrad.tensor([0.25]))
    >>> d.log_prob(symgrad.tensor([1.0])), d.logits
    (tensor([-1.3863]), tensor([-1.0986]))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    @property
    def mean(self) -> Tensor:
        """``probs``."""
        return self.probs

    @property
    def mode(self) -> Tensor:
        """1 where ``probs`` > 1/2, 0 where below, nan at 1/2."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        """``probs (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """0s and 1s in ``probs``' dtype, not recorded.

        >>> symgrad.distributions.Bernoulli(symgrad.tensor([0.0, 1.0])).sample()
        tensor([0., 1.])
        """
        shape = self._extended_shape(sample_shape)
        with symgrad.no_grad():
            return symgrad.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``-binary_cross_entropy_with_logits(logits, value)``."""
        from symgrad.nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        """``binary_cross_entropy_with_logits(logits, probs)``.

        >>> symgrad.distributions.Bernoulli(0.5).entropy()
        tensor(0.6931)
        """
        from symgrad.nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """0 and 1 along a new first dim (expanded over the batch with ``expand``).

        >>> symgrad.distributions.Bernoulli(symgrad.tensor([0.2, 0.7])).enumerate_support()
        tensor([[0., 0.],
                [1., 1.]])
        """
        values = symgrad.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values
