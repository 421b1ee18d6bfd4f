"""The Wishart distribution of positive definite matrices, PyTorch's ``Wishart``."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import (
    ExponentialFamily,
    lazy_property,
    vec_to_tril_matrix,
)
from symgrad.distributions.gamma import Chi2
from symgrad.distributions.multivariate import scale_tril_of
from symgrad.tensor import Size, Tensor

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma function ``Σ_{i<p} ψ(x - i/2)`` (for x > (p - 1)/2)."""
    if not bool((x > (p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = symgrad.arange(p, dtype=x.dtype).div(2).expand(*x.shape, -1)
    return symgrad.digamma(x.unsqueeze(-1) - halves).sum(-1)


def _cholesky_solve(b: Tensor, tril: Tensor) -> Tensor:
    """``(L Lᵀ)⁻¹ b`` by two triangular solves."""
    inner = symgrad.linalg.solve_triangular(tril, b, upper=False)
    return symgrad.linalg.solve_triangular(tril.mT, inner, upper=True)


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom and scale matrix given as one of
    ``covariance_matrix``, ``precision_matrix`` or its lower Cholesky factor ``scale_tril``:
    the law of ``Σ_k x_k x_kᵀ`` for ``df`` normal vectors of that covariance. ``rsample`` is
    Bartlett's decomposition (chi-squared diagonal, normal lower part), differentiable in both.

    >>> d = symgrad.distributions.Wishart(symgrad.tensor(3.0), symgrad.eye(2))
    >>> d.log_prob(symgrad.eye(2))
    tensor(-3.5310)
    """

    support = constraints.positive_definite
    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """PyTorch's, with ``df`` above the dimension minus one."""
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df: Tensor | float, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = symgrad.tensor(df, dtype=param.dtype)
        else:
            batch_shape = Size(symgrad.broadcast_shapes(tuple(param.shape[:-2]),
                                                        tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is not None:
                self.__dict__[name] = matrix.expand(*batch_shape, -1, -1)
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_of(scale_tril, covariance_matrix,
                                                       precision_matrix)
        self._dist_chi2 = self._chi2(self.df, batch_shape)

    def _chi2(self, df: Tensor, batch_shape: Sequence[int]) -> Chi2:
        """The chi-squared laws of Bartlett's diagonal: ``df - i`` degrees of freedom."""
        p = self._event_shape[-1]
        steps = symgrad.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df.unsqueeze(-1) - steps.expand(*batch_shape, -1))

    @property
    def _batch_dims(self) -> list[int]:
        return [-(i + 1) for i in range(len(self._batch_shape))]

    def expand(self, batch_shape: Sequence[int]) -> Wishart:
        """The same distribution over ``batch_shape``.

        >>> symgrad.distributions.Wishart(3.0, symgrad.eye(2)).expand((4,)).batch_shape
        symgrad.Size([4])
        """
        batch_shape = Size(batch_shape)
        shape = (*batch_shape, *self.event_shape)
        given = {name: self.__dict__[name].expand(shape) for name in (
            "covariance_matrix", "scale_tril", "precision_matrix") if name in self.__dict__}
        new = self._expanded(batch_shape, df=self.df.expand(batch_shape),
                             _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril.expand(
                                 shape), **given)
        new._dist_chi2 = new._chi2(new.df, batch_shape)
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The scale matrix's lower Cholesky factor."""
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The scale matrix ``L Lᵀ``."""
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.transpose(-2, -1)).expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The scale matrix's inverse."""
        identity = symgrad.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return _cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            *self._batch_shape, *self._event_shape)

    @property
    def mean(self) -> Tensor:
        """``df V``."""
        return self.df.view(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        """``(df - p - 1) V``; nan where ``df <= p + 1``."""
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        """``df (V_ij² + V_ii V_jj)``."""
        v = self.covariance_matrix
        diagonal = v.diagonal(dim1=-2, dim2=-1)
        return self.df.view(*self._batch_shape, 1, 1) * (
            v.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``(L A)(L A)ᵀ``, A lower triangular: square roots of chi-squared draws on the
        diagonal (at least the dtype's eps), standard normals below it."""
        p = self._event_shape[-1]
        roots = self._dist_chi2.rsample(sample_shape).sqrt()
        roots = roots.clamp(min=float(np.finfo(roots.dtype.np_dtype).eps))
        below = symgrad.randn(*sample_shape, *self._batch_shape, p * (p - 1) // 2,
                              dtype=roots.dtype)
        factor = self._unbroadcasted_scale_tril @ (symgrad.diag_embed(roots)
                                                   + vec_to_tril_matrix(below, diag=-1))
        return factor @ factor.transpose(-2, -1)

    def _flagged(self, sample: Tensor, positive_definite: bool) -> Tensor:
        found = self.support.check(sample)
        if not positive_definite:
            found = ~found
        return found.amax(self._batch_dims) if self._batch_shape else found

    def rsample(self, sample_shape: Sequence[int] = Size(),
                max_try_correction: int | None = None) -> Tensor:
        """Bartlett draws, differentiable in ``df`` (implicitly) and the scale. PyTorch's
        check for singular draws flags the positive definite ones: it warns "Singular sample
        detected." and draws those again (up to ``max_try_correction`` times) until the new
        draws are positive definite; symgrad does the same.

        >>> symgrad.distributions.Wishart(3.0, symgrad.eye(2)).rsample((5,)).shape
        symgrad.Size([5, 2, 2])
        """
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        flagged = self._flagged(sample, positive_definite=True)
        if bool(flagged.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(flagged[flagged].shape)
                sample[flagged] = fresh
                flagged[flagged.clone()] = self._flagged(fresh, positive_definite=False)
                if not bool(flagged.any()):
                    break
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        """``-ν (p log 2 / 2 + log |L|) - mvlgamma(ν/2, p) + (ν - p - 1)/2 log |X|
        - tr(V⁻¹ X) / 2``."""
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = _cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(dim=-1)
        return -nu * (p * _LOG_2 / 2 + half_log_det) - symgrad.mvlgamma(nu / 2, p=p) \
            + (nu - p - 1) / 2 * symgrad.linalg.slogdet(value).logabsdet - trace / 2

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        """``(-V⁻¹ / 2, (ν - p - 1) / 2)``."""
        nu, p = self.df, self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        """``(y + (p+1)/2)(p log 2 - log |-2x|) + mvlgamma(y + (p+1)/2, p)``."""
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-symgrad.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) \
            + symgrad.mvlgamma(y + (p + 1) / 2, p=p)

    def entropy(self) -> Tensor:
        """``(p + 1)(p log 2 / 2 + log |L|) + mvlgamma(ν/2, p) - (ν - p - 1)/2 mvdigamma(ν/2, p)
        + ν p / 2``.

        >>> symgrad.distributions.Wishart(3.0, symgrad.eye(2)).entropy()
        tensor(5.5310)
        """
        nu, p = self.df, self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (p + 1) * (p * _LOG_2 / 2 + half_log_det) + symgrad.mvlgamma(nu / 2, p=p) \
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2
