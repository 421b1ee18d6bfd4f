"""``kl_divergence(p, q)`` and ``register_kl``: the KL divergences PyTorch gives in closed form,
for the distributions symgrad has."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import symgrad
from symgrad.creation import full_like
from symgrad.distributions.bernoulli import Bernoulli
from symgrad.distributions.categorical import Categorical, OneHotCategorical
from symgrad.distributions.cauchy import Cauchy
from symgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from symgrad.distributions.dirichlet import Beta, Dirichlet
from symgrad.distributions.discrete import Binomial, Geometric, Poisson
from symgrad.distributions.distribution import Distribution, ExponentialFamily, _sum_rightmost
from symgrad.distributions.exponential import Exponential, Laplace
from symgrad.distributions.gamma import Gamma
from symgrad.distributions.lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _lowrank_logdet,
    _lowrank_mahalanobis,
    _mahalanobis,
    _trace_xxt,
)
from symgrad.distributions.multivariate import Independent, MultivariateNormal
from symgrad.distributions.normal import Normal
from symgrad.distributions.pareto import Pareto
from symgrad.distributions.transformed import Gumbel, TransformedDistribution
from symgrad.distributions.uniform import Uniform
from symgrad.nn.functional import softplus
from symgrad.tensor import Tensor

__all__ = ["kl_divergence", "register_kl"]

_KL: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """A decorator registering ``fn(p, q)`` as the KL divergence of ``type_p`` from
    ``type_q`` (the most specific registered pair is used for subclasses).

    >>> @symgrad.distributions.register_kl(symgrad.distributions.Uniform,
    ...                                    symgrad.distributions.Normal)
    ... def _kl(p, q):
    ...     raise NotImplementedError
    """
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn: Callable) -> Callable:
        _KL[type_p, type_q] = fn
        return fn

    return decorator


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, batched over the distributions' batch shape.

    >>> d = symgrad.distributions
    >>> d.kl_divergence(d.Normal(0.0, 1.0), d.Normal(1.0, 2.0))
    tensor(0.4431)
    """
    matches = [(tp, tq) for tp, tq in _KL if isinstance(p, tp) and isinstance(q, tq)]
    if not matches:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{type(p).__name__} and q type {type(q).__name__}")
    best = min(matches, key=lambda pair: (type(p).__mro__.index(pair[0]),
                                         type(q).__mro__.index(pair[1])))
    return _KL[best](p, q)


@register_kl(Normal, Normal)
def _normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Categorical, Categorical)
def _categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _one_hot_one_hot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _categorical_categorical(p._categorical, q._categorical)


@register_kl(Binomial, Binomial)
def _binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    # n E_p[one trial's log ratio]; infinite where q has fewer trials than p
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is "
                                  "not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    kl[p.total_count > q.total_count] = math.inf
    return kl


@register_kl(Uniform, Uniform)
def _uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Normal, Uniform)
def _normal_uniform(p: Normal, q: Uniform) -> Tensor:
    return full_like(p.loc, math.inf)  # (a normal's mass reaches beyond any interval)


@register_kl(Uniform, Normal)
def _uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Gamma, Gamma)
def _gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    # E_p[log p - log q] with E_p[log x] = digamma(a) - log(rate) and E_p[x] = a / rate
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = symgrad.lgamma(q.concentration) - symgrad.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * symgrad.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Poisson, Poisson)
def _poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Geometric, Geometric)
def _geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    # E_p[log q] = E_p[k] log(1 - q) + log(q), E_p[k] = 1 / p - 1
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Cauchy, Cauchy)
def _cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() \
        - (4 * p.scale * q.scale).log()


@register_kl(Dirichlet, Dirichlet)
def _dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    # E_p[log p - log q], with E_p[log x_i] = digamma(p_i) - digamma(Σ p)
    total_p, total_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = symgrad.lgamma(total_p) - symgrad.lgamma(total_q)
    t2 = (symgrad.lgamma(p.concentration) - symgrad.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = symgrad.digamma(p.concentration) - symgrad.digamma(total_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Beta, Beta)
def _beta_beta(p: Beta, q: Beta) -> Tensor:
    return _dirichlet_dirichlet(p._dirichlet, q._dirichlet)


@register_kl(TransformedDistribution, TransformedDistribution)
def _transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    # the same bijections keep the divergence of the bases (PyTorch refuses others, wordless)
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _independent_independent(p: Independent, q: Independent) -> Tensor:
    # the bases' divergence summed over the reinterpreted dims (PyTorch refuses other counts)
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


def _check_events(p: Distribution, q: Distribution, kinds: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {kinds} with                          "
                         "different event shapes cannot be computed")


def _half_log_det(tril: Tensor) -> Tensor:
    return tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _woodbury_factor(q: LowRankMultivariateNormal) -> Tensor:
    """``A = C⁻¹ Wᵀ D⁻¹`` of q, so that ``Σ_q⁻¹ = D⁻¹ - Aᵀ A``."""
    return symgrad.linalg.solve_triangular(
        q._capacitance_tril,
        q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2), upper=False)


