"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d``, initialised as PyTorch
initialises them; each forward calls ``F.conv*`` with PyTorch's arguments."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from symgrad.creation import empty
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


def _ntuple(value: Any, n: int) -> tuple:
    """``value`` repeated ``n`` times unless it already is a sequence (PyTorch's _pair...)."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    _dims = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any,
                 padding: Any, dilation: Any, output_padding: Any, groups: int, bias: bool,
                 padding_mode: str, device: Any, dtype: dtypes.dtype | None) -> None:
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = (_ntuple(v, n) for v in (kernel_size, stride, dilation))
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's amounts for the non-zero padding modes: last dimension first, (left, right)
        if padding == "valid":
            amounts = [0, 0] * n
        elif padding == "same":
            amounts = []
            for d, k in zip(reversed(dilation), reversed(kernel_size), strict=True):
                total = d * (k - 1)
                amounts += [total // 2, total - total // 2]
        else:
            amounts = [p for p in reversed(padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = amounts
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups))
        self.weight = Parameter(empty((*shape, *kernel_size), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw the weight (``kaiming_uniform_(w, a=√5)``: U(±1/√fan_in)) and the bias
        (U(±1/√fan_in)), fan_in being the weight's dimension 1 times the kernel size.

        >>> conv = symgrad.nn.Conv2d(1, 2, 3)
        >>> conv.reset_parameters()
        >>> bool((conv.weight.abs() <= 1 / 3).all())
        True
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Conv2d(1, 2, 3, padding=1, bias=False).extra_repr()
        '1, 2, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False'
        """
        n = self._dims
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups)``; a
        non-zero ``padding_mode`` pads with ``F.pad`` first.

        >>> conv = symgrad.nn.Conv2d(1, 4, 3, padding=1)
        >>> conv(symgrad.zeros(2, 1, 8, 8)).shape
        symgrad.Size([2, 4, 8, 8])
        """
        conv = getattr(F, f"conv{self._dims}d")
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, (0,) * self._dims,
                        self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                    self.groups)


class Conv1d(_ConvNd):
    """1-d convolution over (N, C, L) input; weight (out, in/groups, k).

    >>> symgrad.nn.Conv1d(2, 3, 3)
    Conv1d(2, 3, kernel_size=(3,), stride=(1,))
    """

    _dims = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0,
                         groups, bias, padding_mode, device, dtype)


class Conv2d(_ConvNd):
    """2-d convolution over (N, C, H, W) input; weight (out, in/groups, kH, kW).

    >>> symgrad.nn.Conv2d(2, 4, (3, 5), stride=2, padding=1, bias=False)
    Conv2d(2, 4, kernel_size=(3, 5), stride=(2, 2), padding=(1, 1), bias=False)
    """

    _dims = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0,
                         groups, bias, padding_mode, device, dtype)


class Conv3d(_ConvNd):
    """3-d convolution over (N, C, D, H, W) input.

    >>> symgrad.nn.Conv3d(1, 1, 2)
    Conv3d(1, 1, kernel_size=(2, 2, 2), stride=(1, 1, 1))
    """

    _dims = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, 0,
                         groups, bias, padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> tuple:  # noqa: A002
        if output_size is None:
            return self.output_padding
        n = self._dims
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must "
                             f"have {n} or {n + 2} elements (got {len(output_size)})")
        smallest = [(input.shape[d - n] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [low + self.stride[d] - 1 for d, low in enumerate(smallest)]
        if any(not low <= size <= high
               for size, low, high in zip(output_size, smallest, largest, strict=True)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                             f"range from {smallest} to {largest} (for an input of "
                             f"{input.shape[2:]})")
        return tuple(size - low for size, low in zip(output_size, smallest, strict=True))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:  # noqa: A002
        """``F.conv_transpose{1,2}d(input, weight, bias, stride, padding, output_padding,
        groups, dilation)``; ``output_size`` picks the output padding.

        >>> up = symgrad.nn.ConvTranspose2d(2, 1, 2, stride=2)
        >>> up(symgrad.zeros(1, 2, 4, 4)).shape
        symgrad.Size([1, 1, 8, 8])
        """
        conv = getattr(F, f"conv_transpose{self._dims}d")
        return conv(input, self.weight, self.bias, self.stride, self.padding,
                    self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution; weight (in, out/groups, k).

    >>> symgrad.nn.ConvTranspose1d(2, 3, 3, stride=2)
    ConvTranspose1d(2, 3, kernel_size=(3,), stride=(2,))
    """

    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution (the gradient of Conv2d with respect to its input);
    weight (in, out/groups, kH, kW).

    >>> symgrad.nn.ConvTranspose2d(2, 3, 3, stride=2)
    ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2))
    """

    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution; weight (in, out/groups, kD, kH, kW).

    >>> symgrad.nn.ConvTranspose3d(1, 2, 3)
    ConvTranspose3d(1, 2, kernel_size=(3, 3, 3), stride=(1, 1, 1))
    """

    _dims = 3
