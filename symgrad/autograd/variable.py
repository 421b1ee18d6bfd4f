"""``Variable``: PyTorch's pre-0.4 wrapper, kept as a thin alias that gives plain Tensors."""

from __future__ import annotations

from typing import Any

from symgrad.tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """Legacy wrapper: ``Variable(t, requires_grad=False)`` returns an ordinary Tensor.

    Since PyTorch 0.4 Variable and Tensor are one class; the result shares ``t``'s values and is
    a new leaf, exactly as ``torch.autograd.Variable`` behaves.

    >>> type(symgrad.autograd.Variable(symgrad.ones(3))) is symgrad.Tensor
    True
    """

    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            import warnings

            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "symgrad.no_grad():` instead.", UserWarning, stacklevel=2)
        return data.detach().requires_grad_(requires_grad)  # shares data's version counter
