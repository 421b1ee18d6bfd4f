"""The normal distribution, PyTorch's ``Normal``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import ExponentialFamily, LocationScale
from symgrad.tensor import Size, Tensor


class Normal(LocationScale, ExponentialFamily):
    """The normal distribution of mean ``loc`` and standard deviation ``scale`` (numbers or
    tensors, broadcast). ``rsample`` is ``loc + eps * scale``: gradients reach both.

    >>> d = symgrad.distributions.Normal(symgrad.tensor([0.0]), symgrad.tensor([2.0]))
    >>> d.log_prob(symgrad.tensor([1.0]))
    tensor([-1.7371])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def stddev(self) -> Tensor:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """``scale²``."""
        return self.stddev.pow(2)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Samples, not recorded.

        >>> symgrad.distributions.Normal(symgrad.zeros(2), 1.0).sample((3,)).shape
        symgrad.Size([3, 2])
        """
        shape = self._extended_shape(sample_shape)
        with symgrad.no_grad():
            return symgrad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """``loc + eps * scale``, eps standard normal: recorded, differentiable in both.

        >>> scale = symgrad.tensor(2.0, requires_grad=True)
        >>> symgrad.distributions.Normal(0.0, scale).rsample((4,)).grad_fn
        <AddBackward0 object at 0x...>
        """
        shape = self._extended_shape(sample_shape)
        eps = symgrad.randn(*shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(value - loc)² / (2 scale²) - log(scale) - log(√(2π))``."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - \
            math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Tensor) -> Tensor:
        """``(1 + erf((value - loc) / (scale √2))) / 2``.

        >>> symgrad.distributions.Normal(0.0, 1.0).cdf(symgrad.tensor(0.0))
        tensor(0.5000)
        """
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + symgrad.erf((value - self.loc) * self.scale.reciprocal()
                                      / math.sqrt(2)))

    def icdf(self, value: Tensor) -> Tensor:
        """``loc + scale erfinv(2 value - 1) √2``.

        >>> symgrad.distributions.Normal(0.0, 1.0).icdf(symgrad.tensor(0.5))
        tensor(0.)
        """
        return self.loc + self.scale * symgrad.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        """``1/2 + log(2π)/2 + log(scale)``.

        >>> symgrad.distributions.Normal(0.0, 1.0).entropy()
        tensor(1.4189)
        """
        return 0.5 + 0.5 * math.log(2 * math.pi) + symgrad.log(self.scale)
