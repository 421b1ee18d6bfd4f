"""The normal distribution over vectors of low-rank-plus-diagonal covariance, PyTorch's
``LowRankMultivariateNormal``: ``Σ = W Wᵀ + diag(D)``, with the Woodbury identity and the
matrix determinant lemma working through the small ``m × m`` capacitance ``I + Wᵀ D⁻¹ W``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, lazy_property
from symgrad.tensor import Size, Tensor


def _capacitance_tril(w: Tensor, d: Tensor) -> Tensor:
    """The lower Cholesky factor of ``I + Wᵀ D⁻¹ W``."""
    m = w.shape[-1]
    capacitance = (w.mT / d.unsqueeze(-2)) @ w + symgrad.eye(m, dtype=w.dtype)
    return symgrad.linalg.cholesky(capacitance)


def _lowrank_logdet(d: Tensor, capacitance_tril: Tensor) -> Tensor:
    """``log |W Wᵀ + D| = log |I + Wᵀ D⁻¹ W| + log |D|`` (the determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _mahalanobis(tril: Tensor, x: Tensor) -> Tensor:
    """``|L⁻¹ x|²`` for the lower-triangular ``tril``, batched."""
    solved = symgrad.linalg.solve_triangular(tril, x.unsqueeze(-1), upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


def _lowrank_mahalanobis(w: Tensor, d: Tensor, x: Tensor, capacitance_tril: Tensor) -> Tensor:
    """``xᵀ (W Wᵀ + D)⁻¹ x = Σ x² / D - |C⁻¹ Wᵀ D⁻¹ x|²`` (Woodbury), C the capacitance's
    factor."""
    projected = ((w.mT / d.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / d).sum(-1) - _mahalanobis(capacitance_tril, projected)


def _trace_xxt(x: Tensor) -> Tensor:
    """``tr(X Xᵀ)``, the sum of squares over the last two dims."""
    return x.reshape(*x.shape[:-2], -1).pow(2).sum(-1)


class LowRankMultivariateNormal(Distribution):
    """The normal distribution over vectors of mean ``loc`` and covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)`` (``cov_factor`` of shape ``n × m``),
    batched and broadcast. ``rsample`` is ``loc + W eps_W + √D eps_D``.

    >>> d = symgrad.distributions.LowRankMultivariateNormal(
    ...     symgrad.zeros(2), symgrad.ones(2, 1), symgrad.ones(2))
    >>> d.log_prob(symgrad.tensor([1.0, 0.0]))
    tensor(-2.7205)
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, diag_ = symgrad.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as error:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from error
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> LowRankMultivariateNormal:
        """The same distribution over ``batch_shape``.

        >>> symgrad.distributions.LowRankMultivariateNormal(
        ...     symgrad.zeros(2), symgrad.ones(2, 1), symgrad.ones(2)).expand((3,)).batch_shape
        symgrad.Size([3])
        """
        loc_shape = (*batch_shape, *self.event_shape)
        return self._expanded(
            batch_shape, loc=self.loc.expand(loc_shape), cov_diag=self.cov_diag.expand(loc_shape),
            cov_factor=self.cov_factor.expand(*loc_shape, self.cov_factor.shape[-1]),
            _unbroadcasted_cov_factor=self._unbroadcasted_cov_factor,
            _unbroadcasted_cov_diag=self._unbroadcasted_cov_diag,
            _capacitance_tril=self._capacitance_tril)

    def _matrix_shape(self) -> tuple[int, ...]:
        return (*self._batch_shape, *self._event_shape, *self._event_shape)

    @property
    def mean(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The covariance's diagonal: ``Σ_j W_ij² + D_i``."""
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
                ).expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The covariance's lower Cholesky factor: ``√D chol(I + D^-½ W Wᵀ D^-½)``."""
        n = self._event_shape[0]
        root = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / root
        inner = scaled @ scaled.mT + symgrad.eye(n, dtype=scaled.dtype)
        return (root * symgrad.linalg.cholesky(inner)).expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``W Wᵀ + diag(D)``."""
        w = self._unbroadcasted_cov_factor
        return (w @ w.mT + symgrad.diag_embed(self._unbroadcasted_cov_diag)).expand(
            *self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """``D⁻¹ - Aᵀ A``, ``A = C⁻¹ Wᵀ D⁻¹`` (Woodbury)."""
        d = self._unbroadcasted_cov_diag
        a = symgrad.linalg.solve_triangular(
            self._capacitance_tril, self._unbroadcasted_cov_factor.mT / d.unsqueeze(-2),
            upper=False)
        return (symgrad.diag_embed(d.reciprocal()) - a.mT @ a).expand(*self._matrix_shape())

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``loc + W eps_W + √D eps_D``, eps standard normal: differentiable in the
        parameters.

        >>> symgrad.distributions.LowRankMultivariateNormal(
        ...     symgrad.zeros(2), symgrad.ones(2, 1), symgrad.ones(2)).rsample((4,)).shape
        symgrad.Size([4, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        eps_w = symgrad.randn(*shape[:-1], self.cov_factor.shape[-1], dtype=self.loc.dtype)
        eps_d = symgrad.randn(*shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1) \
            + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(n log 2π + log |Σ| + M) / 2``, M the squared Mahalanobis distance."""
        if self._validate_args:
            self._validate_sample(value)
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        m = _lowrank_mahalanobis(w, d, value - self.loc, self._capacitance_tril)
        log_det = _lowrank_logdet(d, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + m)

    def entropy(self) -> Tensor:
        """``(n (1 + log 2π) + log |Σ|) / 2``.

        >>> symgrad.distributions.LowRankMultivariateNormal(
        ...     symgrad.zeros(2), symgrad.zeros(2, 1), symgrad.ones(2)).entropy()
        tensor(2.8379)
        """
        log_det = _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)
        entropy = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return entropy if not self._batch_shape else entropy.expand(*self._batch_shape)
