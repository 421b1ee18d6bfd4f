"""Padding layers (``ZeroPad2d``, ``ConstantPad1d``, ``ReflectionPad2d``, ``ReplicationPad3d``,
``CircularPad1d`` ...): each forward is ``F.pad`` with the layer's amounts and mode."""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


def _amounts(padding: int | Sequence[int], dims: int) -> tuple[int, ...]:
    """An int repeated for both sides of each padded dimension; a sequence as given."""
    if isinstance(padding, Sequence):
        return tuple(padding)
    return (padding,) * (2 * dims)


class _PadNd(Module):
    """``F.pad(input, padding, mode)``; the repr shows the amounts."""

    _dims = 1
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        self.padding = _amounts(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.pad(input, padding, mode)``.

        >>> symgrad.nn.ReflectionPad1d(1)(symgrad.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[2., 1., 2., 3., 2.]]])
        """
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.ReplicationPad2d((1, 0, 2, 0)).extra_repr()
        '(1, 0, 2, 0)'
        """
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.pad(input, padding, 'constant', value)``.

        >>> symgrad.nn.ConstantPad1d(1, 9.0)(symgrad.tensor([[1.0]]))
        tensor([[9., 1., 9.]])
        """
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.ConstantPad2d(1, 0.5).extra_repr()
        'padding=(1, 1, 1, 1), value=0.5'
        """
        return f"padding={self.padding}, value={self.value}"



class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.ZeroPad2d(1).extra_repr()
        '(1, 1, 1, 1)'
        """
        return f"{self.padding}"


class ConstantPad1d(_ConstantPadNd):
    """Padding with ``value`` of a (N, C, W) or (C, W) input;
    ``padding`` is an int or (left, right).

    >>> symgrad.nn.ConstantPad1d(2, 3.5)
    ConstantPad1d(padding=(2, 2), value=3.5)
    """

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Padding with ``value`` of a (N, C, H, W) or (C, H, W) input;
    ``padding`` is an int or (left, right, top, bottom).

    >>> symgrad.nn.ConstantPad2d(1, 0.0)
    ConstantPad2d(padding=(1, 1, 1, 1), value=0.0)
    """

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Padding with ``value`` of a (N, C, D, H, W) or (C, D, H, W) input;
    ``padding`` is an int or (left, right, top, bottom, front, back).

    >>> symgrad.nn.ConstantPad3d((1, 0, 0, 0, 0, 1), 2.0)
    ConstantPad3d(padding=(1, 0, 0, 0, 0, 1), value=2.0)
    """

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Reflection at the edge (not repeating it) of a (N, C, W) or (C, W) input;
    ``padding`` is an int or (left, right).

    >>> symgrad.nn.ReflectionPad1d(1)
    ReflectionPad1d((1, 1))
    """

    _dims = 1
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    """Reflection at the edge (not repeating it) of a (N, C, H, W) or (C, H, W) input;
    ``padding`` is an int or (left, right, top, bottom).

    >>> symgrad.nn.ReflectionPad2d(1)
    ReflectionPad2d((1, 1, 1, 1))
    """

    _dims = 2
    _mode = "reflect"


class ReflectionPad3d(_PadNd):
    """Reflection at the edge (not repeating it) of a (N, C, D, H, W) or (C, D, H, W) input;
    ``padding`` is an int or (left, right, top, bottom, front, back).

    >>> symgrad.nn.ReflectionPad3d(1)
    ReflectionPad3d((1, 1, 1, 1, 1, 1))
    """

    _dims = 3
    _mode = "reflect"


class ReplicationPad1d(_PadNd):
    """Padding by repeating the edge of a (N, C, W) or (C, W) input;
    ``padding`` is an int or (left, right).

    >>> symgrad.nn.ReplicationPad1d((0, 2))
    ReplicationPad1d((0, 2))
    """

    _dims = 1
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    """Padding by repeating the edge of a (N, C, H, W) or (C, H, W) input;
    ``padding`` is an int or (left, right, top, bottom).

    >>> symgrad.nn.ReplicationPad2d(1)
    ReplicationPad2d((1, 1, 1, 1))
    """

    _dims = 2
    _mode = "replicate"


class ReplicationPad3d(_PadNd):
    """Padding by repeating the edge of a (N, C, D, H, W) or (C, D, H, W) input;
    ``padding`` is an int or (left, right, top, bottom, front, back).

    >>> symgrad.nn.ReplicationPad3d((1, 2, 1, 2, 1, 2))
    ReplicationPad3d((1, 2, 1, 2, 1, 2))
    """

    _dims = 3
    _mode = "replicate"


class CircularPad1d(_PadNd):
    """Padding by wrapping around of a (N, C, W) or (C, W) input;
    ``padding`` is an int or (left, right).

    >>> symgrad.nn.CircularPad1d(1)
    CircularPad1d((1, 1))
    """

    _dims = 1
    _mode = "circular"


class CircularPad2d(_PadNd):
    """Padding by wrapping around of a (N, C, H, W) or (C, H, W) input;
    ``padding`` is an int or (left, right, top, bottom).

    >>> symgrad.nn.CircularPad2d(1)
    CircularPad2d((1, 1, 1, 1))
    """

    _dims = 2
    _mode = "circular"


class CircularPad3d(_PadNd):
    """Padding by wrapping around of a (N, C, D, H, W) or (C, D, H, W) input;
    ``padding`` is an int or (left, right, top, bottom, front, back).

    >>> symgrad.nn.CircularPad3d(1)
    CircularPad3d((1, 1, 1, 1, 1, 1))
    """

    _dims = 3
    _mode = "circular"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Zero padding of a (N, C, W) or (C, W) input;
    ``padding`` is an int or (left, right).

    >>> symgrad.nn.ZeroPad1d(2)
    ZeroPad1d((2, 2))
    """

    _dims = 1


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Zero padding of a (N, C, H, W) or (C, H, W) input;
    ``padding`` is an int or (left, right, top, bottom).

    >>> symgrad.nn.ZeroPad2d((1, 2, 3, 4))
    ZeroPad2d((1, 2, 3, 4))
    """

    _dims = 2


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Zero padding of a (N, C, D, H, W) or (C, D, H, W) input;
    ``padding`` is an int or (left, right, top, bottom, front, back).

    >>> symgrad.nn.ZeroPad3d(1)
    ZeroPad3d((1, 1, 1, 1, 1, 1))
    """

    _dims = 3
