"""The Dirichlet distribution and its two-category case, PyTorch's ``Dirichlet`` and ``Beta``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import ExponentialFamily, broadcast_all
from symgrad.distributions.gamma import standard_gamma
from symgrad.tensor import Size, Tensor


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex of the last dim of ``concentration``.
    ``rsample`` normalizes independent gamma draws, each differentiable in its shape
    (implicitly): recorded as that division, where PyTorch records one ``_DirichletBackward``
    node with its own (equally unbiased) gradient formula.

    >>> d = symgrad.distributions.Dirichlet(symgrad.tensor([1.0, 2.0, 3.0]))
    >>> d.log_prob(symgrad.tensor([0.2, 0.3, 0.5]))
    tensor(1.5041)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Dirichlet:
        """The same distribution with ``concentration`` expanded to ``batch_shape``.

        >>> symgrad.distributions.Dirichlet(symgrad.ones(3)).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, concentration=self.concentration.expand(
            tuple(batch_shape) + tuple(self._event_shape)))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Gamma draws of the concentrations, over their sum: differentiable in
        ``concentration``.

        >>> symgrad.distributions.Dirichlet(symgrad.ones(3)).rsample((2,)).sum(-1)
        tensor([1., 1.])
        """
        shape = tuple(self._extended_shape(sample_shape))
        draws = standard_gamma(self.concentration.expand(shape))
        return draws / draws.sum(-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        """``Σ xlogy(c - 1, value) + lgamma(Σ c) - Σ lgamma(c)`` over the last dim."""
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return symgrad.xlogy(c - 1.0, value).sum(-1) + symgrad.lgamma(c.sum(-1)) - \
            symgrad.lgamma(c).sum(-1)

    @property
    def mean(self) -> Tensor:
        """``c / Σ c``."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        """``(c - 1)⁺ / Σ (c - 1)⁺``; where every c is below 1, the corner of the largest."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        below = (self.concentration < 1).all(dim=-1)
        mode[below] = symgrad.nn.functional.one_hot(mode[below].argmax(dim=-1),
                                                    shifted.shape[-1]).to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        """``c (Σc - c) / ((Σc)² (Σc + 1))``."""
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self) -> Tensor:
        """``Σ lgamma(c) - lgamma(a0) - (k - a0) digamma(a0) - Σ (c - 1) digamma(c)``, a0 = Σ c.

        >>> symgrad.distributions.Dirichlet(symgrad.ones(3)).entropy()
        tensor(-0.6931)
        """
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return symgrad.lgamma(c).sum(-1) - symgrad.lgamma(a0) - (k - a0) * symgrad.digamma(a0) \
            - ((c - 1.0) * symgrad.digamma(c)).sum(-1)


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1], of ``concentration1`` (alpha) and ``concentration0``
    (beta): the first coordinate of ``Dirichlet([concentration1, concentration0])``.

    >>> symgrad.distributions.Beta(2.0, 3.0).log_prob(symgrad.tensor(0.25))
    tensor(0.5232)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Tensor | float, concentration0: Tensor | float,
                 validate_args: bool | None = None) -> None:
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0,
                                                                     numbers.Number):
            both = symgrad.tensor([float(concentration1), float(concentration0)])
        else:
            both = symgrad.stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> Beta:
        """The same distribution with its concentrations expanded to ``batch_shape``.

        >>> symgrad.distributions.Beta(1.0, 1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, _dirichlet=self._dirichlet.expand(batch_shape))

    @property
    def concentration1(self) -> Tensor:
        """alpha."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        """beta."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        """``alpha / (alpha + beta)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        """The Dirichlet mode's first coordinate."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        """``alpha beta / ((alpha + beta)² (alpha + beta + 1))``."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """The first coordinate of a Dirichlet draw: differentiable in both concentrations.

        >>> symgrad.distributions.Beta(symgrad.ones(2), 2.0).rsample((3,)).shape
        symgrad.Size([3, 2])
        """
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        """The Dirichlet log density of ``(value, 1 - value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(symgrad.stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        """The Dirichlet entropy.

        >>> symgrad.distributions.Beta(1.0, 1.0).entropy()
        tensor(0.)
        """
        return self._dirichlet.entropy()
