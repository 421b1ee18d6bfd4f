"""The negative binomial distribution, PyTorch's ``NegativeBinomial``."""

from __future__ import annotations

from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli import CountedTrials
from symgrad.distributions.distribution import lazy_property
from symgrad.distributions.gamma import Gamma
from symgrad.nn.functional import logsigmoid
from symgrad.tensor import Size, Tensor


class NegativeBinomial(CountedTrials):
    """The number of successes before ``total_count`` failures, in trials that succeed with
    probability ``probs`` (or ``sigmoid(logits)``; give one of the two). ``total_count`` may be
    any non-negative real: the mass is ``Γ(r + k) / (Γ(r) k!) p^k (1 - p)^r``.

    >>> symgrad.distributions.NegativeBinomial(3.0, 0.5).log_prob(symgrad.tensor(2.0))
    tensor(-1.6740)
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    @property
    def mean(self) -> Tensor:
        """``total_count exp(logits)``: ``r p / (1 - p)``."""
        return self.total_count * symgrad.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        """``floor((r - 1) p / (1 - p))``, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        """``mean / (1 - p)``."""
        return self.mean / symgrad.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self) -> Gamma:
        """The gamma mixing the Poisson rates: shape ``total_count``, scale ``p / (1 - p)``."""
        return Gamma(self.total_count, symgrad.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Poisson counts of gamma-distributed rates, not recorded.

        >>> symgrad.distributions.NegativeBinomial(2.0, symgrad.tensor([0.5])).sample((3,)).shape
        symgrad.Size([3, 1])
        """
        with symgrad.no_grad():
            return symgrad.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``r logsigmoid(-logits) + k logsigmoid(logits) + lgamma(r + k) - lgamma(k + 1)
        - lgamma(r)`` (the last three 0 where ``r + k = 0``)."""
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        unnormalized = r * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_norm = -symgrad.lgamma(r + value) + symgrad.lgamma(1.0 + value) + symgrad.lgamma(r)
        return unnormalized - log_norm.masked_fill(r + value == 0.0, 0.0)
