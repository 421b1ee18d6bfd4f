"""PyTorch spellings of the view and indexing ops (see ``symgrad.torch_api``): ``reshape``,
``view``, ``flatten``, ``transpose``, ``permute``, ``t``/``T``/``mT``, ``unsqueeze``,
``squeeze``, ``expand``, ``x[key]`` and ``x[key] = value``, and the in-place shape changes
(``unsqueeze_`` ...), which keep the storage and rebase the history as PyTorch does.

The op rules are in ``symgrad.ops.shape``; which results are numpy views of their base (and so
share its version counter) is decided in ``symgrad.dispatch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.grad_mode import _mode
from symgrad.autograd.graph import named_node, node_class, warn_at_user
from symgrad.dispatch import _rebase_history, apply_inplace, apply_op
from symgrad.numeric import dtypes
from symgrad.numeric import numpy_namespace as xp
from symgrad.tensor import Tensor, _dim, _dims, _make, _shape_arg, _torch_size, counter_of
from symgrad.torch_api.arguments import (
    check_masks,
    expanded_shape,
    infer_shape,
    normalize_key,
    operand,
    split_key,
)
from symgrad.torch_api.declaration import COMPOSITE, torch_api


@torch_api("reshape", example=lambda x: x.reshape(3, 2))
def reshape(self, *args: Any, shape: Sequence[int] | None = None) -> Tensor:
    """The same elements in a new shape (one dim may be -1); a view when the layout allows.

    >>> x = symgrad.arange(6.0)
    >>> symgrad.reshape(x, (2, -1))
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    """
    shape = parser.varargs("reshape", "shape", args, shape)
    target = infer_shape(parser.size_arg("reshape", shape, name="shape"), self._value.size)
    return apply_op(ops.shape.reshape, self, shape=target)


def _view_dtype(self: Tensor, dtype: dtypes.dtype) -> Tensor:
    """``self``'s bytes read as ``dtype``, sharing storage and version counter (PyTorch's
    ``view(dtype)``: not differentiable, the result does not require grad)."""
    value = self._value
    size, new = value.dtype.itemsize, dtype.np_dtype.itemsize
    names = f"{self.dtype._torch_name} as {dtype._torch_name} (different element sizes)"
    if size != new and value.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 to view {names}")
    if new > size and value.shape[-1] % (new // size):
        raise RuntimeError(f"self.size(-1) must be divisible by {new // size} to view {names}, "
                           f"but got {value.shape[-1]}")
    if size != new and value.strides[-1] != size and value.shape[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 to view {names}")
    out = _make(value.view(dtype.np_dtype))
    out._counter = counter_of(self)
    return out


@torch_api("reshape", function=False, example=lambda x: x.view(-1))
def view(self, *args: Any, size: Sequence[int] | None = None) -> Tensor:
    """The same storage seen with a new shape; fails where a copy would be needed
    (after a transpose, say), exactly where PyTorch's ``view`` fails. ``view(dtype)`` reads the
    bytes as another dtype (not recorded; the last dim changes with the element size).

    >>> symgrad.arange(6.0).view(3, 2)
    tensor([[0., 1.],
            [2., 3.],
            [4., 5.]])
    """
    shape = parser.varargs("view", "size", args, size)
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        return _view_dtype(self, shape[0])
    try:
        given = parser.size_arg("view", shape, name="size")
    except TypeError:  # view has two overloads (sizes, dtype): PyTorch lists what it got
        raise parser.invalid_combination("view", args, {"size": size}) from None
    target = infer_shape(given, self._value.size)
    probe = self._value.view()
    try:
        probe.shape = target  # numpy refuses when the strides do not allow it
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.") from None
    return apply_op(ops.shape.reshape, self, shape=target)


@torch_api("reshape", function=False, example=lambda x: x.reshape_as(x.T))
def reshape_as(self, other: Tensor) -> Tensor:
    """Reshape to ``other``'s shape.

    >>> symgrad.arange(4.0).reshape_as(symgrad.zeros(2, 2))
    tensor([[0., 1.],
            [2., 3.]])
    """
    parser.tensor_arg("reshape_as", "other", other)
    return self.reshape(other.shape)


@torch_api("reshape", function=False, example=lambda x: x.view_as(x.T))
def view_as(self, other: Tensor) -> Tensor:
    """View with ``other``'s shape.

    >>> symgrad.arange(4.0).view_as(symgrad.zeros(2, 2))
    tensor([[0., 1.],
            [2., 3.]])
    """
    parser.tensor_arg("view_as", "other", other)
    return self.reshape(other.shape)


@torch_api("reshape", example=lambda x: x.flatten())
def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim .. end_dim`` into one.

    >>> x = symgrad.zeros(2, 3, 4)
    >>> x.flatten().shape, symgrad.flatten(x, 1).shape
    (symgrad.Size([24]), symgrad.Size([2, 12]))
    """
    shape = self._value.shape
    if not shape:
        return self.reshape(1)
    start, end = _dim(start_dim, len(shape)), _dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    return self.reshape(*shape[:start], -1, *shape[end + 1:])


