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
from symgrad.distributions.transformed import _EULER, Gumbel, HalfNormal, TransformedDistribution
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


# Pairs across families: KL(p || q) = -H(p) - E_p[log q], E_p taken in closed form.

def _x_log_x(x: Tensor) -> Tensor:
    return symgrad.special.xlogy(x, x)  # (0 at 0)


@register_kl(Laplace, Laplace)
def _laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    ratio, gap = p.scale / q.scale, (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * symgrad.exp(-gap / p.scale) - 1


@register_kl(Gumbel, Gumbel)
def _gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    # E_p[exp(-(x - μq)/βq)] = exp((μq - μp)/βq) Γ(1 + βp/βq)
    ratio, q_loc, p_loc = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    return (-ratio.log() - q_loc + p_loc) + ratio * _EULER + \
        symgrad.exp(q_loc + (1 + ratio).lgamma() - p_loc) - (1 + _EULER)


@register_kl(HalfNormal, HalfNormal)
def _half_normal_half_normal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _normal_normal(p.base_dist, q.base_dist)


@register_kl(Bernoulli, Poisson)
def _bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _beta_mean(p: Beta) -> Tensor:
    return p.concentration1 / (p.concentration1 + p.concentration0)


@register_kl(Beta, Exponential)
def _beta_exponential(p: Beta, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * _beta_mean(p)


@register_kl(Beta, Gamma)
def _beta_gamma(p: Beta, q: Gamma) -> Tensor:
    mean_log = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    return -p.entropy() + (q.concentration.lgamma() - q.concentration * q.rate.log()) \
        - (q.concentration - 1) * mean_log + q.rate * _beta_mean(p)


@register_kl(Beta, Normal)
def _beta_normal(p: Beta, q: Normal) -> Tensor:
    mean, var = _beta_mean(p), q.scale.pow(2)
    second = (mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + mean.pow(2)) * 0.5
    return -p.entropy() + 0.5 * (var * 2 * math.pi).log() + \
        (second - q.loc * mean + q.loc.pow(2) * 0.5) / var


@register_kl(Beta, Uniform)
def _beta_uniform(p: Beta, q: Uniform) -> Tensor:
    kl = -p.entropy() + (q.high - q.low).log()
    kl[(q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)] = math.inf
    return kl


@register_kl(Exponential, Gamma)
def _exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    # E_p[log x] = -γ - log rate_p, E_p[x] = 1 / rate_p
    ratio = q.rate / p.rate
    return -q.concentration * ratio.log() + ratio + q.concentration.lgamma() + \
        q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    product, loc_ratio = p.rate * q.scale, q.loc / q.scale
    return (product.log() - 1) - loc_ratio + \
        symgrad.exp(loc_ratio) * product / (product + 1) + product.reciprocal()


@register_kl(Exponential, Normal)
def _exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var, rate_sq = q.scale.pow(2), p.rate.pow(2)
    return 0.5 * symgrad.log(rate_sq * var * 2 * math.pi) - 1 + \
        (rate_sq.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var


@register_kl(Gamma, Exponential)
def _gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    # E_p[exp(-x / β)] = (1 + 1 / (rate β))^-a
    product, loc_ratio = p.rate * q.scale, q.loc / q.scale
    a = p.concentration
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = product.log() + a / product
    t3 = symgrad.exp(loc_ratio) * (1 + product.reciprocal()).pow(-a) - loc_ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _gamma_normal(p: Gamma, q: Normal) -> Tensor:
    var, rate_sq, a = q.scale.pow(2), p.rate.pow(2), p.concentration
    t1 = 0.5 * symgrad.log(rate_sq * var * 2 * math.pi) - a - a.lgamma()
    second = 0.5 * (a.pow(2) + a) / rate_sq
    return t1 + (a - 1) * a.digamma() + (second - q.loc * a / p.rate + 0.5 * q.loc.pow(2)) / var


@register_kl(Gumbel, Normal)
def _gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _EULER - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_EULER + 1)


@register_kl(Laplace, Normal)
def _laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var = q.scale.pow(2)
    ratio = p.scale.pow(2) / var
    t1 = 0.5 * symgrad.log(2 * ratio / math.pi)
    return -t1 + ratio + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var - 1


@register_kl(Normal, Gumbel)
def _normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    # E_p[exp(-(x - μq)/β)] = exp(-(μp - μq)/β + σ²/(2β²))
    mean_ratio, var_ratio = p.loc / q.scale, (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    return -(var_ratio.log() * 0.5) + (mean_ratio - loc_ratio) + \
        symgrad.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio) - \
        (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _normal_laplace(p: Normal, q: Laplace) -> Tensor:
    # E_p|x - μq| for a normal: its folded mean
    gap = p.loc - q.loc
    ratio, standardized = p.scale / q.scale, gap / p.scale
    folded = math.sqrt(2 / math.pi) * p.scale * symgrad.exp(-0.5 * standardized.pow(2)) + \
        gap * symgrad.erf(math.sqrt(0.5) * standardized)
    return -symgrad.log(ratio) + folded / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Beta)
def _uniform_beta(p: Uniform, q: Beta) -> Tensor:
    # E_p[log x] = (h log h - l log l - (h - l)) / (h - l), likewise for log(1 - x)
    width = p.high - p.low
    t1 = symgrad.log(width)
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - \
        (q.concentration1 + q.concentration0).lgamma()
    kl = t3 + t4 - t1 - t2
    kl[(p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)] = math.inf
    return kl


@register_kl(Uniform, Exponential)
def _uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    kl = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    kl[p.low < q.support.lower_bound] = math.inf
    return kl


@register_kl(Uniform, Gamma)
def _uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width = p.high - p.low
    mean_log_term = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    kl = -width.log() + (q.concentration.lgamma() - q.concentration * q.rate.log()) + \
        mean_log_term + q.rate * (p.high + p.low) / 2
    kl[p.low < q.support.lower_bound] = math.inf
    return kl


@register_kl(Uniform, Gumbel)
def _uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    ratio = q.scale / (p.high - p.low)
    high, low = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return (ratio.log() + 0.5 * (high + low)) - \
        ratio * (symgrad.exp(-high) - symgrad.exp(-low))


@register_kl(Uniform, Pareto)
def _uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    mean_log = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    kl = mean_log * (q.alpha + 1) - t1
    kl[p.low < q.support.lower_bound] = math.inf
    return kl


for _p, _q, _parameter in ((Exponential, Beta, "rate"), (Exponential, Uniform, "rate"),
                           (Gamma, Beta, "concentration"), (Gamma, Uniform, "concentration"),
                           (Gumbel, Beta, "loc"), (Gumbel, Exponential, "loc"),
                           (Gumbel, Gamma, "loc"), (Gumbel, Uniform, "loc"),
                           (Laplace, Beta, "loc"), (Laplace, Exponential, "loc"),
                           (Laplace, Gamma, "loc"), (Laplace, Uniform, "loc"),
                           (Normal, Beta, "loc"), (Normal, Exponential, "loc"),
                           (Normal, Gamma, "loc"), (Poisson, Bernoulli, "rate"),
                           (Poisson, Binomial, "rate")):
    register_kl(_p, _q)(_infinite(_parameter))
del _p, _q, _parameter


@register_kl(ExponentialFamily, ExponentialFamily)
def _exponential_families(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    # Two of one family (none registered): the Bregman divergence of the log-normalizer A at
    # the natural parameters, A(η_q) - A(η_p) - <η_q - η_p, ∇A(η_p)>, ∇A by autograd at η_p
    # detached (so, as PyTorch's, differentiable in q only). Between two families, PyTorch's
    # error, spaces and all.
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot                             be computed "
                                  "using Bregman divergences")
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    p_normalizer = p._log_normalizer(*p_params)
    gradients = symgrad.autograd.grad(p_normalizer.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - p_normalizer
    for p_param, q_param, gradient in zip(p_params, q_params, gradients, strict=True):
        result = result - _sum_rightmost((q_param - p_param) * gradient, len(q.event_shape))
    return result
