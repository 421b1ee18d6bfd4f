"""``PixelShuffle``, ``PixelUnshuffle`` and ``ChannelShuffle``: channel blocks rearranged."""

from __future__ import annotations

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class PixelShuffle(Module):
    """(*, C r², H, W) to (*, C, H r, W r) (``F.pixel_shuffle``).

    >>> symgrad.nn.PixelShuffle(2)(symgrad.ones(1, 4, 3, 3)).shape
    symgrad.Size([1, 1, 6, 6])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.pixel_shuffle(input, upscale_factor)``.

        >>> symgrad.nn.PixelShuffle(1)(symgrad.ones(1, 1, 1)).shape
        symgrad.Size([1, 1, 1])
        """
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.PixelShuffle(3).extra_repr()
        'upscale_factor=3'
        """
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) to (*, C r², H, W) (``F.pixel_unshuffle``).

    >>> symgrad.nn.PixelUnshuffle(2)(symgrad.ones(1, 1, 6, 6)).shape
    symgrad.Size([1, 4, 3, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.pixel_unshuffle(input, downscale_factor)``.

        >>> symgrad.nn.PixelUnshuffle(1)(symgrad.ones(1, 1, 1)).shape
        symgrad.Size([1, 1, 1])
        """
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.PixelUnshuffle(2).extra_repr()
        'downscale_factor=2'
        """
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups (``F.channel_shuffle``).

    >>> symgrad.nn.ChannelShuffle(2)(symgrad.arange(4.0).reshape(1, 4, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.channel_shuffle(input, groups)``.

        >>> symgrad.nn.ChannelShuffle(1)(symgrad.ones(1, 2, 1)).shape
        symgrad.Size([1, 2, 1])
        """
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.ChannelShuffle(2).extra_repr()
        'groups=2'
        """
        return f"groups={self.groups}"
