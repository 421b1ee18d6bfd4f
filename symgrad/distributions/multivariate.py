"""``Independent`` and ``MultivariateNormal``: distributions over vectors."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import (
    Distribution,
    LocationScale,
    _sum_rightmost,
    lazy_property,
)
from symgrad.tensor import Size, Tensor


class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dims read as
    event dims: ``log_prob`` sums over them (a diagonal Gaussian from ``Normal``).

    >>> base = symgrad.distributions.Normal(symgrad.zeros(3), symgrad.ones(3))
    >>> d = symgrad.distributions.Independent(base, 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(symgrad.zeros(3))
    (symgrad.Size([]), symgrad.Size([3]), tensor(-2.7568))
    """

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(batch):
            raise ValueError("Expected reinterpreted_batch_ndims <= "
                             "len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {len(batch)}")
        shape = batch + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:],
                         validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The base distribution's support over the event dims."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Tensor:
        """The base distribution's mean."""
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        """The base distribution's mode."""
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        """The base distribution's variance."""
        return self.base_dist.variance

    def expand(self, batch_shape: Sequence[int]) -> Independent:
        """The same distribution over ``batch_shape`` (the base expanded).

        >>> base = symgrad.distributions.Normal(symgrad.zeros(3), 1.0)
        >>> symgrad.distributions.Independent(base, 1).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        reinterpreted = tuple(self.event_shape)[:self.reinterpreted_batch_ndims]
        return self._expanded(batch_shape, base_dist=self.base_dist.expand(
            tuple(batch_shape) + reinterpreted),
            reinterpreted_batch_ndims=self.reinterpreted_batch_ndims)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The base distribution's samples."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The base distribution's reparameterized samples."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        """The base distribution's log_prob summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        """The base distribution's entropy summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"


class MultivariateNormal(Distribution):
    """The normal distribution over vectors of mean ``loc`` and covariance given as one of
    ``covariance_matrix``, ``precision_matrix`` or its lower Cholesky factor ``scale_tril``,
    batched and broadcast. ``rsample`` is ``loc + scale_tril @ eps``.

    >>> d = symgrad.distributions.MultivariateNormal(symgrad.zeros(2), symgrad.eye(2) * 4)
    >>> d.log_prob(symgrad.tensor([2.0, 0.0]))
    tensor(-3.7242)
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError(f"{name}{' matrix' if name == 'scale_tril' else ''} must be at "
                             "least two-dimensional, with optional leading batch dimensions")
        batch = tuple(symgrad.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        self.__dict__[name] = matrix.expand(*batch, -1, -1)
        self.loc = loc.expand(*batch, -1)
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_of(scale_tril, covariance_matrix,
                                                       precision_matrix)

    def _matrix_shape(self) -> tuple[int, ...]:
        return (*self._batch_shape, *self._event_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril.expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``scale_tril @ scale_tril^T``."""
        factor = self._unbroadcasted_scale_tril
        return (factor @ factor.mT).expand(*self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance."""
        factor = self._unbroadcasted_scale_tril
        return symgrad.linalg.inv(factor @ factor.mT).expand(*self._matrix_shape())

    mean = LocationScale.mean
    mode = LocationScale.mode

    @property
    def variance(self) -> Tensor:
        """The covariance's diagonal."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            *self._batch_shape, *self._event_shape)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``loc + scale_tril @ eps``, eps standard normal: differentiable in the parameters.

        >>> symgrad.distributions.MultivariateNormal(symgrad.zeros(2), symgrad.eye(2)
        ...                                          ).rsample((5,)).shape
        symgrad.Size([5, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        eps = symgrad.randn(*shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(k log(2π) + M) / 2 - log|L|``, M the squared Mahalanobis distance."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        solved = symgrad.linalg.solve_triangular(self._unbroadcasted_scale_tril,
                                                 diff.unsqueeze(-1), upper=False)
        mahalanobis = solved.squeeze(-1).pow(2).sum(-1)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis) - \
            half_log_det

    def entropy(self) -> Tensor:
        """``k (1 + log 2π) / 2 + log|L|``."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return entropy if not self._batch_shape else entropy.expand(*self._batch_shape)


def scale_tril_of(scale_tril: Tensor | None, covariance_matrix: Tensor | None,
                  precision_matrix: Tensor | None) -> Tensor:
    """The lower Cholesky factor of the covariance from whichever of the three is given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return symgrad.linalg.cholesky(covariance_matrix)
    return _precision_to_scale_tril(precision_matrix)


def _precision_to_scale_tril(precision: Tensor) -> Tensor:
    """The lower Cholesky factor of ``precision``'s inverse, without inverting it (PyTorch's
    flipped factorization)."""
    flipped = symgrad.linalg.cholesky(symgrad.flip(precision, (-2, -1)))
    inverse_factor = symgrad.transpose(symgrad.flip(flipped, (-2, -1)), -2, -1)
    identity = symgrad.eye(precision.shape[-1], dtype=precision.dtype)
    return symgrad.linalg.solve_triangular(inverse_factor, identity, upper=False)