def _common_batch(*tensors: Tensor) -> tuple[int, ...]:
    return tuple(symgrad.broadcast_shapes(*(tuple(t.shape[:-2]) for t in tensors)))


# KL between normals: (log |Σq| - log |Σp| + tr(Σq⁻¹ Σp) + Mahalanobis_q(μq - μp) - n) / 2

@register_kl(MultivariateNormal, MultivariateNormal)
def _mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    _check_events(p, q, "Multivariate Normals")
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    batch = _common_batch(lp, lq)
    trace = _trace_xxt(symgrad.linalg.solve_triangular(
        lq.expand(*batch, n, n), lp.expand(*batch, n, n), upper=False))
    return _half_log_det(lq) - _half_log_det(lp) + 0.5 * (
        trace + _mahalanobis(lq, q.loc - p.loc) - n)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_events(p, q, "Low Rank Multivariate Normals")
    log_dets = _lowrank_logdet(q._unbroadcasted_cov_diag, q._capacitance_tril) - \
        _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril)
    mahalanobis = _lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                       q.loc - p.loc, q._capacitance_tril)
    # tr((Dq⁻¹ - AᵀA)(Wp Wpᵀ + Dp)), term by term
    a, dp, dq = _woodbury_factor(q), p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    wp = p._unbroadcasted_cov_factor
    trace = (dp / dq).sum(-1) + _trace_xxt(wp * dq.rsqrt().unsqueeze(-1)) \
        - _trace_xxt(a * dp.sqrt().unsqueeze(-2)) - _trace_xxt(a.matmul(wp))
    return 0.5 * (log_dets + trace + mahalanobis - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    lp = p._unbroadcasted_scale_tril
    log_dets = _lowrank_logdet(q._unbroadcasted_cov_diag, q._capacitance_tril) - \
        2 * _half_log_det(lp)
    mahalanobis = _lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                       q.loc - p.loc, q._capacitance_tril)
    # tr((Dq⁻¹ - AᵀA) Lp Lpᵀ)
    a = _woodbury_factor(q)
    trace = _trace_xxt(lp * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) - \
        _trace_xxt(a.matmul(lp))
    return 0.5 * (log_dets + trace + mahalanobis - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    lq = q._unbroadcasted_scale_tril
    log_dets = 2 * _half_log_det(lq) - _lowrank_logdet(p._unbroadcasted_cov_diag,
                                                        p._capacitance_tril)
    mahalanobis = _mahalanobis(lq, q.loc - p.loc)
    # tr(Lq⁻ᵀ Lq⁻¹ (Wp Wpᵀ + Dp)) = |Lq⁻¹ Wp|² + |Lq⁻¹ √Dp|²
    n, m = p.event_shape[0], p.cov_factor.shape[-1]
    batch = _common_batch(lq, p._unbroadcasted_cov_factor)
    lq = lq.expand(*batch, n, n)
    trace = _trace_xxt(symgrad.linalg.solve_triangular(
        lq, p._unbroadcasted_cov_factor.expand(*batch, n, m), upper=False)) + \
        _trace_xxt(symgrad.linalg.solve_triangular(
            lq, symgrad.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(*batch, n, n),
            upper=False))
    return 0.5 * (log_dets + trace + mahalanobis - p.event_shape[0])


@register_kl(Exponential, Exponential)
def _exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    # log(rate_p / rate_q) + rate_q / rate_p - 1
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Pareto, Pareto)
def _pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    # log(a_p / a_q) + a_q log(s_p / s_q) + a_q / a_p - 1; infinite where p reaches below q
    alpha_ratio = q.alpha / p.alpha
    kl = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    kl[p.scale < q.scale] = math.inf
    return kl