@torch_api("transpose", example=lambda x: x.transpose(0, 1))
def transpose(self, dim0: int, dim1: int) -> Tensor:
    """Swap dims ``dim0`` and ``dim1`` (a view, ``TransposeBackward0``).

    >>> x = symgrad.tensor([[1.0, 2.0, 3.0]])
    >>> symgrad.transpose(x, 0, 1)
    tensor([[1.],
            [2.],
            [3.]])
    """
    n = self._value.ndim
    return apply_op(ops.shape.transpose, self, dim0=_dim(dim0, n), dim1=_dim(dim1, n))


@torch_api("permute", example=lambda x: x.permute(1, 0))
def permute(self, *args: Any, dims: Sequence[int] | None = None) -> Tensor:
    """Reorder the dims: dim ``i`` of the result is dim ``dims[i]`` of this tensor (a view).

    >>> symgrad.zeros(2, 3, 4).permute(2, 0, 1).shape
    symgrad.Size([4, 2, 3])
    """
    given = parser.size_arg("permute", parser.varargs("permute", "dims", args, dims),
                            name="dims")
    if len(given) != self._value.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input "
                           "does not match the length of the desired ordering of dimensions "
                           f"i.e. input.dim() = {self._value.ndim} is not equal to len(dims) = "
                           f"{len(given)}")
    order = tuple(_dim(d, self._value.ndim) for d in given)
    if len(order) == self._value.ndim and len(set(order)) != len(order):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if len(order) != self._value.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input "
                           "does not match the length of the desired ordering of dimensions "
                           "i.e. input.dim() = "
                           f"{self._value.ndim} is not equal to len(dims) = {len(order)}")
    return apply_op(ops.shape.permute, self, dims=order)


@torch_api("transpose", example=lambda x: x.swapaxes(0, 1))
def swapaxes(self, axis0: int, axis1: int) -> Tensor:
    """:meth:`transpose` under numpy's names: swap dims ``axis0`` and ``axis1``.

    >>> symgrad.zeros(2, 3).swapaxes(0, 1).shape
    symgrad.Size([3, 2])
    """
    return transpose(self, axis0, axis1)


@torch_api("t")
def t(self) -> Tensor:
    """Transpose a tensor of at most 2 dims (``TBackward0``).

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    tensor([[1., 3.],
            [2., 4.]])
    """
    if self._value.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._value.ndim}D")
    return apply_op(ops.shape.t, self)


@torch_api("permute", function=False, attribute=True, example=lambda x: x.T)
def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
    """All dims reversed (``PermuteBackward0``; deprecated in PyTorch beyond 2 dims).

    >>> symgrad.tensor([[1.0, 2.0]]).T
    tensor([[1.],
            [2.]])
    """
    if self._value.ndim == 0:
        warn_at_user("Tensor.T is deprecated on 0-D tensors. This function is the identity "
                     "in these cases.")
    if self._value.ndim > 2:
        warn_at_user("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                     "shape is deprecated and it will throw an error in a future release. "
                     "Consider `x.mT` to transpose batches of matrices or "
                     "`x.permute(*symgrad.arange(x.ndim - 1, -1, -1))` to reverse the "
                     "dimensions of a tensor.")
    return self.permute(tuple(reversed(range(self._value.ndim))))


@torch_api("transpose", function=False, attribute=True, example=lambda x: x.mT)
def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
    """The last two dims swapped (batches of matrices transposed).

    >>> symgrad.zeros(5, 2, 3).mT.shape
    symgrad.Size([5, 3, 2])
    """
    if self._value.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self._value.ndim}-D tensor.")
    return self.transpose(-2, -1)


