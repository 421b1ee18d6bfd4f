"""The categorical distribution and the two built on it, PyTorch's ``Categorical``,
``OneHotCategorical`` and ``Multinomial``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.discrete import Binomial
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


class CategoricalCounts(Distribution):
    """The distributions over one-hot vectors or counts of a :class:`Categorical` they hold
    (``OneHotCategorical``, ``Multinomial``): its probabilities, shared."""

    _categorical: Categorical

    @property
    def probs(self) -> Tensor:
        """The categories' probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The categories' normalized log-probabilities."""
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._categorical.param_shape


class OneHotCategorical(CategoricalCounts):
    """:class:`Categorical` with each category a one-hot vector (the event dim).

    >>> d = symgrad.distributions.OneHotCategorical(symgrad.tensor([0.2, 0.3, 0.5]))
    >>> d.log_prob(symgrad.tensor([0.0, 1.0, 0.0]))
    tensor(-1.2040)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> OneHotCategorical:
        """The same distribution with its parameter expanded to ``batch_shape``.

        >>> symgrad.distributions.OneHotCategorical(symgrad.ones(3)).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, _categorical=self._categorical.expand(batch_shape))

    @property
    def mean(self) -> Tensor:
        """``probs``."""
        return self.probs

    @property
    def mode(self) -> Tensor:
        """The most probable category, one-hot."""
        return symgrad.nn.functional.one_hot(self.probs.argmax(dim=-1),
                                             num_classes=self.probs.shape[-1]).to(self.probs)

    @property
    def variance(self) -> Tensor:
        """``probs (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """One-hot vectors of drawn categories, in ``probs``' dtype.

        >>> symgrad.distributions.OneHotCategorical(symgrad.tensor([0.0, 1.0])).sample()
        tensor([0., 1.])
        """
        indices = self._categorical.sample(sample_shape)
        return symgrad.nn.functional.one_hot(indices, self._categorical._num_events).to(
            self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """The categorical log-probability of each one-hot vector's category."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        """The categorical entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The one-hot vectors along a new first dim (expanded over the batch with
        ``expand``).

        >>> symgrad.distributions.OneHotCategorical(symgrad.ones(2)).enumerate_support()
        tensor([[1., 0.],
                [0., 1.]])
        """
        n = self._event_shape[0]
        values = symgrad.eye(n, dtype=self._categorical._param.dtype)
        values = values.view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n, *self._batch_shape, n)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """:class:`OneHotCategorical` with PyTorch's straight-through ``rsample``: the one-hot draw
    in value, the probabilities' gradient (``sample + probs - probs.detach()``).

    >>> p = symgrad.tensor([0.3, 0.7], requires_grad=True)
    >>> symgrad.distributions.OneHotCategoricalStraightThrough(p).rsample().grad_fn
    <AddBackward0 object at 0x...>
    """

    has_rsample = True

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """A one-hot draw whose gradient is the probabilities'."""
        probs = self._categorical.probs
        return self.sample(sample_shape) + (probs - probs.detach())


class Multinomial(CategoricalCounts):
    """The counts of each category in ``total_count`` categorical draws of ``probs`` (or
    ``softmax(logits)``).

    >>> d = symgrad.distributions.Multinomial(4, symgrad.tensor([0.2, 0.3, 0.5]))
    >>> d.log_prob(symgrad.tensor([1.0, 1.0, 2.0]))
    tensor(-1.7148)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Multinomial:
        """The same distribution with its parameter expanded to ``batch_shape``.

        >>> symgrad.distributions.Multinomial(3, symgrad.ones(2)).expand((4,)).batch_shape
        symgrad.Size([4])
        """
        return self._expanded(batch_shape, total_count=self.total_count,
                              _categorical=self._categorical.expand(batch_shape))

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:
        """Non-negative counts summing to at most ``total_count``."""
        return constraints.multinomial(self.total_count)

    @property
    def mean(self) -> Tensor:
        """``total_count probs``."""
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        """``total_count probs (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Counts in ``probs``' dtype, summing to ``total_count``.

        >>> symgrad.distributions.Multinomial(5, symgrad.tensor([0.0, 1.0])).sample()
        tensor([0., 5.])
        """
        draws = self._categorical.sample((self.total_count, *tuple(sample_shape)))
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = symgrad.zeros(tuple(self._extended_shape(sample_shape)), dtype=symgrad.int64)
        counts.scatter_add_(-1, draws, symgrad.ones_like(draws))
        return counts.type_as(self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """``lgamma(Σ x + 1) - Σ lgamma(x + 1) + Σ x logits`` (a count of 0 of a category of
        probability 0 adds 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = symgrad.broadcast_tensors(self.logits, value)
        logits = logits.clone()
        logits[(value == 0) & (logits == -math.inf)] = 0
        return symgrad.lgamma(value.sum(-1) + 1) - symgrad.lgamma(value + 1).sum(-1) + \
            (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """``n H(categorical) - lgamma(n + 1) + Σ_k Σ_c P(count_c = k) lgamma(k + 1)``.

        >>> symgrad.distributions.Multinomial(1, symgrad.ones(4)).entropy()
        tensor(1.3863)
        """
        n = symgrad.tensor(self.total_count)
        first = n * self._categorical.entropy() - symgrad.lgamma(n + 1)
        counts = self._binomial.enumerate_support(expand=False)[1:]
        weights = symgrad.lgamma(counts + 1)
        return first + (symgrad.exp(self._binomial.log_prob(counts)) * weights).sum([0, -1])
