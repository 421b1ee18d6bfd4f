"""PyTorch spellings of dtype conversions and copies (see ``symgrad.torch_api``): ``to``,
``type``, ``float``/``double``/``half``/``long``/``int``/``short``/``char``/``byte``/``bool``,
``clone``, ``contiguous`` and the ``new_*``
constructors that take their dtype from a tensor.

This module defines functions named ``float``, ``bool`` and ``type``: it does not call those
builtins.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from symgrad import creation, ops, parser
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, check_device
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api


@torch_api("clone")
def clone(self) -> Tensor:
    """A copy with its own storage that stays in the graph (``CloneBackward0``).

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> x.clone()
    tensor([1., 1.], grad_fn=<CloneBackward0>)
    """
    return apply_op(ops.elementwise.clone, self)


@torch_api(COMPOSITE, function=False)
def contiguous(self) -> Tensor:
    """Self when its elements are in row-major order, else a row-major copy
    (``CloneBackward0``), so that ``.contiguous().view(...)`` works as in PyTorch.

    >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    >>> x.is_contiguous(), x.contiguous().is_contiguous()
    (False, True)
    >>> x.contiguous().view(4)
    tensor([1., 3., 2., 4.])
    """
    if self._value.flags.c_contiguous:
        return self
    return self.clone()


@torch_api("to_dtype", function=False, example=lambda x: x.to(dtypes.float32))
def to(self, *args: Any, **kwargs: Any) -> Tensor:
    """Convert dtype (``x.to(symgrad.float64)``, or to another tensor's dtype); the device
    may only be the CPU. Returns self when nothing changes (unless ``copy=True``).

    >>> x = symgrad.tensor([1.5, 2.5])
    >>> x.to(symgrad.float64)
    tensor([1.5000, 2.5000], dtype=symgrad.float64)
    >>> x.to("cpu") is x
    True
    """
    target = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    for arg in (*args, kwargs.pop("device", None)):
        if arg is None:
            continue
        if isinstance(arg, dtypes.dtype):
            target = arg
        elif isinstance(arg, Tensor):
            target = arg.dtype
        else:
            check_device(arg)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    if target is None or target is self.dtype:
        return self.clone() if copy else self
    return self._cast(target)


@torch_api("to_dtype", function=False, example=lambda x: x._cast(dtypes.float32))
def _cast(self, target: dtypes.dtype) -> Tensor:
    if target is self.dtype:
        return self
    return apply_op(ops.elementwise.to_dtype, self, dtype=target.np_dtype.name)


@torch_api("to_dtype", function=False, example=lambda x: x.type(dtypes.float32))
def type(self, dtype: dtypes.dtype | None = None) -> str | Tensor:
    """The PyTorch type name (``'symgrad.FloatTensor'``), or a conversion to ``dtype``.

    >>> x = symgrad.ones(2)
    >>> x.type()
    'symgrad.FloatTensor'
    >>> x.type(symgrad.int64)
    tensor([1, 1])
    """
    if dtype is None:
        return f"symgrad.{self.dtype._torch_name}Tensor"
    if isinstance(dtype, str):
        named = {f"{library}.{d._torch_name}Tensor": d for d in dtypes.ALL
                 for library in ("torch", "symgrad")}.get(dtype)
        if named is None:
            raise ValueError(f"invalid type: '{dtype}'")
        return self._cast(named)
    return self._cast(dtypes.as_dtype(dtype))


@torch_api("to_dtype", function=False)
def float(self) -> Tensor:
    """Convert to float32 (self if it already is).

    >>> symgrad.tensor([1, 2]).float()
    tensor([1., 2.])
    """
    return self._cast(dtypes.float32)


@torch_api("to_dtype", function=False, example=lambda x: x.float().double())
def double(self) -> Tensor:
    """Convert to float64.

    >>> symgrad.tensor([1, 2]).double()
    tensor([1., 2.], dtype=symgrad.float64)
    """
    return self._cast(dtypes.float64)


@torch_api(NO_GRAPH, function=False)
def long(self) -> Tensor:
    """Convert to int64 (rounding toward zero).

    >>> symgrad.tensor([1.7, -1.7]).long()
    tensor([ 1, -1])
    """
    return self._cast(dtypes.int64)


@torch_api("to_dtype", function=False, example=lambda x: x.half())
def half(self) -> Tensor:
    """Convert to float16 (rounding to nearest; beyond its range, inf).

    >>> symgrad.tensor([1 / 3, 70000.0]).half()
    tensor([0.3333,    inf], dtype=symgrad.float16)
    """
    return self._cast(dtypes.float16)


@torch_api(NO_GRAPH, function=False)
def int(self) -> Tensor:
    """Convert to int32 (rounding toward zero).

    >>> symgrad.tensor([1.7, -1.7]).int()
    tensor([ 1, -1], dtype=symgrad.int32)
    """
    return self._cast(dtypes.int32)


@torch_api(NO_GRAPH, function=False)
def short(self) -> Tensor:
    """Convert to int16 (rounding toward zero).

    >>> symgrad.tensor([1.7, -1.7]).short()
    tensor([ 1, -1], dtype=symgrad.int16)
    """
    return self._cast(dtypes.int16)


@torch_api(NO_GRAPH, function=False)
def char(self) -> Tensor:
    """Convert to int8 (rounding toward zero).

    >>> symgrad.tensor([1.7, -1.7]).char()
    tensor([ 1, -1], dtype=symgrad.int8)
    """
    return self._cast(dtypes.int8)


@torch_api(NO_GRAPH, function=False)
def byte(self) -> Tensor:
    """Convert to uint8 (rounding toward zero).

    >>> symgrad.tensor([1.7, 250.0]).byte()
    tensor([  1, 250], dtype=symgrad.uint8)
    """
    return self._cast(dtypes.uint8)


@torch_api(NO_GRAPH, function=False)
def bool(self) -> Tensor:
    """Convert to bool (nonzero is True).

    >>> symgrad.tensor([0.0, 2.0]).bool()
    tensor([False,  True])
    """
    return self._cast(dtypes.bool_)


@torch_api(NO_GRAPH, function=False)
def new_tensor(self, data: Any, *, dtype: dtypes.dtype | None = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """A new leaf holding ``data``, in this tensor's dtype unless ``dtype``.

    >>> symgrad.zeros(1, dtype=symgrad.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=symgrad.float64)
    """
    return creation.tensor(data, dtype=dtype or self.dtype, device=device,
                  requires_grad=requires_grad)


@torch_api(NO_GRAPH, function=False)
def new(self, *args: Any) -> Tensor:
    """PyTorch's legacy constructor in this tensor's dtype: ``new(2, 3)`` a tensor of that
    size (zeros here, uninitialized in PyTorch), ``new([1, 2])`` one holding the data,
    ``new(tensor)`` that tensor, ``new()`` an empty one.

    >>> symgrad.zeros(1).new([1, 2])
    tensor([1., 2.])
    """
    if not args:
        return creation.zeros(0, dtype=self.dtype)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if first.dtype is not self.dtype:
            raise TypeError(f"expected TensorOptions(dtype={self.dtype._cpp_name}, device=cpu, "
                            "layout=Strided, requires_grad=false (default), pinned_memory=false "
                            "(default), memory_format=(nullopt)) (got TensorOptions(dtype="
                            f"{first.dtype._cpp_name}, device=cpu, layout=Strided, "
                            "requires_grad=false (default), pinned_memory=false (default), "
                            "memory_format=(nullopt)))")
        return first
    if all(isinstance(v, builtins.int) and not isinstance(v, builtins.bool) for v in args):
        return creation.zeros(*args, dtype=self.dtype)  # (a size)
    if len(args) == 1 and isinstance(first, list | tuple):
        return creation.tensor(first, dtype=self.dtype)  # (data: a tuple too, as PyTorch)
    raise TypeError(f"new(): invalid data type '{builtins.type(first).__name__}'")


@torch_api(NO_GRAPH, function=False, inplace=True)
def apply_(self, callable: Any) -> Tensor:  # noqa: A002 - PyTorch's name
    """Replace each element by ``callable(element)`` (a Python call per element; refused
    for a tensor that requires grad, as PyTorch).

    >>> symgrad.tensor([1.0, 2.0]).apply_(lambda v: v * 3)
    tensor([3., 6.])
    """
    if self.requires_grad:
        raise RuntimeError("Can't call apply_() on Variable that requires grad. Use "
                           "var.detach().apply_() instead.")
    values = [callable(v) for v in self._value.ravel().tolist()]
    for v in values:
        if not isinstance(v, builtins.int | builtins.float):
            raise TypeError(f"must be real number, not {builtins.type(v).__name__}")
    return self.copy_(creation.tensor(values, dtype=self.dtype).reshape(self.shape))


@torch_api(NO_GRAPH, function=False, inplace=True)
def map_(self, tensor: Tensor, callable: Any) -> Tensor:  # noqa: A002 - PyTorch's name
    """Replace each element by ``callable(element, other)``, ``other`` the element of
    ``tensor`` (broadcast to this tensor's shape) at the same place.

    >>> symgrad.ones(2).map_(symgrad.tensor([1.0, 2.0]), lambda a, b: a + b)
    tensor([2., 3.])
    """
    if self.requires_grad:
        raise RuntimeError("Can't call map_() on Variable that requires grad. Use "
                           "var.detach().map_() instead.")
    other = tensor.expand(*self.shape)._value
    values = [callable(a, b) for a, b in zip(self._value.ravel().tolist(),
                                             other.ravel().tolist(), strict=True)]
    return self.copy_(creation.tensor(values, dtype=self.dtype).reshape(self.shape))


@torch_api(NO_GRAPH, function=False)
def new_full(self, size: Sequence[int], fill_value: Any, *,
             dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A new leaf of ``size`` filled with ``fill_value``, in this tensor's dtype.

    >>> symgrad.zeros(1).new_full((2, 2), 7.0)
    tensor([[7., 7.],
            [7., 7.]])
    """
    return creation.full(tuple(size), fill_value, dtype=dtype or self.dtype, device=device,
                requires_grad=requires_grad)


@torch_api(NO_GRAPH, function=False)
def new_ones(self, *args: Any, size: Sequence[int] | None = None,
             dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A new leaf of ones, in this tensor's dtype.

    >>> symgrad.tensor([1, 2]).new_ones(3)
    tensor([1, 1, 1])
    """
    size = parser.varargs("new_ones", "size", args, size)
    return self.new_full(parser.size_arg("new_ones", size), 1, dtype=dtype, device=device,
                         requires_grad=requires_grad)


@torch_api(NO_GRAPH, function=False)
def new_zeros(self, *args: Any, size: Sequence[int] | None = None,
              dtype: dtypes.dtype | None = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """A new leaf of zeros, in this tensor's dtype.

    >>> symgrad.tensor([1.0]).new_zeros(2, 2)
    tensor([[0., 0.],
            [0., 0.]])
    """
    size = parser.varargs("new_zeros", "size", args, size)
    return self.new_full(parser.size_arg("new_zeros", size), 0, dtype=dtype, device=device,
                         requires_grad=requires_grad)


@torch_api(NO_GRAPH, function=False)
def new_empty(self, *args: Any, size: Sequence[int] | None = None,
              dtype: dtypes.dtype | None = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """PyTorch's uninitialized new tensor: here zero-filled, as :meth:`new_zeros`.

    >>> symgrad.tensor([1.0]).new_empty(2)
    tensor([0., 0.])
    """
    size = parser.varargs("new_empty", "size", args, size)
    return self.new_zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)
