"""Pooling layers; each forward calls the ``F`` function of the same name with PyTorch's
arguments."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.conv import _ntuple
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class _MaxPoolNd(Module):
    _dims = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        """``F.max_pool{1,2}d(input, kernel_size, stride, padding, dilation, ceil_mode=...,
        return_indices=...)``.

        >>> symgrad.nn.MaxPool2d(2)(symgrad.zeros(1, 1, 4, 4)).shape
        symgrad.Size([1, 1, 2, 2])
        """
        return getattr(F, f"max_pool{self._dims}d")(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.MaxPool1d(3).extra_repr()
        'kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False'
        """
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of (N, C, L) input.

    >>> symgrad.nn.MaxPool1d(3, 2)
    MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _dims = 1


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of (N, C, H, W) input (stride defaults to the kernel size).

    >>> symgrad.nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _dims = 2


class AvgPool1d(Module):
    """Average over sliding windows of (N, C, L) input.

    >>> symgrad.nn.AvgPool1d(3)
    AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.avg_pool1d(input, kernel_size, stride, padding, ceil_mode,
        count_include_pad)``.

        >>> symgrad.nn.AvgPool1d(2)(symgrad.ones(1, 1, 4))
        tensor([[[1., 1.]]])
        """
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.AvgPool1d(2).extra_repr()
        'kernel_size=(2,), stride=(2,), padding=(0,)'
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """Average over sliding windows of (N, C, H, W) input.

    >>> symgrad.nn.AvgPool2d(2)
    AvgPool2d(kernel_size=2, stride=2, padding=0)
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override)``.

        >>> symgrad.nn.AvgPool2d(2)(symgrad.ones(1, 1, 2, 2))
        tensor([[[[1.]]]])
        """
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.AvgPool2d(2, 1).extra_repr()
        'kernel_size=2, stride=1, padding=0'
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    _function = ""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        """``F.adaptive_{avg,max}_pool{1,2}d(input, output_size)``: windows chosen so that
        the output has ``output_size``.

        >>> symgrad.nn.AdaptiveAvgPool2d(1)(symgrad.ones(2, 3, 5, 5)).shape
        symgrad.Size([2, 3, 1, 1])
        """
        return getattr(F, self._function)(input, self.output_size)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.AdaptiveAvgPool1d(4).extra_repr()
        'output_size=4'
        """
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average pooling to a given output length.

    >>> symgrad.nn.AdaptiveAvgPool1d(3)
    AdaptiveAvgPool1d(output_size=3)
    """

    _function = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptivePool):
    """Average pooling to a given output size (``AdaptiveAvgPool2d(1)``: global average).

    >>> symgrad.nn.AdaptiveAvgPool2d((2, 3))
    AdaptiveAvgPool2d(output_size=(2, 3))
    """

    _function = "adaptive_avg_pool2d"


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        """``F.adaptive_max_pool{1,2}d(input, output_size, return_indices)``.

        >>> symgrad.nn.AdaptiveMaxPool2d(1)(symgrad.ones(1, 1, 3, 3))
        tensor([[[[1.]]]])
        """
        return getattr(F, self._function)(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """Max pooling to a given output length.

    >>> symgrad.nn.AdaptiveMaxPool1d(2)
    AdaptiveMaxPool1d(output_size=2)
    """

    _function = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """Max pooling to a given output size.

    >>> symgrad.nn.AdaptiveMaxPool2d(2)
    AdaptiveMaxPool2d(output_size=2)
    """

    _function = "adaptive_max_pool2d"


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of (N, C, D, H, W) input.

    >>> symgrad.nn.MaxPool3d(2)
    MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _dims = 3


class AvgPool3d(AvgPool2d):
    """Average over sliding windows of (N, C, D, H, W) input.

    >>> symgrad.nn.AvgPool3d(2)(symgrad.ones(1, 1, 2, 2, 2))
    tensor([[[[[1.]]]]])
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override)``.

        >>> symgrad.nn.AvgPool3d(2, divisor_override=1)(symgrad.ones(1, 2, 2, 2))
        tensor([[[[8.]]]])
        """
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average pooling of (N, C, D, H, W) input to a given output size.

    >>> symgrad.nn.AdaptiveAvgPool3d(2)
    AdaptiveAvgPool3d(output_size=2)
    """

    _function = "adaptive_avg_pool3d"


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of (N, C, D, H, W) input to a given output size.

    >>> symgrad.nn.AdaptiveMaxPool3d((1, 2, 3))
    AdaptiveMaxPool3d(output_size=(1, 2, 3))
    """

    _function = "adaptive_max_pool3d"


class _MaxUnpoolNd(Module):
    _dims = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        n = self._dims
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input: Tensor, indices: Tensor,  # noqa: A002
                output_size: Any = None) -> Tensor:
        """``F.max_unpool{1,2,3}d(input, indices, kernel_size, stride, padding, output_size)``.

        >>> pool = symgrad.nn.MaxPool2d(2, return_indices=True)
        >>> symgrad.nn.MaxUnpool2d(2)(*pool(symgrad.ones(1, 1, 2, 2)))
        tensor([[[[1., 0.],
                  [0., 0.]]]])
        """
        return getattr(F, f"max_unpool{self._dims}d")(input, indices, self.kernel_size,
                                                      self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.MaxUnpool1d(2).extra_repr()
        'kernel_size=(2,), stride=(2,), padding=(0,)'
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``: maxima put back at their indices, zeros elsewhere.

    >>> symgrad.nn.MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``.

    >>> symgrad.nn.MaxUnpool2d(2, stride=1, padding=1)
    MaxUnpool2d(kernel_size=(2, 2), stride=(1, 1), padding=(1, 1))
    """

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``.

    >>> symgrad.nn.MaxUnpool3d(2)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """

    _dims = 3


class _LPPoolNd(Module):
    _dims = 2

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.lp_pool{1,2,3}d(input, norm_type, kernel_size, stride, ceil_mode)``.

        >>> symgrad.nn.LPPool1d(2, 2)(symgrad.tensor([[[3.0, 4.0]]]))
        tensor([[[5.]]])
        """
        return getattr(F, f"lp_pool{self._dims}d")(input, self.norm_type, self.kernel_size,
                                                   self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.LPPool2d(1.5, 2).extra_repr()
        'norm_type=1.5, kernel_size=2, stride=None, ceil_mode=False'
        """
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling ``(Σ x^p)^(1/p)`` over windows of (N, C, L) input.

    >>> symgrad.nn.LPPool1d(2, 3)
    LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _dims = 1


class LPPool2d(_LPPoolNd):
    """Power-average pooling over windows of (N, C, H, W) input.

    >>> symgrad.nn.LPPool2d(1.5, 2, ceil_mode=True)
    LPPool2d(norm_type=1.5, kernel_size=2, stride=None, ceil_mode=True)
    """

    _dims = 2


class LPPool3d(_LPPoolNd):
    """Power-average pooling over windows of (N, C, D, H, W) input.

    >>> symgrad.nn.LPPool3d(2, 2)
    LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)
    """

    _dims = 3
