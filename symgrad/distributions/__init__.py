"""``symgrad.distributions``: PyTorch's ``torch.distributions``: the distributions (``Normal``,
``Gamma``, ``Pareto``, ``MixtureSameFamily``, ``LowRankMultivariateNormal`` ... and those built on
``TransformedDistribution``), ``kl_divergence`` where PyTorch gives it in closed form, the
transforms, the constraints with ``biject_to``/``transform_to``, and PyTorch's argument
validation. ``log_prob``, ``entropy``, ``cdf`` and ``rsample`` are recorded from symgrad's ops
(their results end in the nodes PyTorch's do), so the reparameterization trick's gradients can
be checked against sympy like any graph (not through a gamma draw, whose gradient is implicit).
Samples come from symgrad's random stream, not PyTorch's.

>>> mu = symgrad.tensor(0.5, requires_grad=True)
>>> d = symgrad.distributions.Normal(mu, 1.0)
>>> d.log_prob(symgrad.tensor(1.0)).backward()
>>> mu.grad
tensor(0.5000)
"""

import sys as _sys
import types as _types

from symgrad.distributions import constraint_registry, constraints, transforms
from symgrad.distributions import distribution as utils
from symgrad.distributions.bernoulli import Bernoulli
from symgrad.distributions.categorical import (
    Categorical,
    Multinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from symgrad.distributions.cauchy import Cauchy
from symgrad.distributions.constraint_registry import biject_to, transform_to
from symgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from symgrad.distributions.dirichlet import Beta, Dirichlet
from symgrad.distributions.discrete import Binomial, Geometric, Poisson
from symgrad.distributions.distribution import Distribution, ExponentialFamily
from symgrad.distributions.exponential import Exponential, Laplace
from symgrad.distributions.fishersnedecor import FisherSnedecor
from symgrad.distributions.gamma import Chi2, Gamma, StudentT
from symgrad.distributions.generalized_pareto import GeneralizedPareto
from symgrad.distributions.half_cauchy import HalfCauchy
from symgrad.distributions.inverse_gamma import InverseGamma
from symgrad.distributions.kl import kl_divergence, register_kl
from symgrad.distributions.kumaraswamy import Kumaraswamy
from symgrad.distributions.lkj_cholesky import LKJCholesky
from symgrad.distributions.logistic_normal import LogisticNormal
from symgrad.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from symgrad.distributions.mixture_same_family import MixtureSameFamily
from symgrad.distributions.multivariate import Independent, MultivariateNormal
from symgrad.distributions.negative_binomial import NegativeBinomial
from symgrad.distributions.normal import Normal
from symgrad.distributions.pareto import Pareto
from symgrad.distributions.relaxed_bernoulli import RelaxedBernoulli
from symgrad.distributions.relaxed_categorical import RelaxedOneHotCategorical
from symgrad.distributions.transformed import (
    Gumbel,
    HalfNormal,
    LogNormal,
    TransformedDistribution,
)
from symgrad.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from symgrad.distributions.uniform import Uniform
from symgrad.distributions.von_mises import VonMises
from symgrad.distributions.weibull import Weibull
from symgrad.distributions.wishart import Wishart

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "CatTransform",
           "Categorical", "Cauchy", "Chi2", "ComposeTransform", "ContinuousBernoulli",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "Dirichlet", "Distribution",
           "ExpTransform", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
           "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent",
           "IndependentTransform", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace",
           "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "LowerCholeskyTransform",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson",
           "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "StudentT",
           "TanhTransform", "Transform", "TransformedDistribution", "Uniform", "VonMises",
           "Weibull", "Wishart", "biject_to", "constraint_registry", "constraints",
           "identity_transform", "kl_divergence", "register_kl", "transform_to", "transforms",
           "utils"]


def _alias(name: str, module: _types.ModuleType) -> None:
    """PyTorch's submodule ``torch.distributions.<name>`` as the symgrad module holding its
    classes (``symgrad.distributions.beta`` is ``symgrad.distributions.dirichlet``), importable
    by that name too."""
    globals()[name] = module
    _sys.modules[f"{__name__}.{name}"] = module


for _name, _module in {
        "beta": "dirichlet", "binomial": "discrete", "chi2": "gamma", "exp_family":
        "distribution", "geometric": "discrete", "gumbel": "transformed", "half_normal":
        "transformed", "independent": "multivariate", "laplace": "exponential", "log_normal":
        "transformed", "multinomial": "categorical", "multivariate_normal": "multivariate",
        "one_hot_categorical": "categorical", "poisson": "discrete", "studentT": "gamma",
        "transformed_distribution": "transformed"}.items():
    _alias(_name, _sys.modules[f"{__name__}.{_module}"])
del _name, _module
