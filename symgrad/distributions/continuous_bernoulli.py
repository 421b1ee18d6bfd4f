"""The continuous Bernoulli distribution, PyTorch's ``ContinuousBernoulli``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli import BinaryProbability
from symgrad.distributions.distribution import (
    ExponentialFamily,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
)
from symgrad.tensor import Size, Tensor


class ContinuousBernoulli(BinaryProbability, ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] of parameter λ = ``probs`` (or
    ``sigmoid(logits)``): density ``C(λ) λ^x (1 - λ)^(1 - x)``, ``C(λ) = 2 atanh(1 - 2λ) /
    (1 - 2λ)``. Where λ lies within ``lims`` of 1/2 the closed forms lose precision and
    Taylor expansions about 1/2 replace them. ``rsample`` is the icdf of a uniform draw.

    >>> symgrad.distributions.ContinuousBernoulli(0.3).log_prob(symgrad.tensor(0.2))
    tensor(0.2245)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _lims = (0.499, 0.501)

    def __init__(self, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        if probs is not None and logits is None:
            scalar = isinstance(probs, numbers.Number)
            (probs,) = broadcast_all(probs)
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(probs).all()):
                raise ValueError("The parameter probs has invalid values")
            probs = clamp_probs(probs)
            if scalar:
                probs = probs.item()
        self._lims = lims
        super().__init__(probs, logits, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> ContinuousBernoulli:
        """The same distribution with its parameter expanded to ``batch_shape``.

        >>> symgrad.distributions.ContinuousBernoulli(0.3).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        new = super().expand(batch_shape)
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self) -> Tensor:
        """``sigmoid(logits)``, kept within ``[eps, 1 - eps]``."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """λ, or ``lims[0]`` where λ is near 1/2 (the closed forms' branch, kept finite)."""
        return symgrad.where(self._outside_unstable_region(), self.probs,
                             self._lims[0] * symgrad.ones_like(self.probs))

    def _log_odds_of_failure(self, cut: Tensor) -> Tensor:
        return symgrad.log1p(-cut) - symgrad.log(cut)

    def _cont_bern_log_norm(self) -> Tensor:
        """``log C(λ) = log |log((1 - λ) / λ)| - log |1 - 2λ|``; near 1/2 its expansion
        ``log 2 + (4/3 + 104/45 t) t``, ``t = (λ - 1/2)²``."""
        cut = self._cut_probs()
        below, above = cut <= 0.5, cut >= 0.5
        # (log |1 - 2λ| on each side of 1/2, the other side's argument made harmless)
        log_gap = symgrad.where(below, symgrad.log1p(-2.0 * symgrad.where(
            below, cut, symgrad.zeros_like(cut))), symgrad.log(2.0 * symgrad.where(
                above, cut, symgrad.ones_like(cut)) - 1.0))
        log_norm = symgrad.log(symgrad.abs(self._log_odds_of_failure(cut))) - log_gap
        t = symgrad.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * t) * t
        return symgrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        """``λ / (2λ - 1) + 1 / log((1 - λ) / λ)``; near 1/2, ``1/2 + (1/3 + 16/45 x²) x``,
        ``x = λ - 1/2``."""
        cut = self._cut_probs()
        closed = cut / (2.0 * cut - 1.0) + 1.0 / self._log_odds_of_failure(cut)
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * symgrad.pow(x, 2)) * x
        return symgrad.where(self._outside_unstable_region(), closed, taylor)

    @property
    def variance(self) -> Tensor:
        """``λ (λ - 1) / (1 - 2λ)² + 1 / log((1 - λ) / λ)²``; near 1/2,
        ``1/12 - (1/15 - 128/945 t) t``, ``t = (λ - 1/2)²``."""
        cut = self._cut_probs()
        closed = cut * (cut - 1.0) / symgrad.pow(1.0 - 2.0 * cut, 2) + \
            1.0 / symgrad.pow(self._log_odds_of_failure(cut), 2)
        t = symgrad.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * t) * t
        return symgrad.where(self._outside_unstable_region(), closed, taylor)

    @property
    def stddev(self) -> Tensor:
        """The square root of the variance."""
        return symgrad.sqrt(self.variance)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The icdf of uniform draws, not recorded.

        >>> symgrad.distributions.ContinuousBernoulli(symgrad.tensor([0.2])).sample((3,)).shape
        symgrad.Size([3, 1])
        """
        u = symgrad.rand(*self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with symgrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The icdf of uniform draws: differentiable in λ."""
        u = symgrad.rand(*self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        """``x log λ + (1 - x) log(1 - λ) + log C(λ)``, the first two as a cross-entropy of
        the logits."""
        from symgrad.nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + \
            self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        """``(λ^x (1 - λ)^(1 - x) + λ - 1) / (2λ - 1)`` (x near λ = 1/2), 0 below 0 and 1
        above 1."""
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        closed = (symgrad.pow(cut, value) * symgrad.pow(1.0 - cut, 1.0 - value) + cut - 1.0) \
            / (2.0 * cut - 1.0)
        inside = symgrad.where(self._outside_unstable_region(), closed, value)
        return symgrad.where(value <= 0.0, symgrad.zeros_like(value), symgrad.where(
            value >= 1.0, symgrad.ones_like(value), inside))

    def icdf(self, value: Tensor) -> Tensor:
        """``log1p((2λ - 1) u - λ) - log1p(-λ)`` over ``log(λ / (1 - λ))`` (u near λ = 1/2).

        >>> symgrad.distributions.ContinuousBernoulli(0.5).icdf(symgrad.tensor(0.25))
        tensor(0.2500)
        """
        cut = self._cut_probs()
        closed = (symgrad.log1p(-cut + value * (2.0 * cut - 1.0)) - symgrad.log1p(-cut)) / \
            -self._log_odds_of_failure(cut)
        return symgrad.where(self._outside_unstable_region(), closed, value)

    def entropy(self) -> Tensor:
        """``mean log((1 - λ) / λ) - log C(λ) - log(1 - λ)``.

        >>> symgrad.distributions.ContinuousBernoulli(0.5).entropy()
        tensor(0.)
        """
        log_failure, log_success = symgrad.log1p(-self.probs), symgrad.log(self.probs)
        return self.mean * (log_failure - log_success) - self._cont_bern_log_norm() - \
            log_failure
