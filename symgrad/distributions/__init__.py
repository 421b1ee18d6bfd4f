"""``symgrad.distributions``: PyTorch's ``torch.distributions`` for ``Normal``, ``Uniform``,
``Bernoulli``, ``Categorical``, ``Exponential``, ``Laplace``, ``Cauchy``, ``Gamma``, ``Chi2``,
``StudentT``, ``Beta``, ``Dirichlet``, ``Poisson``, ``Geometric``, ``Binomial``,
``OneHotCategorical``, ``Multinomial``, ``MultivariateNormal`` and
``Independent``, with ``kl_divergence``
where PyTorch gives it in closed form and PyTorch's argument validation. ``log_prob``,
``entropy``, ``cdf`` and ``rsample`` are recorded from symgrad's ops (their results end in the
nodes PyTorch's do), so the reparameterization trick's gradients can be checked against sympy
like any graph (not through a gamma draw, whose gradient is implicit). Samples come from
symgrad's random stream, not PyTorch's.

>>> mu = symgrad.tensor(0.5, requires_grad=True)
>>> d = symgrad.distributions.Normal(mu, 1.0)
>>> d.log_prob(symgrad.tensor(1.0)).backward()
>>> mu.grad
tensor(0.5000)
"""

from symgrad.distributions import constraints, transforms
from symgrad.distributions import distribution as utils
from symgrad.distributions.bernoulli import Bernoulli
from symgrad.distributions.categorical import (
    Categorical,
    Multinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from symgrad.distributions.cauchy import Cauchy
from symgrad.distributions.dirichlet import Beta, Dirichlet
from symgrad.distributions.discrete import Binomial, Geometric, Poisson
from symgrad.distributions.distribution import Distribution, ExponentialFamily
from symgrad.distributions.exponential import Exponential, Laplace
from symgrad.distributions.gamma import Chi2, Gamma, StudentT
from symgrad.distributions.kl import kl_divergence, register_kl
from symgrad.distributions.multivariate import Independent, MultivariateNormal
from symgrad.distributions.normal import Normal
from symgrad.distributions.transformed import (
    Gumbel,
    HalfNormal,
    LogNormal,
    TransformedDistribution,
)
from symgrad.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel",
           "HalfNormal", "Independent", "Laplace", "LogNormal", "Multinomial",
           "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Poisson", "StudentT", "TransformedDistribution",
           "Uniform", "constraints", "kl_divergence", "register_kl", "transforms", "utils"]
