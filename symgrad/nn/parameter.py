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


class UninitializedTensorMixin:
    """What an uninitialized parameter or buffer of a lazy module is until its shape is known:
    no shape, printed as ``<UninitializedParameter>``; :meth:`materialize` gives it one."""

    cls_to_become: type = Tensor

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Become a tensor (of ``cls_to_become``) of ``shape``, uninitialized values, in this
        dtype (or ``dtype``).

        >>> p = symgrad.nn.UninitializedParameter()
        >>> p.materialize((2, 3)); type(p).__name__, p.shape
        ('Parameter', symgrad.Size([2, 3]))
        """
        from symgrad.numeric import dtypes

        chosen = self._value.dtype if dtype is None else dtypes.as_dtype(dtype).np_dtype
        size = tuple(shape) if isinstance(shape, tuple | list) else (shape,)
        self._value = empty(size, dtype=dtypes.as_dtype(chosen))._value  # type: ignore[attr-defined]
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        """No shape yet: PyTorch's RuntimeError.

        >>> symgrad.nn.UninitializedBuffer().shape
        Traceback (most recent call last):
        RuntimeError: Can't access the shape of an uninitialized parameter or buffer. This error usually happens in `load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call `forward` to initialize the parameters before accessing their attributes.
        """  # noqa: E501 - a doctest's exception line is one line
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. "
                           "This error usually happens in `load_state_dict` when trying to "
                           "load an uninitialized parameter into an initialized one. Call "
                           "`forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self) -> Any:
        """Refused: there is no memory yet (PyTorch's RuntimeError).

        >>> symgrad.nn.UninitializedBuffer().share_memory_()
        Traceback (most recent call last):
        RuntimeError: Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the parameters before calling `module.share_memory()`.
        """  # noqa: E501 - a doctest's exception line is one line
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


def _uninitialized(cls: type, requires_grad: bool, dtype: Any) -> Any:
    from symgrad.numeric import dtypes

    self = object.__new__(cls)
    self._value = empty(0, dtype=None if dtype is None else dtypes.as_dtype(dtype))._value
    self._counter = None
    self._requires_grad = bool(requires_grad)
    self.grad_fn = None
    return self


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module before its first call: no shape yet; a ``Parameter`` once
    materialized.

    >>> symgrad.nn.UninitializedParameter()
    <UninitializedParameter>
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None,
                dtype: Any = None) -> UninitializedParameter:
        return _uninitialized(cls, requires_grad, dtype)

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        pass  # everything is set by __new__

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        out = type(self)(self._requires_grad, dtype=self.dtype)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol: int) -> tuple:
        return (type(self), (self._requires_grad,))


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its first call: no shape yet; a tensor once
    materialized.

    >>> symgrad.nn.UninitializedBuffer()
    <UninitializedBuffer>
    """

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None,
                dtype: Any = None) -> UninitializedBuffer:
        return _uninitialized(cls, requires_grad, dtype)

    def __init__(self, requires_grad: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        pass  # everything is set by __new__

    def __reduce_ex__(self, protocol: int) -> tuple:
        return (type(self), (self._requires_grad,))


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer.

    >>> is_lazy(symgrad.nn.UninitializedParameter()), is_lazy(symgrad.ones(1))
    (True, False)
    """
    return isinstance(param, UninitializedTensorMixin)
