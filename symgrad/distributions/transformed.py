"""Distributions of transformed draws, PyTorch's ``TransformedDistribution``, and the ones built
on it: ``LogNormal``, ``HalfNormal``, ``Gumbel``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, _sum_rightmost, broadcast_all
from symgrad.distributions.normal import Normal
from symgrad.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    Transform,
)
from symgrad.distributions.uniform import Uniform
from symgrad.tensor import Size, Tensor

_EULER = 0.57721566490153286060


class TransformedDistribution(Distribution):
    """``base_distribution``'s draws put through ``transforms`` in order: ``log_prob`` inverts
    them and subtracts their log-Jacobians (summed over the event dims); ``cdf`` and ``icdf``
    follow their monotony. A transform coupling more dims than the base's event reads the base's
    batch dims as event dims (``Independent``).

    >>> T = symgrad.distributions.transforms
    >>> d = symgrad.distributions.TransformedDistribution(
    ...     symgrad.distributions.Normal(0.0, 1.0), [T.ExpTransform()])
    >>> d.log_prob(symgrad.tensor(2.0))
    tensor(-1.8523)
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution,
                 transforms: Transform | list[Transform],
                 validate_args: bool | None = None) -> None:
        from symgrad.distributions.multivariate import Independent

        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not isinstance(transforms, list):
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        elif not all(isinstance(t, Transform) for t in transforms):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        self.transforms = transforms
        base_shape = Size(tuple(base_distribution.batch_shape)
                          + tuple(base_distribution.event_shape))
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{chain.domain.event_dim}, but got {base_shape}.")
        forward_shape = Size(chain.forward_shape(base_shape))
        expanded = Size(chain.inverse_shape(forward_shape))
        if base_shape != expanded:
            base_distribution = base_distribution.expand(
                expanded[:len(expanded) - base_event_dim])
        reinterpreted = chain.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        event_dim = max(chain.codomain.event_dim, base_event_dim + chain.codomain.event_dim
                        - chain.domain.event_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> TransformedDistribution:
        """The same distribution over ``batch_shape`` (the base expanded).

        >>> symgrad.distributions.LogNormal(0.0, 1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        shape: Sequence[int] = tuple(batch_shape) + tuple(self.event_shape)
        for transform in reversed(self.transforms):
            shape = transform.inverse_shape(shape)
        base_batch = tuple(shape)[:len(shape) - len(self.base_dist.event_shape)]
        return self._expanded(batch_shape, base_dist=self.base_dist.expand(base_batch),
                              transforms=self.transforms)

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> constraints.Constraint:
        """The last transform's codomain (the base's support without transforms), over the
        event's dims."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Transformed base samples, not recorded."""
        with symgrad.no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Transformed reparameterized base samples: differentiable in the parameters."""
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        """The base log density of the inverted value, minus the transforms' log-Jacobians."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Tensor | float = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Tensor) -> Tensor:
        """The base cdf of the inverted value (mirrored for a decreasing composition)."""
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        """The transformed base icdf (of the mirrored value for a decreasing composition)."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value


class LogNormal(TransformedDistribution):
    """``exp`` of a normal draw of mean ``loc`` and standard deviation ``scale``.

    >>> symgrad.distributions.LogNormal(0.5, 2.0).log_prob(symgrad.tensor(1.5))
    tensor(-2.0187)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The normal's mean."""
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The normal's standard deviation."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        """``exp(loc + scale² / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        """``exp(loc - scale²)``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        """``(exp(scale²) - 1) exp(2 loc + scale²)``."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Tensor:
        """The normal's entropy plus ``loc``.

        >>> symgrad.distributions.LogNormal(0.0, 1.0).entropy()
        tensor(1.4189)
        """
        return self.base_dist.entropy() + self.loc


class Folded(TransformedDistribution):
    """``|x|`` for x of a distribution of location 0 and ``scale``, symmetric about 0
    (``base_family``): twice its density on the non-negative half-line (the base of
    :class:`HalfNormal` and ``HalfCauchy``)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    base_family: type

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(self.base_family(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        """The base distribution's scale.

        >>> symgrad.distributions.HalfNormal(2.0).scale
        tensor(2.)
        """
        return self.base_dist.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """The base's log density plus ``log 2``; -inf below 0.

        >>> symgrad.distributions.HalfNormal(1.0).log_prob(symgrad.tensor(-1.0))
        tensor(-inf)
        """
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return symgrad.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        """``2 F(value) - 1``, F the base's cdf.

        >>> symgrad.distributions.HalfNormal(1.0).cdf(symgrad.tensor(0.0))
        tensor(0.)
        """
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        """The base's icdf of ``(prob + 1) / 2``.

        >>> symgrad.distributions.HalfNormal(1.0).icdf(symgrad.tensor(0.0))
        tensor(0.)
        """
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        """The base's entropy minus ``log 2``.

        >>> symgrad.distributions.HalfNormal(1.0).entropy()
        tensor(0.7258)
        """
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(Folded):
    """``|x|`` for x normal of mean 0 and standard deviation ``scale``.

    >>> symgrad.distributions.HalfNormal(2.0).log_prob(symgrad.tensor(1.5))
    tensor(-1.2002)
    """

    base_family = Normal

    @property
    def mean(self) -> Tensor:
        """``scale √(2/π)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Tensor:
        """0."""
        return symgrad.zeros_like(self.scale)

    @property
    def variance(self) -> Tensor:
        """``scale² (1 - 2/π)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)



class Gumbel(TransformedDistribution):
    """The Gumbel distribution of location ``loc`` and scale ``scale``:
    ``loc - scale log(-log(u))``, u uniform.

    >>> symgrad.distributions.Gumbel(1.0, 2.0).log_prob(symgrad.tensor(1.5))
    tensor(-1.7219)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = np.finfo(self.loc.dtype.np_dtype)
        tiny, top = float(info.tiny), float(1 - info.eps)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(tiny, top, validate_args=validate_args)
        else:
            base = Uniform(symgrad.full_like(self.loc, tiny), symgrad.full_like(self.loc, top),
                           validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(0, -symgrad.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc, -self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Gumbel:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.Gumbel(0.0, 1.0).expand((3,)).batch_shape
        symgrad.Size([3])
        """
        new = super().expand(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        return new

    def log_prob(self, value: Tensor) -> Tensor:
        """``y - exp(y) - log(scale)``, ``y = (loc - value) / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        """``loc + scale γ`` (γ the Euler–Mascheroni constant)."""
        return self.loc + self.scale * _EULER

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """``π scale / √6``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        """``stddev²``."""
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        """``log(scale) + 1 + γ``.

        >>> symgrad.distributions.Gumbel(0.0, 1.0).entropy()
        tensor(1.5772)
        """
        return self.scale.log() + (1 + _EULER)
