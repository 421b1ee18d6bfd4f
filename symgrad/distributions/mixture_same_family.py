"""Mixtures of one family's distributions, PyTorch's ``MixtureSameFamily``."""

from __future__ import annotations

from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.categorical import Categorical
from symgrad.distributions.constraints import MixtureSameFamilyConstraint
from symgrad.distributions.distribution import Distribution
from symgrad.tensor import Size, Tensor


class MixtureSameFamily(Distribution):
    """A mixture of the distributions along ``component_distribution``'s last batch dim,
    weighted by the ``Categorical`` ``mixture_distribution``: ``log_prob`` is
    ``logsumexp(log w + log p_k)``; sampling picks a component per draw (no ``rsample``).

    >>> d = symgrad.distributions
    >>> mix = d.MixtureSameFamily(d.Categorical(symgrad.tensor([0.3, 0.7])),
    ...                           d.Normal(symgrad.tensor([-1.0, 1.0]), symgrad.ones(2)))
    >>> mix.log_prob(symgrad.tensor(0.5))
    tensor(-1.2542)
    """

    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical,
                 component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for m, c in zip(reversed(mixture_batch), reversed(component_batch), strict=False):
            if m != 1 and c != 1 and m != c:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({component_batch})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int]) -> MixtureSameFamily:
        """The same mixture over ``batch_shape``.

        >>> d = symgrad.distributions
        >>> d.MixtureSameFamily(d.Categorical(symgrad.ones(2)), d.Normal(symgrad.zeros(2), 1.0)
        ...                     ).expand((3,)).batch_shape
        symgrad.Size([3])
        """
        batch_shape = Size(batch_shape)
        return self._expanded(
            batch_shape,
            _component_distribution=self._component_distribution.expand(
                (*batch_shape, self._num_component)),
            _mixture_distribution=self._mixture_distribution.expand(batch_shape),
            _num_component=self._num_component, _event_ndims=self._event_ndims)

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The components' support, for every component."""
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        """The categorical distribution of the components' weights."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The components, along the last batch dim."""
        return self._component_distribution

    def _pad(self, x: Tensor) -> Tensor:
        """``x`` with a component dim before its event dims."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        """The weights shaped to broadcast against the components' moments."""
        batch_ndims = len(self.batch_shape)
        mixture_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if mixture_ndims == 1 else batch_ndims - mixture_ndims
        shape = tuple(x.shape)
        return x.reshape(*shape[:-1], *([1] * pad), shape[-1], *([1] * self._event_ndims))

    @property
    def mean(self) -> Tensor:
        """The weighted mean of the components' means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return symgrad.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """The law of total variance: the weighted variances plus the weighted squared
        deviations of the components' means from the mixture's."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        within = symgrad.sum(probs * self.component_distribution.variance, dim=dim)
        between = symgrad.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim=dim)
        return within + between

    def cdf(self, x: Tensor) -> Tensor:
        """The weighted sum of the components' cdfs."""
        return symgrad.sum(self.component_distribution.cdf(self._pad(x))
                           * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x: Tensor) -> Tensor:
        """``logsumexp`` over the components of ``log_softmax(logits) + log p_k(x)``."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_weights = symgrad.log_softmax(self.mixture_distribution.logits, dim=-1)
        return symgrad.logsumexp(log_prob_x + log_weights, dim=-1)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Each draw from the component a categorical draw picks, not recorded.

        >>> d = symgrad.distributions
        >>> d.MixtureSameFamily(d.Categorical(symgrad.ones(2)), d.Normal(symgrad.zeros(2), 1.0)
        ...                     ).sample((4,)).shape
        symgrad.Size([4])
        """
        with symgrad.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            event = tuple(self.event_shape)
            choice = self.mixture_distribution.sample(sample_shape)
            draws = self.component_distribution.sample(sample_shape)
            index = choice.reshape(*choice.shape, *([1] * (len(event) + 1)))
            index = index.repeat(*([1] * choice.ndim), 1, *event)
            return symgrad.gather(draws, gather_dim, index).squeeze(gather_dim)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  " \
            f"{self.component_distribution})"
