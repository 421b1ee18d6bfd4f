"""The logistic-normal distribution, PyTorch's ``LogisticNormal``: a normal vector mapped to
the simplex by stick breaking."""

from __future__ import annotations

from symgrad.distributions import constraints
from symgrad.distributions.normal import Normal
from symgrad.distributions.transformed import TransformedDistribution
from symgrad.distributions.transforms import StickBreakingTransform
from symgrad.tensor import Tensor


class LogisticNormal(TransformedDistribution):
    """A draw of ``Normal(loc, scale)`` over the last dim (K - 1 elements; one at least) put
    on the K-simplex by :class:`StickBreakingTransform`.

    >>> d = symgrad.distributions.LogisticNormal(symgrad.zeros(2), symgrad.ones(2))
    >>> d.log_prob(symgrad.tensor([0.2, 0.3, 0.5]))
    tensor(1.2980)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The normal's mean."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The normal's standard deviation."""
        return self.base_dist.base_dist.scale
