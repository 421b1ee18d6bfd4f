"""The categorical distribution, PyTorch's ``Categorical``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import (
    Distribution,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from symgrad.tensor import Size, Tensor


class Categorical(Distribution):
    """One of ``0 ... K-1`` with the probabilities ``probs`` along the last dim (normalized),
    or ``softmax(logits)``: give one of the two.

    >>> d = symgrad.distributions.Categorical(probs=symgrad.tensor([1.0, 3.0]))
    >>> d.probs, d.log_prob(symgrad.tensor(1))
    (tensor([0.2500, 0.7500]), tensor(-0.2877))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        shape = self._param.size()[:-1] if self._param.ndim > 1 else Size()
        super().__init__(shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The integers ``0 ... K-1``."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        """The normalized log-probabilities, from ``probs``."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """The probabilities, from ``logits``."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """nan: categories have no mean."""
        return symgrad.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        """The most probable category."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        """nan: categories have no variance."""
        return symgrad.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    def expand(self, batch_shape: Sequence[int]) -> Categorical:
        """The same distribution with its parameter expanded to ``batch_shape``.

        >>> symgrad.distributions.Categorical(symgrad.ones(3)).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = Categorical.__new__(Categorical)
        shape = (*batch_shape, self._num_events)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new.__dict__[name] = new._param = self.__dict__[name].expand(shape)
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Category indices (int64) of shape ``sample_shape + batch_shape``.

        >>> symgrad.distributions.Categorical(symgrad.tensor([0.0, 1.0])).sample((3,))
        tensor([1, 1, 1])
        """
        count = int(np.prod(tuple(sample_shape)))
        rows = self.probs.reshape(-1, self._num_events)
        drawn = symgrad.multinomial(rows, count, True).T
        return drawn.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log-probability of the categories ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = symgrad.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-Σ p log p`` over the categories.

        >>> symgrad.distributions.Categorical(symgrad.ones(4)).entropy()
        tensor(1.3863)
        """
        smallest = float(np.finfo(self.logits.dtype.np_dtype).min)
        logits = symgrad.clamp(self.logits, min=smallest)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The categories along a new first dim (expanded over the batch with ``expand``).

        >>> symgrad.distributions.Categorical(symgrad.ones(3)).enumerate_support()
        tensor([0, 1, 2])
        """
        values = symgrad.arange(self._num_events, dtype=symgrad.int64)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values
