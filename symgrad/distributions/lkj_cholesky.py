"""The LKJ distribution of correlation matrices through their Cholesky factors, PyTorch's
``LKJCholesky``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.dirichlet import Beta
from symgrad.distributions.distribution import Distribution, broadcast_all
from symgrad.tensor import Size, Tensor


class LKJCholesky(Distribution):
    """Lower Cholesky factors L of ``dim × dim`` correlation matrices ``L Lᵀ`` distributed as
    ``det(L Lᵀ)^(concentration - 1)`` (LKJ); sampled by the onion method (a Beta draw per row
    for its squared norm below the diagonal, a uniform direction on the sphere). No
    ``rsample``.

    >>> d = symgrad.distributions.LKJCholesky(2, 2.0)
    >>> d.log_prob(symgrad.tensor([[1.0, 0.0], [0.6, 0.8]]))
    tensor(-0.7340)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Tensor | float = 1.0,
                 validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i's squared norm below the diagonal: Beta(i / 2, η + (dim - 2 - i) / 2 ...)
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = symgrad.arange(dim - 1, dtype=self.concentration.dtype)
        offset = symgrad.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape: Sequence[int]) -> LKJCholesky:
        """The same distribution over ``batch_shape``.

        >>> symgrad.distributions.LKJCholesky(3).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, dim=self.dim,
                              concentration=self.concentration.expand(batch_shape),
                              _beta=self._beta.expand((*batch_shape, self.dim)))

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Cholesky factors by the onion method, not recorded.

        >>> symgrad.distributions.LKJCholesky(3).sample((2,)).shape
        symgrad.Size([2, 3, 3])
        """
        with symgrad.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            normal = symgrad.randn(*self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            direction = normal / normal.norm(dim=-1, keepdim=True)
            direction[..., 0, :].fill_(0.0)
            w = y.sqrt() * direction
            tiny = float(np.finfo(w.dtype.np_dtype).tiny)
            diagonal = (1 - (w ** 2).sum(-1)).clamp(min=tiny).sqrt()
            return w + symgrad.diag_embed(diagonal)

    def log_prob(self, value: Tensor) -> Tensor:
        """``Σ_i (2(η - 1) + dim - i) log L_ii`` (i from 2) minus the log normalizer
        ``(dim - 1)/2 log π + mvlgamma(α - 1/2, dim - 1) - (dim - 1) lgamma(α)``,
        ``α = η + (dim - 1)/2``."""
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = symgrad.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = symgrad.sum(order * diagonal.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + symgrad.mvlgamma(alpha - 0.5, dm1) - \
            symgrad.lgamma(alpha) * dm1
        return unnormalized - normalizer