@torch_api("unsqueeze", example=lambda x: x.unsqueeze(0))
def unsqueeze(self, dim: int) -> Tensor:
    """Insert a dim of size 1 at ``dim`` (negative counts from the end of the result).

    >>> x = symgrad.tensor([1.0, 2.0])
    >>> x.unsqueeze(0).shape, x.unsqueeze(-1).shape
    (symgrad.Size([1, 2]), symgrad.Size([2, 1]))
    """
    return apply_op(ops.shape.unsqueeze, self, dim=_dim(dim, self._value.ndim + 1))


@torch_api("squeeze", example=lambda x: x.unsqueeze(0).squeeze())
def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
    """Remove dims of size 1 (all, or those among ``dim`` that have size 1).

    >>> x = symgrad.zeros(1, 2, 1)
    >>> x.squeeze().shape, x.squeeze(0).shape
    (symgrad.Size([2]), symgrad.Size([2, 1]))
    """
    if dim is None:
        return apply_op(ops.shape.squeeze, self)
    result = apply_op(ops.shape.squeeze, self, dim=_squeezed(self, dim))
    # (PyTorch's squeeze.dims overload)
    return named_node(result, "SqueezeBackward2") if isinstance(dim, Sequence) else result


def _squeezed(self: Tensor, dim: int | Sequence[int]) -> tuple[int, ...]:
    """The dims among ``dim`` (an int, or a sequence: empty squeezes none) of size 1."""
    dims = _dims(dim, self._value.ndim) if not isinstance(dim, Sequence) or dim else ()
    return tuple(d for d in dims if self._value.shape[d] == 1)


@torch_api("expand", function=False, example=lambda x: x.expand(4, 2, 3))
def expand(self, *args: Any, size: Sequence[int] | None = None) -> Tensor:
    """Broadcast to a larger shape without copying (-1 keeps a size; ``ExpandBackward0``).

    >>> symgrad.tensor([[1.0], [2.0]]).expand(-1, 3)
    tensor([[1., 1., 1.],
            [2., 2., 2.]])
    """
    target = _shape_arg(parser.varargs("expand", "size", args, size))
    shape = self._value.shape
    if len(target) < len(shape):
        raise RuntimeError(f"expand({self.type()}{{{_torch_size(shape)}}}, "
                           f"size={_torch_size(target)}): the number of sizes provided "
                           f"({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(shape)})")
    return apply_op(ops.shape.expand, self, shape=expanded_shape(shape, target))


@torch_api("expand", function=False, example=lambda x: x.expand_as(x.expand(2, 2, 3)))
def expand_as(self, other: Tensor) -> Tensor:
    """Expand to ``other``'s shape.

    >>> symgrad.tensor([1.0, 2.0]).expand_as(symgrad.zeros(2, 2))
    tensor([[1., 2.],
            [1., 2.]])
    """
    parser.tensor_arg("expand_as", "other", other)
    return self.expand(other.shape)


@torch_api("expand", example=lambda x: x.broadcast_to((2, 2, 3)))
def broadcast_to(self, size: Sequence[int]) -> Tensor:
    """Same as :meth:`expand`.

    >>> symgrad.broadcast_to(symgrad.tensor([1.0, 2.0]), (2, 2))
    tensor([[1., 2.],
            [1., 2.]])
    """
    return self.expand(tuple(size))


@torch_api("index", function=False, example=lambda x: x[0])
def __getitem__(self, key: Any) -> Tensor:
    key = normalize_key(key)
    split = split_key(key, self._value.ndim)
    if split is not None:  # PyTorch's order: the ints (a select), then the index arrays
        _check_index(self, split[0])
        return apply_op(ops.shape.index, self, key=split[0])[split[1]]
    _check_index(self, key)
    return apply_op(ops.shape.index, self, key=key)


