"""``Flatten`` and ``Unflatten``."""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class Flatten(Module):
    """Flatten dimensions ``start_dim`` to ``end_dim`` (by default all but the batch
    dimension).

    >>> symgrad.nn.Flatten()(symgrad.zeros(2, 3, 4)).shape
    symgrad.Size([2, 12])
    >>> symgrad.nn.Flatten()
    Flatten(start_dim=1, end_dim=-1)
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``input.flatten(start_dim, end_dim)``.

        >>> symgrad.nn.Flatten(0)(symgrad.zeros(2, 3)).shape
        symgrad.Size([6])
        """
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Flatten().extra_repr()
        'start_dim=1, end_dim=-1'
        """
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``.

    >>> symgrad.nn.Unflatten(1, (2, 3))(symgrad.zeros(4, 6)).shape
    symgrad.Size([4, 2, 3])
    >>> symgrad.nn.Unflatten(1, (2, 3))
    Unflatten(dim=1, unflattened_size=(2, 3))
    """

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if not isinstance(unflattened_size, list | tuple):
            raise TypeError("unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``input`` with dimension ``dim`` reshaped to ``unflattened_size``.

        >>> symgrad.nn.Unflatten(-1, (2, -1))(symgrad.zeros(6)).shape
        symgrad.Size([2, 3])
        """
        if hasattr(input, "unflatten"):
            return input.unflatten(self.dim, self.unflattened_size)
        shape = list(input.shape)
        dim = self.dim + input.ndim if self.dim < 0 else self.dim
        if not 0 <= dim < input.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-input.ndim}, {input.ndim - 1}], but got {self.dim})")
        return input.reshape(*shape[:dim], *self.unflattened_size, *shape[dim + 1:])

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Unflatten(1, (2, 3)).extra_repr()
        'dim=1, unflattened_size=(2, 3)'
        """
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
