"""The relaxed (Concrete) Bernoulli distributions, PyTorch's ``LogitRelaxedBernoulli`` and
``RelaxedBernoulli``: differentiable stand-ins for a coin flip at a ``temperature``."""

from __future__ import annotations

from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli import BinaryProbability
from symgrad.distributions.distribution import broadcast_all, clamp_probs
from symgrad.distributions.transformed import TransformedDistribution
from symgrad.distributions.transforms import SigmoidTransform
from symgrad.tensor import Size, Tensor


class LogitRelaxedBernoulli(BinaryProbability):
    """The logit of a relaxed Bernoulli draw: ``(logit(u) + logits) / temperature``, u
    uniform, for a probability ``probs`` (or ``sigmoid(logits)``); ``temperature`` a tensor.

    >>> d = symgrad.distributions.LogitRelaxedBernoulli(symgrad.tensor(0.5), 0.3)
    >>> d.log_prob(symgrad.tensor(1.0))
    tensor(-2.5026)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        self.temperature = temperature
        super().__init__(probs, logits, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> LogitRelaxedBernoulli:
        """The same distribution with its probability expanded to ``batch_shape``.

        >>> symgrad.distributions.LogitRelaxedBernoulli(symgrad.tensor(1.0), 0.5).expand(
        ...     (2,)).batch_shape
        symgrad.Size([2])
        """
        new = super().expand(batch_shape)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``(logit(u) + logit(probs)) / temperature``, u uniform (both clamped off 0 and 1):
        differentiable in the probability and the temperature."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(symgrad.rand(*shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        """``log t + d - 2 log1p(exp(d))``, ``d = logits - t value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli draw in (0, 1): the sigmoid of a :class:`LogitRelaxedBernoulli`
    draw; as ``temperature`` falls its draws approach 0 and 1.

    >>> d = symgrad.distributions.RelaxedBernoulli(symgrad.tensor(0.5), 0.3)
    >>> d.log_prob(symgrad.tensor(0.25))
    tensor(-0.4276)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    @property
    def temperature(self) -> Tensor:
        """The relaxation's temperature."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        """The log-odds."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The probability of 1."""
        return self.base_dist.probs
