"""``PairwiseDistance`` and ``CosineSimilarity``: the distance functions as modules."""

from __future__ import annotations

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` along the last dimension (``F.pairwise_distance``).

    >>> symgrad.nn.PairwiseDistance()(symgrad.tensor([[0.0, 0.0]]), symgrad.tensor([[3.0, 4.0]]))
    tensor([5.0000])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """``F.pairwise_distance(x1, x2, p, eps, keepdim)``.

        >>> symgrad.nn.PairwiseDistance(p=1.0, eps=0.0)(symgrad.zeros(1, 2), symgrad.ones(1, 2))
        tensor([2.])
        """
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``
    (``F.cosine_similarity``).

    >>> symgrad.nn.CosineSimilarity()(symgrad.tensor([[1.0, 0.0]]), symgrad.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """``F.cosine_similarity(x1, x2, dim, eps)``.

        >>> cos = symgrad.nn.CosineSimilarity(dim=0)
        >>> cos(symgrad.tensor([1.0, 0.0]), symgrad.tensor([0.0, 1.0]))
        tensor(0.)
        """
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