@register_kl(Pareto, Exponential)
def _pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    # -H(p) - log(rate) + rate E_p[x], E_p[x] = a s / (a - 1) (infinite for a <= 1)
    kl = (p.alpha / (p.scale * q.rate)).log() - p.alpha.reciprocal() - 1 + \
        q.rate * p.alpha * p.scale / (p.alpha - 1)
    kl[p.alpha <= 1] = math.inf
    return kl


@register_kl(Pareto, Gamma)
def _pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    # -H(p) - E_p[log q], with E_p[log x] = log s + 1 / a and E_p[x] = a s / (a - 1)
    mean_log = p.scale.log() + p.alpha.reciprocal()
    kl = p.alpha.log() - mean_log - 1 + q.concentration.lgamma() \
        - q.concentration * q.rate.log() + (1 - q.concentration) * mean_log \
        + q.rate * p.alpha * p.scale / (p.alpha - 1)
    kl[p.alpha <= 1] = math.inf
    return kl


@register_kl(Pareto, Normal)
def _pareto_normal(p: Pareto, q: Normal) -> Tensor:
    # -H(p) + log(√(2π) σ) + E_p[(x - μ)²] / (2σ²), E_p[(x - μ)²] = var + (mean - μ)²
    mean = p.alpha * p.scale / (p.alpha - 1)
    var = p.alpha * (p.scale / (p.alpha - 1)).pow(2) / (p.alpha - 2)
    kl = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log() - \
        p.alpha.reciprocal() - 1 + (var + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))
    kl[p.alpha <= 2] = math.inf
    return kl


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _continuous_bernoulli_pair(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    # E_p[log p - log q]: E_p[x] (logit_p - logit_q) + the log-normalizers' and log(1 - λ)'s
    return p.mean * (p.logits - q.logits) + (p._cont_bern_log_norm() + (-p.probs).log1p()) \
        + (-q._cont_bern_log_norm() - (-q.probs).log1p())


def _minus_expected_log_cb(start: Tensor, p: Distribution, q: ContinuousBernoulli) -> Tensor:
    """``start - E_p[log q]`` for p on [0, 1]: ``E_p[log q] = E_p[x] logit_q + log(1 - λ_q)
    + log C(λ_q)``."""
    return start - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return _minus_expected_log_cb(-p.entropy(), p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    # (infinite, as PyTorch, unless p lies strictly inside (0, 1))
    kl = _minus_expected_log_cb(-p.entropy(), p, q)
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return symgrad.where(outside, symgrad.ones_like(kl) * math.inf, kl)


@register_kl(ContinuousBernoulli, Exponential)
def _continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    # -H(p) + log(√(2π) σ) + E_p[(x - μ)²] / (2σ²), E_p[x²] = var + mean²
    t1 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + q.scale.log()
    t2 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return -p.entropy() + t1 + t2


@register_kl(ContinuousBernoulli, Uniform)
def _continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    # (PyTorch's test: infinite wherever q.low >= 0 or q.high <= 1)
    kl = -p.entropy() + (q.high - q.low).log()
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return symgrad.where(outside, symgrad.ones_like(kl) * math.inf, kl)


def _infinite(parameter: str) -> Callable[[Any, Any], Tensor]:
    """A KL divergence that is infinite throughout (q gives no mass where p has some), shaped
    as p's ``parameter``."""
    def kl(p: Any, q: Any) -> Tensor:
        return full_like(getattr(p, parameter), math.inf)
    return kl


for _p, _q, _parameter in ((Beta, Pareto, "concentration1"), (Exponential, Pareto, "rate"),
                           (Gamma, Pareto, "concentration"), (Gumbel, Pareto, "loc"),
                           (Laplace, Pareto, "loc"), (Normal, Pareto, "loc"),
                           (Pareto, Beta, "scale"), (Pareto, Uniform, "scale"),
                           (ContinuousBernoulli, Pareto, "probs"),
                           (Exponential, ContinuousBernoulli, "rate"),
                           (Gamma, ContinuousBernoulli, "concentration"),
                           (Gumbel, ContinuousBernoulli, "loc"),
                           (Laplace, ContinuousBernoulli, "loc"),
                           (Normal, ContinuousBernoulli, "loc"),
                           (Pareto, ContinuousBernoulli, "scale")):
    register_kl(_p, _q)(_infinite(_parameter))
del _p, _q, _parameter


@register_kl(ExponentialFamily, ExponentialFamily)
def _exponential_families(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    # (PyTorch's Bregman divergence needs one family: between two, its error, spaces and all)
    raise NotImplementedError("The cross KL-divergence between different exponential families "
                              "cannot                             be computed using Bregman "
                              "divergences")
