"""``Unfold`` (im2col) and ``Fold`` (col2im) as layers."""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

IntOrTuple = int | Sequence[int]


class Unfold(Module):
    """The sliding blocks of (N, C, H, W) input as columns (``F.unfold``).

    >>> symgrad.nn.Unfold(2)(symgrad.ones(1, 3, 4, 4)).shape
    symgrad.Size([1, 12, 9])
    """

    def __init__(self, kernel_size: IntOrTuple, dilation: IntOrTuple = 1,
                 padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.unfold(input, kernel_size, dilation, padding, stride)``.

        >>> symgrad.nn.Unfold(1)(symgrad.ones(1, 1, 2, 2)).shape
        symgrad.Size([1, 1, 4])
        """
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Unfold(2).extra_repr()
        'kernel_size=2, dilation=1, padding=0, stride=1'
        """
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Columns summed back into an image of ``output_size`` (``F.fold``).

    >>> symgrad.nn.Fold((3, 3), 2)(symgrad.ones(1, 4, 4))
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """

    def __init__(self, output_size: IntOrTuple, kernel_size: IntOrTuple,
                 dilation: IntOrTuple = 1, padding: IntOrTuple = 0,
                 stride: IntOrTuple = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.fold(input, output_size, kernel_size, dilation, padding, stride)``.

        >>> symgrad.nn.Fold(2, 1)(symgrad.ones(1, 1, 4)).shape
        symgrad.Size([1, 1, 2, 2])
        """
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Fold((4, 4), 2, padding=1).extra_repr()
        'output_size=(4, 4), kernel_size=2, dilation=1, padding=1, stride=1'
        """
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
