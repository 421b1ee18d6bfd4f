"""The half-Cauchy distribution, PyTorch's ``HalfCauchy``: ``|x|``, x Cauchy about 0."""

from __future__ import annotations

import math

import symgrad
from symgrad.distributions.cauchy import Cauchy
from symgrad.distributions.transformed import Folded
from symgrad.tensor import Tensor


class HalfCauchy(Folded):
    """``|x|`` for x Cauchy of median 0 and half-width ``scale``: twice the Cauchy density on
    the non-negative half-line.

    >>> symgrad.distributions.HalfCauchy(2.0).log_prob(symgrad.tensor(1.0))
    tensor(-1.3679)
    """

    base_family = Cauchy

    @property
    def mean(self) -> Tensor:
        """inf."""
        return symgrad.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def mode(self) -> Tensor:
        """0."""
        return symgrad.zeros_like(self.scale)

    @property
    def variance(self) -> Tensor:
        """inf (the Cauchy's)."""
        return self.base_dist.variance

    def log_prob(self, value: Tensor) -> Tensor:
        """The Cauchy's log density plus ``log 2``; -inf below 0 (a number taken in the
        scale's dtype, as PyTorch's).

        >>> symgrad.distributions.HalfCauchy(1.0).log_prob(symgrad.tensor(0.0))
        tensor(-0.4516)
        """
        if self._validate_args:
            self._validate_sample(value)
        return super().log_prob(symgrad.as_tensor(value, dtype=self.scale.dtype))
