"""The relaxed (Concrete, Gumbel-softmax) categorical distributions, PyTorch's
``ExpRelaxedCategorical`` and ``RelaxedOneHotCategorical``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.categorical import Categorical
from symgrad.distributions.distribution import Distribution, broadcast_all, clamp_probs
from symgrad.distributions.transformed import TransformedDistribution
from symgrad.distributions.transforms import ExpTransform
from symgrad.tensor import Size, Tensor


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot draw: ``log_softmax((logits + g) / temperature)``, g
    standard Gumbel draws, over the last dim of ``probs`` (or ``logits``).

    >>> d = symgrad.distributions.ExpRelaxedCategorical(symgrad.tensor(0.5),
    ...                                                 symgrad.tensor([0.2, 0.8]))
    >>> d.log_prob(symgrad.tensor([-0.5, -1.0]).log_softmax(-1))
    tensor(-2.6852)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> ExpRelaxedCategorical:
        """The same distribution over ``batch_shape``.

        >>> symgrad.distributions.ExpRelaxedCategorical(symgrad.tensor(1.0), symgrad.ones(3)
        ...                                             ).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, temperature=self.temperature,
                              _categorical=self._categorical.expand(batch_shape))

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        """The normalized log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        """The probabilities."""
        return self._categorical.probs

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``log_softmax((logits + g) / temperature)``, g standard Gumbel: differentiable in
        the logits and the temperature."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(symgrad.rand(*shape, dtype=self.logits.dtype))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        """``lgamma(K) + (K - 1) log t + Σ (s - logsumexp(s))``, ``s = logits - t value``."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = symgrad.full_like(self.temperature, math.lgamma(k)) - \
            self.temperature.log().mul(-(k - 1))
        score = logits - value.mul(self.temperature)
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot draw on the simplex: the exp of an :class:`ExpRelaxedCategorical`
    draw; as ``temperature`` falls its draws approach one-hot vectors.

    >>> d = symgrad.distributions.RelaxedOneHotCategorical(symgrad.tensor(0.5),
    ...                                                    symgrad.tensor([0.2, 0.8]))
    >>> d.log_prob(symgrad.tensor([0.4, 0.6]))
    tensor(-0.9838)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits,
                                               validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> Tensor:
        """The relaxation's temperature."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        """The normalized log-probabilities."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The probabilities."""
        return self.base_dist.probs
