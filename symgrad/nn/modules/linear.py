"""``Identity``, ``Linear`` and ``Bilinear``, initialised as PyTorch initialises them."""

from __future__ import annotations

import math
from typing import Any

from symgrad.creation import empty
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor


def _factory(dtype: dtypes.dtype | None, device: Any) -> dict[str, Any]:
    """The ``device``/``dtype`` keyword arguments of a layer, for ``symgrad.empty``."""
    return {"dtype": dtype, "device": device}


class Identity(Module):
    """Returns its input (any constructor arguments are ignored).

    >>> symgrad.nn.Identity(54, unused="argument")(symgrad.tensor([1.0]))
    tensor([1.])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``input`` itself.

        >>> x = symgrad.ones(2)
        >>> symgrad.nn.Identity()(x) is x
        True
        """
        return input


class Linear(Module):
    """``y = x Wᵀ + b`` with ``weight`` (out_features, in_features) and ``bias``
    (out_features,), both drawn from U(-1/√in_features, 1/√in_features) as in PyTorch.

    >>> lin = symgrad.nn.Linear(3, 2)
    >>> lin
    Linear(in_features=3, out_features=2, bias=True)
    >>> lin(symgrad.zeros(5, 3)).shape
    symgrad.Size([5, 2])
    >>> lin(symgrad.zeros(5, 4))
    Traceback (most recent call last):
        ...
    RuntimeError: mat1 and mat2 shapes cannot be multiplied (5x4 and 3x2)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **_factory(dtype, device)))
        if bias:
            self.bias = Parameter(empty(out_features, **_factory(dtype, device)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw the weight (``kaiming_uniform_(w, a=√5)``) and bias (U(±1/√fan_in)).

        >>> lin = symgrad.nn.Linear(4, 2)
        >>> lin.reset_parameters()
        >>> bool((lin.weight.abs() <= 0.5).all())
        True
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.linear(input, weight, bias)``.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> with symgrad.no_grad():
        ...     _ = lin.weight.fill_(1.0), lin.bias.fill_(0.5)
        >>> lin(symgrad.tensor([1.0, 2.0]))
        tensor([3.5000], grad_fn=<ViewBackward0>)
        """
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Linear(3, 2).extra_repr()
        'in_features=3, out_features=2, bias=True'
        """
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y = x1ᵀ A x2 + b`` with ``weight`` (out, in1, in2) and ``bias`` (out,), drawn
    from U(-1/√in1, 1/√in1) as in PyTorch.

    >>> layer = symgrad.nn.Bilinear(2, 3, 4)
    >>> layer
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    >>> layer(symgrad.zeros(5, 2), symgrad.zeros(5, 3)).shape
    symgrad.Size([5, 4])
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      **_factory(dtype, device)))
        if bias:
            self.bias = Parameter(empty(out_features, **_factory(dtype, device)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw weight and bias from U(-1/√in1_features, 1/√in1_features).

        >>> layer = symgrad.nn.Bilinear(4, 1, 1)
        >>> layer.reset_parameters()
        >>> bool((layer.weight.abs() <= 0.5).all())
        True
        """
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """``F.bilinear(input1, input2, weight, bias)``.

        >>> layer = symgrad.nn.Bilinear(1, 1, 1, bias=False)
        >>> with symgrad.no_grad():
        ...     _ = layer.weight.fill_(2.0)
        >>> layer(symgrad.tensor([[3.0]]), symgrad.tensor([[4.0]]))
        tensor([[24.]], grad_fn=<...>)
        """
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Bilinear(1, 2, 3).extra_repr()
        'in1_features=1, in2_features=2, out_features=3, bias=True'
        """
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
