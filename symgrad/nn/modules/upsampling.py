"""``Upsample`` and its fixed-mode forms ``UpsamplingNearest2d`` / ``UpsamplingBilinear2d``:
``F.interpolate`` as a layer."""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class Upsample(Module):
    """Resize to ``size`` or by ``scale_factor`` with ``mode`` ('nearest', 'linear',
    'bilinear', 'bicubic', 'trilinear', 'nearest-exact').

    >>> symgrad.nn.Upsample(scale_factor=2)
    Upsample(scale_factor=2.0, mode='nearest')
    >>> symgrad.nn.Upsample(scale_factor=2)(symgrad.ones(1, 1, 2)).shape
    symgrad.Size([1, 1, 4])
    """

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.interpolate(input, size, scale_factor, mode, align_corners,
        recompute_scale_factor=...)``.

        >>> symgrad.nn.Upsample(size=3)(symgrad.ones(1, 1, 2)).shape
        symgrad.Size([1, 1, 3])
        """
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Upsample(size=(3, 4), mode="bilinear").extra_repr()
        "size=(3, 4), mode='bilinear'"
        """
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) input.

    >>> symgrad.nn.UpsamplingNearest2d(scale_factor=2)
    UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
    """

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) input with ``align_corners=True``.

    >>> symgrad.nn.UpsamplingBilinear2d(size=3)
    UpsamplingBilinear2d(size=3, mode='bilinear')
    """

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
