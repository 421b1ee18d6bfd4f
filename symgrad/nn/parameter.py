"""``symgrad.nn.Parameter``: a Tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from typing import Any

from symgrad.creation import empty, from_numpy
from symgrad.tensor import Tensor


class Parameter(Tensor):
    """A leaf Tensor that requires grad by default and is registered by the Module it is
    assigned to (``self.weight = Parameter(...)``). It shares ``data``'s storage, as in
    PyTorch; results of operations on it are plain Tensors.

    >>> p = symgrad.nn.Parameter(symgrad.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    >>> (p * 2).sum().backward()
    >>> p.grad
    tensor([2., 2.])
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter.__new__(): argument 'data' (position 1) must be Tensor, "
                            f"not {type(data).__name__}")
        if requires_grad and data.dtype.np_dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        self = object.__new__(cls)
        self._value = data._value
        self._counter = None
        self._requires_grad = bool(requires_grad)
        self.grad_fn = None
        return self

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything is set by __new__

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol: int) -> tuple:
        return (_rebuild_parameter, (self._value.copy(), self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Parameter:
        out = Parameter(Tensor.__deepcopy__(self, {}).detach(), self._requires_grad)
        if self._grad is not None:
            out._grad = self._grad.detach().clone()
        memo[id(self)] = out
        return out


def _rebuild_parameter(value: Any, requires_grad: bool) -> Parameter:
    return Parameter(from_numpy(value), requires_grad)


class _BufferMeta(type):
    """``isinstance(t, Buffer)``: a tensor made by ``Buffer(...)`` (PyTorch's metaclass)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a buffer: assigned to a Module attribute, it is registered with
    ``register_buffer`` (``persistent``: part of ``state_dict``). ``Buffer(t)`` is ``t``
    detached (a plain Tensor), as in PyTorch.

    >>> m = symgrad.nn.Module()
    >>> m.steps = symgrad.nn.Buffer(symgrad.zeros(1))
    >>> m.scratch = symgrad.nn.Buffer(symgrad.zeros(1), persistent=False)
    >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
    (['steps'], ['steps', 'scratch'])
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]
        if data is None:
            data = empty(0)
        tensor = data.detach().requires_grad_(data.requires_grad)
        tensor.persistent = persistent
        tensor._is_buffer = True
        return tensor