@torch_api("setitem", function=False, inplace=True, example=lambda x: x.__setitem__(0, 1.0))
def __setitem__(self, key: Any, value: Any) -> None:
    byte_mask = isinstance(key, Tensor) and key.dtype is dtypes.uint8
    key = normalize_key(key)
    split = split_key(key, self._value.ndim)
    if _mode.enabled and self._requires_grad and self.grad_fn is None:
        # for ints and slices PyTorch writes through a view of self, hence its wording
        view = split is not None or (
            xp.is_basic_index(key) and key is not Ellipsis and key != slice(None))
        raise RuntimeError(f"a {'view of a ' if view else ''}leaf Variable that requires "
                           "grad is being used in an in-place operation.")
    if split is not None:  # PyTorch's order: a view by the ints, then index_put_ on it
        _check_index(self, split[0])
        __setitem__(self[split[0]], split[1], value)
        return
    target = _check_index(self, key)
    if byte_mask and not isinstance(value, Tensor):  # (PyTorch's path for a mask and a number)
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    if value.__class__ is int and not -2**63 <= value < 2**63:  # (read as a C long long)
        raise ValueError("Overflow when unpacking long long")
    if operand(value) is None:
        raise TypeError(f"can't assign a {parser.type_name(value)} to a "
                        f"symgrad.{self.dtype._torch_name}Tensor")
    value = operand(value)
    if not isinstance(value, Tensor):
        value = dtypes.check_fill(value, self._value.dtype)
    else:
        shape = value._value.shape
        extra = len(shape) - target.ndim
        if extra > 0 and all(s == 1 for s in shape[:extra]):
            value = value.reshape(shape[extra:])  # PyTorch drops leading size-1 dims
        if xp.is_basic_index(key):  # a copy_ into a view, in PyTorch
            expanded_shape(value._value.shape, target.shape)
        elif _broadcast_shape(value._value.shape, target.shape) != target.shape:  # index_put_
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} "
                               "cannot be broadcast to indexing result of shape "
                               f"{list(target.shape)}")
    apply_inplace(ops.shape.setitem, self, value, key=key)


def _index_put_args(self: Tensor, indices: Any, values: Any) -> tuple[Any, Tensor]:
    """The key of ``index_put``'s ``indices`` (a tuple of index tensors) and its ``values``,
    checked as PyTorch checks them."""
    if not isinstance(indices, tuple | list):
        raise TypeError("index_put(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {parser.type_name(indices)}")
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{parser.type_name(index)}")
    if not isinstance(values, Tensor):
        raise TypeError("index_put(): argument 'values' (position 2) must be Tensor, not "
                        f"{parser.type_name(values)}")
    if values.dtype is not self.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{self.dtype._torch_name} for the destination and "
                           f"{values.dtype._torch_name} for the source.")
    if len(indices) > self._value.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._value.ndim} (got "
                         f"{len(indices)})")
    key = normalize_key(tuple(indices))
    target = _check_index(self, key)
    if _broadcast_shape(values._value.shape, target.shape) != target.shape:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(target.shape)}")
    return key, values


def _index_put(run: Any, self: Tensor, indices: Any, values: Any,
               accumulate: bool) -> Tensor:
    key, values = _index_put_args(self, indices, values)
    if not accumulate:
        return named_node(run(ops.shape.setitem, self, values, key=key), "IndexPutBackward0")
    target = self._value[key].shape
    if values._value.shape != target:
        values = values.expand(target)
    full = tuple(slice(None) for _ in target)
    return named_node(run(ops.shape.index_add, self, values, key=key, src_key=full),
                      "IndexPutBackward0")


