"""``Dropout``: zeroes elements with probability p in training mode, identity in eval."""

from __future__ import annotations

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class Dropout(Module):
    """In training mode each element is zeroed with probability ``p`` and the rest scaled by
    1/(1-p) (numpy's random stream); in eval mode the input passes unchanged.

    >>> drop = symgrad.nn.Dropout(0.2)
    >>> drop
    Dropout(p=0.2, inplace=False)
    >>> drop.eval()(symgrad.ones(3))
    tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.dropout(input, p, training, inplace)``.

        >>> symgrad.nn.Dropout(0.0)(symgrad.ones(2))
        tensor([1., 1.])
        """
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Dropout().extra_repr()
        'p=0.5, inplace=False'
        """
        return f"p={self.p}, inplace={self.inplace}"
