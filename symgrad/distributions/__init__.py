"""``symgrad.distributions``: PyTorch's ``torch.distributions`` for ``Normal``, ``Uniform``,
``Bernoulli`` and ``Categorical``, with ``kl_divergence`` between two of a kind and PyTorch's
argument validation. ``log_prob``, ``entropy``, ``cdf`` and ``rsample`` are recorded from
symgrad's ops, with the nodes PyTorch records, so the reparameterization trick's gradients
can be checked against sympy like any graph. Samples come from symgrad's random stream, not
PyTorch's.

>>> mu = symgrad.tensor(0.5, requires_grad=True)
>>> d = symgrad.distributions.Normal(mu, 1.0)
>>> d.log_prob(symgrad.tensor(1.0)).backward()
>>> mu.grad
tensor(0.5000)
"""

from symgrad.distributions import constraints
from symgrad.distributions import distribution as utils
from symgrad.distributions.bernoulli import Bernoulli
from symgrad.distributions.categorical import Categorical
from symgrad.distributions.distribution import Distribution, ExponentialFamily
from symgrad.distributions.kl import kl_divergence, register_kl
from symgrad.distributions.normal import Normal
from symgrad.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "Uniform",
           "constraints", "kl_divergence", "register_kl", "utils"]
