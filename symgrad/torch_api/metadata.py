"""PyTorch spellings about a tensor's layout and kind (see ``symgrad.torch_api``): ``stride``,
``storage_offset``, ``nbytes``, ``itemsize``, ``is_signed``, ``is_nonzero``, ``is_same_size``,
and the small conveniences ``type_as``, ``ravel``, ``positive``, ``sum_to_size``.

Strides and offsets are numpy's, in elements: the same as PyTorch's for the views both make
(transposes, slices, expands); where symgrad copies and PyTorch would view, or numpy views
backwards (a flip), the tensor is reported contiguous.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation, parser
from symgrad.autograd.grad_mode import is_grad_enabled
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim, _make, strided
from symgrad.torch_api.arguments import check_ints
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


@torch_api(NO_GRAPH, function=False)
def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
    """The step in elements between neighbours along each dimension (or along ``dim``).

    >>> x = symgrad.ones(2, 3)
    >>> x.stride(), x.t().stride(), x.stride(-1)
    ((3, 1), (1, 3), 1)
    """
    value = self._value
    if value.size == 0 or any(s < 0 for s in value.strides):
        strides = _contiguous_strides(value.shape)
    else:
        strides = tuple(s // value.itemsize for s in value.strides)
    if dim is None:
        return strides
    if not parser._is_int(dim):
        raise parser.wrong_type("stride", "dim", "int", dim)
    return strides[_dim(int(dim), value.ndim)]


def _root(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


@torch_api(NO_GRAPH, function=False)
def storage_offset(self) -> int:
    """The index of the first element in the storage the tensor views (0 for a fresh one).

    >>> x = symgrad.ones(2, 3)
    >>> x[1].storage_offset(), x[:, 1:].storage_offset()
    (3, 1)
    """
    value = self._value
    root = _root(value)
    if root is value or any(s < 0 for s in value.strides) or value.size == 0:
        return 0
    start = value.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return start // value.itemsize


@torch_api(NO_GRAPH, function=False, attribute=True)
def nbytes(self) -> int:
    """Bytes held by the elements: ``numel() * element_size()``.

    >>> symgrad.ones(2, 3).nbytes
    24
    """
    return self._value.size * self._value.itemsize


@torch_api(NO_GRAPH, function=False, attribute=True)
def itemsize(self) -> int:
    """Bytes per element (``element_size()``).

    >>> symgrad.ones(2, dtype=symgrad.float64).itemsize
    8
    """
    return self._value.itemsize


@torch_api(NO_GRAPH)
def is_signed(self) -> bool:
    """Whether the dtype holds negative values (every dtype but bool and uint8).

    >>> symgrad.ones(1).is_signed(), symgrad.is_signed(symgrad.tensor([True]))
    (True, False)
    """
    return self.dtype.is_signed


@torch_api(NO_GRAPH)
def get_device(self) -> int:
    """-1: the tensor is on the CPU (PyTorch gives a CUDA tensor's device index).

    >>> symgrad.ones(2).get_device()
    -1
    """
    return -1


@torch_api(NO_GRAPH, function=False, attribute=True)
def is_cpu(self) -> bool:
    """True: symgrad's tensors live in host memory.

    >>> symgrad.ones(2).is_cpu
    True
    """
    return True


@torch_api(NO_GRAPH, function=False, attribute=True)
def layout(self) -> Any:
    """The memory layout: always :data:`symgrad.strided` (a dense array).

    >>> symgrad.ones(2).layout
    symgrad.strided
    """
    return strided


def _not_on(name: str, what: str) -> None:
    """Install ``Tensor.<name>``, a property that is False: symgrad's tensors are not
    ``what``."""

    def flag(self: Tensor) -> bool:
        return False

    flag.__doc__ = f"""False: symgrad's tensors are not {what}.

    >>> symgrad.ones(2).{name}
    False
    """
    torch_api(NO_GRAPH, function=False, attribute=True, name=name)(flag)


for _name, _what in (("is_meta", "meta tensors (they hold values)"),
                     ("is_quantized", "quantized"), ("is_nested", "nested tensors"),
                     ("is_sparse_csr", "sparse"), ("is_mkldnn", "MKL-DNN tensors"),
                     ("is_mps", "on an MPS device"), ("is_xpu", "on an XPU"),
                     ("is_xla", "on an XLA device"), ("is_ipu", "on an IPU"),
                     ("is_vulkan", "on a Vulkan device"), ("is_maia", "on a MAIA device"),
                     ("is_mtia", "on an MTIA device")):
    _not_on(_name, _what)


@torch_api(NO_GRAPH)
def is_inference(self) -> bool:
    """False: symgrad has no inference tensors (its ``inference_mode`` is ``no_grad``, so a
    tensor made inside one is an ordinary tensor, where PyTorch's would answer True).

    >>> symgrad.ones(2).is_inference()
    False
    """
    return False


@torch_api(NO_GRAPH, function=False)
def is_pinned(self) -> bool:
    """False: symgrad's tensors are numpy arrays in pageable memory.

    >>> symgrad.ones(2).is_pinned()
    False
    """
    return False


@torch_api(NO_GRAPH, function=False)
def pin_memory(self) -> Tensor:
    """Refused, as PyTorch refuses it without an accelerator.

    >>> symgrad.ones(2).pin_memory()
    Traceback (most recent call last):
    RuntimeError: Cannot access accelerator device when none is available.
    """
    raise RuntimeError("Cannot access accelerator device when none is available.")


@torch_api(NO_GRAPH, function=False, inplace=True)
def share_memory_(self) -> Tensor:
    """Mark the tensor as shared between processes and return it (its numpy array is
    already in memory another process could map; nothing is moved).

    >>> symgrad.ones(2).share_memory_().is_shared()
    True
    """
    self.__dict__["_shared"] = True
    return self


@torch_api(NO_GRAPH, function=False)
def is_shared(self) -> bool:
    """Whether :meth:`share_memory_` was called.

    >>> symgrad.ones(2).is_shared()
    False
    """
    return self.__dict__.get("_shared", False)


@torch_api(NO_GRAPH, function=False)
def dim_order(self) -> tuple[int, ...]:
    """The dims from the outermost to the innermost in memory (by decreasing stride).

    >>> symgrad.ones(2, 3).t().dim_order()
    (1, 0)
    """
    strides = self._value.strides
    return tuple(sorted(range(self._value.ndim), key=lambda d: -strides[d]))


@torch_api(NO_GRAPH)
def is_nonzero(self) -> bool:
    """Whether the single element is nonzero; PyTorch's error for none or several.

    >>> symgrad.tensor([0.0]).is_nonzero(), symgrad.tensor(2).is_nonzero()
    (False, True)
    """
    return bool(self)


@torch_api(NO_GRAPH)
def is_same_size(self, other: Tensor) -> bool:
    """Whether both have the same shape.

    >>> symgrad.ones(2, 3).is_same_size(symgrad.zeros(2, 3))
    True
    """
    parser.tensor_arg("is_same_size", "other", other)
    return self._value.shape == other._value.shape


@torch_api(COMPOSITE, function=False, example=lambda x: x.type_as(x.float()))
def type_as(self, other: Tensor) -> Tensor:
    """This tensor in ``other``'s dtype (itself when already so; ``ToCopyBackward0``).

    >>> symgrad.tensor([1, 2]).type_as(symgrad.ones(1))
    tensor([1., 2.])
    """
    parser.tensor_arg("type_as", "other", other)
    return self.to(other.dtype)


@torch_api(COMPOSITE, example=lambda x: x.ravel())
def ravel(self) -> Tensor:
    """The elements as a 1-D tensor: ``reshape(-1)`` (a view when the layout allows).

    >>> symgrad.ravel(symgrad.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    return self.reshape(-1)


@torch_api(NO_GRAPH)
def positive(self) -> Tensor:
    """The tensor itself (``+x``); refused for bool tensors, as PyTorch.

    >>> symgrad.positive(symgrad.tensor([-1.0, 2.0]))
    tensor([-1.,  2.])
    """
    if self._value.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


@torch_api(COMPOSITE, function=False, example=lambda x: x.sum_to_size(1, 3))
def sum_to_size(self, *args: Any, size: Any = None) -> Tensor:
    """The sum of the elements that broadcasting ``size`` to this shape would repeat: the
    gradient of an expand (``SumBackward1``, then ``ViewBackward0`` when dims go).

    >>> symgrad.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    target = parser.size_arg("sum_to_size", parser.varargs("sum_to_size", "size", args, size))
    shape = self._value.shape
    lead = len(shape) - len(target)
    if lead < 0 or any(t not in (1, s) for t, s in zip(target, shape[lead:], strict=True)):
        raise RuntimeError(f"size {{{list(target)}}} is not expandable to size "
                           f"{{{list(shape)}}}.")
    dims = [*range(lead), *(lead + i for i, t in enumerate(target) if t == 1
                            and shape[lead + i] != 1)]
    if not dims:
        return self
    out = self.sum(dims, keepdim=True)
    return out.view(target) if lead else out


@torch_api(NO_GRAPH, method=False)
def result_type(tensor1: Any, tensor2: Any) -> dtypes.dtype:
    """The dtype an arithmetic op on ``tensor1`` and ``tensor2`` (tensors or Python numbers)
    returns, by PyTorch's promotion rules (dimensioned tensors first, then 0-d tensors, then
    numbers, each only when of a higher kind).

    >>> symgrad.result_type(symgrad.tensor([1]), 1.0)
    symgrad.float32
    >>> symgrad.result_type(symgrad.tensor([1.0]), symgrad.tensor(1.0, dtype=symgrad.float64))
    symgrad.float32
    """
    check_ints(tensor1, tensor2)
    tensors, scalars = [], []
    for value in (tensor1, tensor2):
        if isinstance(value, Tensor):
            tensors.append((value.dtype, value._value.ndim))
        elif isinstance(value, bool | int | float | np.generic):
            scalars.append(value)
        else:
            raise TypeError("result_type() received an invalid combination of arguments - got "
                            f"({parser.type_name(tensor1)}, {parser.type_name(tensor2)})")
    return dtypes.promote(tensors, scalars)


@torch_api(NO_GRAPH, method=False)
def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether PyTorch's casting rules allow an in-place op to write a ``from_`` result into a
    ``to`` tensor (not from floating point to integer or bool, nor from integer to bool).

    >>> symgrad.can_cast(symgrad.float64, symgrad.float32), symgrad.can_cast(symgrad.float32,
    ...                                                                      symgrad.int64)
    (True, False)
    """
    return dtypes.can_cast(dtypes._dtype_arg("can_cast", from_, "from_"),
                           dtypes._dtype_arg("can_cast", to, "to", 2))


# ---------------------------------------------------------------- a real tensor's complex views
@torch_api(NO_GRAPH, method=False)
def is_floating_point(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """Whether ``input``'s dtype is a floating point one (:meth:`Tensor.is_floating_point`).

    >>> x = symgrad.ones(1)
    >>> symgrad.is_floating_point(x), symgrad.is_floating_point(x.long())
    (True, False)
    """
    return input.is_floating_point()


@torch_api(NO_GRAPH, method=False)
def is_complex(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input``'s dtype is a complex one: never (symgrad has no complex dtypes).

    >>> symgrad.is_complex(symgrad.ones(1))
    False
    """
    return input.is_complex()


@torch_api(NO_GRAPH)
def conj(self) -> Tensor:
    """The complex conjugate: a real tensor itself (as PyTorch, which returns ``self``).

    >>> x = symgrad.ones(2)
    >>> x.conj() is x
    True
    """
    return self


@torch_api(NO_GRAPH)
def conj_physical(self) -> Tensor:
    """The complex conjugate, computed: a real tensor itself (as PyTorch returns ``self``).

    >>> x = symgrad.ones(2)
    >>> x.conj_physical() is x
    True
    """
    return self


@torch_api(NO_GRAPH, inplace=True)
def conj_physical_(self) -> Tensor:
    """In-place :meth:`conj_physical`: nothing changes in a real tensor (PyTorch's refusal for
    a leaf that requires grad included).

    >>> symgrad.ones(2).conj_physical_()
    tensor([1., 1.])
    """
    if self._requires_grad and self.grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    return self


@torch_api(NO_GRAPH, function=False)
def new_empty_strided(self, size: Any, stride: Any, *, dtype: dtypes.dtype | None = None,
                      device: Any = None, requires_grad: bool = False, layout: Any = None,
                      pin_memory: bool = False) -> Tensor:
    """:func:`symgrad.empty_strided` in this tensor's dtype (unless ``dtype``).

    >>> symgrad.ones(1, dtype=symgrad.float64).new_empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    return creation.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                  layout=layout, device=device, requires_grad=requires_grad,
                                  pin_memory=pin_memory)


@torch_api(COMPOSITE, function=False, example=lambda x: x.to_dense())
def to_dense(self, dtype: dtypes.dtype | None = None, *, masked_grad: bool | None = None,
             ) -> Tensor:
    """This (dense) tensor itself, or in ``dtype`` (``ToCopyBackward0``).

    >>> x = symgrad.ones(2)
    >>> x.to_dense() is x
    True
    """
    return self if dtype is None or dtype is self.dtype else self.to(dtype)


@torch_api(NO_GRAPH)
def resolve_conj(self) -> Tensor:
    """``self`` with a pending conjugation applied: a real tensor itself.

    >>> x = symgrad.ones(2)
    >>> x.resolve_conj() is x
    True
    """
    return self


@torch_api(NO_GRAPH)
def resolve_neg(self) -> Tensor:
    """``self`` with a pending negation applied: a real tensor itself.

    >>> x = symgrad.ones(2)
    >>> x.resolve_neg() is x
    True
    """
    return self


@torch_api(NO_GRAPH)
def is_conj(self) -> bool:
    """Whether a conjugation is pending (a lazily conjugated complex view): never here.

    >>> symgrad.ones(2).is_conj()
    False
    """
    return False


@torch_api(NO_GRAPH)
def is_neg(self) -> bool:
    """Whether a negation is pending (a lazily negated complex view): never here.

    >>> symgrad.ones(2).is_neg()
    False
    """
    return False


@torch_api(NO_GRAPH, attribute=True)
def real(self) -> Tensor:
    """The real part: a real tensor itself (``x.real``, ``symgrad.real(x)``).

    >>> x = symgrad.ones(2)
    >>> x.real is x
    True
    """
    return self


@torch_api(NO_GRAPH, attribute=True)
def imag(self) -> Tensor:
    """The imaginary part, which a real tensor does not have (PyTorch's RuntimeError).

    >>> symgrad.ones(2).imag
    Traceback (most recent call last):
    RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


@torch_api(NO_GRAPH)
def isreal(self) -> Tensor:
    """Whether each element is real: all of a real tensor's are.

    >>> symgrad.isreal(symgrad.tensor([1.0, 2.0]))
    tensor([True, True])
    """
    return _make(np.ones(self._value.shape, dtype=bool))