@torch_api(COMPOSITE, example=lambda x: x.index_put((_make(np.array([1, 0])),), x[0]))
def index_put(input: Tensor, indices: tuple[Tensor, ...], values: Tensor,  # noqa: A002
              accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` written at ``input[indices]`` (a tuple of index
    tensors, as ``x[indices] = values``), or added there with ``accumulate``, repeated
    indices adding up (``IndexPutBackward0``).

    >>> x = symgrad.zeros(3)
    >>> x.index_put((symgrad.tensor([0, 2]),), symgrad.tensor([1.0, 2.0]))
    tensor([1., 0., 2.])
    >>> x.index_put((symgrad.tensor([1, 1]),), symgrad.tensor(5.0), accumulate=True)
    tensor([ 0., 10.,  0.])
    """
    return _index_put(apply_op, input, indices, values, accumulate)


@torch_api(COMPOSITE, function=False, inplace=True,
           example=lambda x: x.index_put_((_make(np.array([1, 0])),), x[0].detach()))
def index_put_(self: Tensor, indices: tuple[Tensor, ...], values: Tensor,
               accumulate: bool = False) -> Tensor:
    """In-place :func:`index_put`.

    >>> x = symgrad.zeros(3)
    >>> x.index_put_((symgrad.tensor([1, 1]),), symgrad.ones(2), accumulate=True)
    tensor([0., 2., 0.])
    """
    return _index_put(apply_inplace, self, indices, values, accumulate)


def _broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _check_index(self, key: Any) -> np.ndarray:
    """Validate an index with PyTorch's messages; return the indexed values."""
    if self._value.ndim == 0 and not ((isinstance(key, np.ndarray) and key.dtype == bool) or
                                      key is None or key is Ellipsis or key == ()):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    check_masks(self._value.shape, key)
    try:
        return self._value[key]
    except IndexError as error:
        if str(error).startswith("too many indices"):
            raise IndexError("too many indices for tensor of dimension "
                             f"{self._value.ndim}") from None
        raise IndexError(str(error).replace("axis", "dimension")) from None


def _reshape_(self, op: ops.Op, node_name: str, **params: Any) -> Tensor:
    """An in-place shape op: same storage, new shape, history rebased like PyTorch's."""
    if _mode.enabled and self._requires_grad and self.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    before = _make(self._value, self.grad_fn, self._requires_grad)
    if self._counter is not None:
        before._counter = self._counter
    result = apply_op(op, before, **params)
    self._value = result._value
    counter_of(self).value += 1
    if result.grad_fn is not None:
        result.grad_fn.__class__ = node_class(node_name)  # PyTorch's in-place variant name
        _rebase_history(self, result.grad_fn)
    return self


@torch_api("unsqueeze", function=False, inplace=True, example=lambda x: x.unsqueeze_(0))
def unsqueeze_(self, dim: int) -> Tensor:
    """In-place version of :meth:`unsqueeze`: insert a dim of size 1 at ``dim``.

    >>> x = symgrad.tensor([1.0, 2.0])
    >>> x.unsqueeze_(0)
    tensor([[1., 2.]])
    >>> x.shape
    symgrad.Size([1, 2])
    """
    return _reshape_(self, ops.shape.unsqueeze, "UnsqueezeBackward1",
                          dim=_dim(dim, self._value.ndim + 1))


@torch_api("squeeze", function=False, inplace=True, example=lambda x: x.unsqueeze_(0).squeeze_())
def squeeze_(self, dim: int | Sequence[int] | None = None) -> Tensor:
    """In-place version of :meth:`squeeze`: remove dims of size 1.

    >>> x = symgrad.zeros(1, 2, 1)
    >>> x.squeeze_().shape
    symgrad.Size([2])
    >>> x.shape
    symgrad.Size([2])
    """
    if dim is None:
        return _reshape_(self, ops.shape.squeeze, "SqueezeBackward3")
    return _reshape_(self, ops.shape.squeeze, "SqueezeBackward5" if isinstance(dim, Sequence)
                     else "SqueezeBackward4", dim=_squeezed(self, dim))


@torch_api("transpose", function=False, inplace=True, aliases=("swapaxes_", "swapdims_"),
           example=lambda x: x.transpose_(0, 1))
def transpose_(self, dim0: int, dim1: int) -> Tensor:
    """In-place version of :meth:`transpose`: swap two dims.

    >>> x = symgrad.zeros(2, 3)
    >>> x.transpose_(0, 1).shape
    symgrad.Size([3, 2])
    >>> x.shape
    symgrad.Size([3, 2])
    """
    n = self._value.ndim
    return _reshape_(self, ops.shape.transpose, "TransposeBackward1", dim0=_dim(dim0, n),
                          dim1=_dim(dim1, n))


@torch_api("t", function=False, inplace=True)
def t_(self) -> Tensor:
    """In-place version of :meth:`t`: transpose a tensor of at most 2 dims.

    >>> x = symgrad.tensor([[1.0, 2.0]])
    >>> x.t_()
    tensor([[1.],
            [2.]])
    >>> x.shape
    symgrad.Size([2, 1])
    """
    if self._value.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._value.ndim}D")
    return _reshape_(self, ops.shape.t, "TBackward1")
