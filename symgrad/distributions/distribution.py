"""The base class of ``symgrad.distributions``, PyTorch's ``Distribution``, and the helpers its
subclasses share (``broadcast_all``, ``probs_to_logits``, ``logits_to_probs``,
``lazy_property``)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.tensor import Size, Tensor

__all__ = ["Distribution", "ExponentialFamily", "broadcast_all", "lazy_property", "logits_to_probs",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values: Tensor | float) -> tuple[Tensor, ...]:
    """``values`` as tensors broadcast together; a number becomes a tensor of the first
    tensor's dtype (the default dtype without one).

    >>> loc, scale = symgrad.distributions.utils.broadcast_all(symgrad.zeros(2), 1.0)
    >>> scale
    tensor([1., 1.])
    """
    if not all(isinstance(v, Tensor | numbers.Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)),
                 symgrad.get_default_dtype())
    tensors = [v if isinstance(v, Tensor) else symgrad.tensor(v, dtype=dtype) for v in values]
    return tuple(symgrad.broadcast_tensors(*tensors))


def _sum_rightmost(value: Tensor, dims: int) -> Tensor:
    """``value`` summed over its last ``dims`` dims."""
    return value.reshape(*value.shape[:value.ndim - dims], -1).sum(-1) if dims > 0 else value


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` kept within ``[eps, 1 - eps]`` of their dtype."""
    eps = float(np.finfo(probs.dtype.np_dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds of binary probabilities, or the logs of categorical ones (clamped first).

    >>> symgrad.distributions.utils.probs_to_logits(symgrad.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """The sigmoid of binary logits, or the softmax of categorical ones over the last dim.

    >>> symgrad.distributions.utils.logits_to_probs(symgrad.tensor([0.0]), is_binary=True)
    tensor([0.5000])
    """
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


def _tril_mask(n: int, diag: int) -> Tensor:
    """The ``n × n`` mask of the entries on and below diagonal ``diag``."""
    index = symgrad.arange(n)
    return index < index.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of (a batch of) square matrices on and below diagonal ``diag``, row by row.

    >>> symgrad.distributions.utils.tril_matrix_to_vec(symgrad.tensor([[1., 2.], [3., 4.]]))
    tensor([1., 3., 4.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The square matrices whose entries on and below diagonal ``diag`` are ``vec``'s, row by
    row, zeros elsewhere.

    >>> symgrad.distributions.utils.vec_to_tril_matrix(symgrad.tensor([1., 3., 4.]))
    tensor([[1., 0.],
            [3., 4.]])
    """
    # n solves n (n + 1) / 2 + diag n + |diag| (diag + 1) / 2... as its quadratic's root
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(np.finfo(vec.dtype.np_dtype).eps):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros((*vec.shape[:-1], n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


class lazy_property:  # noqa: N801 - PyTorch's name
    """A parameter computed from another on first use, then kept (``Bernoulli.logits`` from
    ``probs``)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        with symgrad.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


class Distribution:
    """The base class of the distributions: ``batch_shape`` (independent distributions of the
    same kind) and ``event_shape`` (one sample's), ``sample``/``rsample``, ``log_prob``,
    ``entropy``, moments, and PyTorch's argument validation (on unless
    :meth:`set_default_validate_args` turns it off, or ``validate_args=False``).

    >>> d = symgrad.distributions.Normal(symgrad.zeros(2), symgrad.ones(2))
    >>> d.batch_shape, d.event_shape
    (symgrad.Size([2]), symgrad.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Switch argument validation on or off for the distributions made from now on.

        >>> symgrad.distributions.Distribution.set_default_validate_args(True)
        """
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Sequence[int] = Size(), event_shape: Sequence[int] = Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if not self._validate_args:
            return
        for param, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):
                continue  # (computed from another parameter, not given)
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to satisfy "
                                 f"the constraint {constraint!r}, but found invalid values:\n"
                                 f"{value}")

    @property
    def batch_shape(self) -> Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one sample, without batching."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """The constraint each parameter must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint:
        """The constraint the samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The distribution's mean."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The distribution's mode."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The distribution's variance."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Samples of shape ``sample_shape + batch_shape + event_shape``, not recorded.

        >>> symgrad.distributions.Normal(0.0, 1.0).sample((3,)).shape
        symgrad.Size([3])
        """
        with symgrad.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Reparameterized samples: differentiable in the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))``, with PyTorch's deprecation warning."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of :meth:`cdf`."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return self.entropy().exp()

    def _expanded(self, batch_shape: Sequence[int], **parameters: Any) -> Any:
        """A new distribution of this class over ``batch_shape`` holding ``parameters`` (each
        expanded by the caller), unvalidated but validating as self does (``expand``'s common
        part, PyTorch's ``_get_checked_instance``)."""
        new = type(self).__new__(type(self))
        new.__dict__.update(parameters)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _extended_shape(self, sample_shape: Sequence[int] = Size()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's checks of a value given to log_prob, cdf or icdf."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.ndim - len(self._event_shape)
        if tuple(value.shape[start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.shape} vs {self._event_shape}.")
        expected = self._extended_shape()
        for i, j in zip(reversed(value.shape), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.shape} vs {expected}.")
        if not bool(self.support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support "
                             f"({self.support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self) -> str:
        shown = [name for name in self.arg_constraints if name in self.__dict__]
        # (format(): a 0-d tensor prints as its number, as PyTorch's __format__ gives it)
        given = ", ".join(f"{name}: " + (format(self.__dict__[name]) if self.__dict__[name]
                                          .numel() == 1 else str(self.__dict__[name].size()))
                          for name in shown)
        return f"{type(self).__name__}({given})"


class ExponentialFamily(Distribution):
    """The distributions of an exponential family (``Normal``, ``Bernoulli``): the KL divergence
    of two of one family without a closed form registered is the Bregman divergence of the
    log-normalizer; between two families PyTorch's refusal, with its message.

    >>> issubclass(symgrad.distributions.Normal, symgrad.distributions.ExponentialFamily)
    True
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        """The natural parameters η of the family's density ``exp(<η, T(x)> - A(η))``."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """The log-normalizer A(η)."""
        raise NotImplementedError


class Rate(Distribution):
    """The distributions of one parameter ``rate`` (a number or a tensor): ``Exponential``,
    ``Poisson``.

    >>> symgrad.distributions.Poisson(symgrad.ones(2)).batch_shape
    symgrad.Size([2])
    """

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        shape = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Rate:
        """The same distribution with ``rate`` expanded to ``batch_shape``.

        >>> symgrad.distributions.Exponential(1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, rate=self.rate.expand(batch_shape))


class LocationScale(Distribution):
    """The distributions of a location ``loc`` and a scale ``scale`` (numbers or tensors,
    broadcast): ``Normal``, ``Laplace``. Their mean and mode are ``loc``.

    >>> symgrad.distributions.Laplace(symgrad.zeros(2), 1.0).batch_shape
    symgrad.Size([2])
    """

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers_only = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(Size() if numbers_only else self.loc.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    def expand(self, batch_shape: Sequence[int]) -> LocationScale:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Normal(0.0, 1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, loc=self.loc.expand(batch_shape),
                              scale=self.scale.expand(batch_shape))
