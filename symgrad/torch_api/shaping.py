"""PyTorch spellings of the shaping, joining, splitting, indexing and matrix-structure ops
(see ``symgrad.torch_api``).

Views are returned where PyTorch returns views (``narrow``, ``select``, ``movedim``, the pieces
of ``split``/``chunk``/``unbind``/``tensor_split``, ``diagonal``): they share storage and the
version counter with their base. Index tensors are turned into numpy index keys here, outside
the graph, so that the recorded ops are plain gathers and scatters.

PyTorch's ``split``/``chunk``/``unbind`` record one node with several outputs; symgrad's nodes
have one output, so each piece gets its own node, of the same name (``SplitBackward0`` ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import named_node, warn_at_user
from symgrad.dispatch import _broadcast_error, apply_inplace, apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim, _make, _torch_size
from symgrad.torch_api.declaration import COMPOSITE, torch_api

# ---------------------------------------------------------------- helpers


def _int_list(value: Any) -> tuple[int, ...]:
    """An int or a sequence of ints as a tuple."""
    if isinstance(value, int | np.integer):
        return (int(value),)
    if isinstance(value, Tensor):
        return tuple(int(v) for v in value._value.reshape(-1))
    return tuple(int(v) for v in value)


def _unique_dims(dims: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Dims as non-negative ints, refusing repeats (with PyTorch's message)."""
    normalized = tuple(_dim(d, ndim) for d in dims)
    for d in normalized:
        if normalized.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return normalized


def _tensors(tensors: Any, name: str) -> list[Tensor]:
    """The ``tensors`` argument of cat/stack/...: a sequence of Tensors, checked."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def _index(index: Any, name: str, dtype_message: str, position: int = 2) -> np.ndarray:
    """An index tensor's values (a copy: the graph keeps the index as it was)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' (position {position}) must be Tensor, not "
                        f"{type(index).__name__}")
    if not dtypes.is_index(index.dtype):
        raise RuntimeError(dtype_message)
    return index._value.astype(np.int64)


def _check_bounds(index: np.ndarray, dim: int, size: int) -> None:
    bad = (index < 0) | (index >= size)
    if bad.any():
        raise RuntimeError(f"index {index[bad].flat[0]} is out of bounds for dimension {dim} "
                           f"with size {size}")


def _grid_key(index: np.ndarray, dim: int) -> tuple:
    """The advanced-index key that reads ``out[i][j][k] = a[i][index[i][j][k]][k]`` (dim 1)."""
    if index.ndim == 0:
        return (index,)
    key = list(np.indices(index.shape, sparse=True))
    key[dim] = index
    return tuple(key)


def _slice_key(dim: int, part: int | slice) -> tuple:
    """The key that takes ``part`` of dim ``dim`` (a trailing ``...`` keeps 0-d results views)."""
    return (*(slice(None),) * dim, part, Ellipsis)


def flat_positions(input: Tensor, index: Tensor) -> np.ndarray:  # noqa: A002
    """``index`` as non-negative flat (row-major) positions in ``input``, refused as PyTorch's
    take and put refuse one out of range."""
    n = input._value.size
    flat = index._value.reshape(-1)
    bad = flat[(flat >= n) | (flat < -n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of "
                         f"{n} elements.")
    return np.where(flat < 0, flat + n, flat)


def _example_index(values: list) -> Tensor:
    """An int64 index tensor for the ``example`` calls of the registry test."""
    return _make(np.array(values, dtype=np.int64))


def _negative_size_error(shape: Sequence[int]) -> RuntimeError:
    bad = next(s for s in shape if s < 0)
    return RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                        f"{_torch_size(shape)}")


# ---------------------------------------------------------------- repeat, flip, roll, move


@torch_api("repeat", function=False, example=lambda x: x.repeat(2, 1))
def repeat(self: Tensor, *args: Any, repeats: Sequence[int] | None = None) -> Tensor:
    """Tile the tensor ``sizes[d]`` times along each dim (``RepeatBackward0``); extra leading
    sizes add dims.

    >>> symgrad.tensor([1.0, 2.0]).repeat(2)
    tensor([1., 2., 1., 2.])
    """
    reps = parser.size_arg("repeat", parser.varargs("repeat", "repeats", args, repeats),
                           name="repeats")
    if len(reps) < self._value.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(reps) - self._value.ndim) + self._value.shape
    out = tuple(r * s for r, s in zip(reps, shape, strict=True))
    if any(s < 0 for s in out):
        raise _negative_size_error(out)
    return apply_op(ops.shape.repeat, self, repeats=reps)


@torch_api("repeat", example=lambda x: x.tile(2))
def tile(input: Tensor, *args: Any,  # noqa: A002 - PyTorch's name
         dims: Sequence[int] | None = None) -> Tensor:
    """:meth:`repeat`, with missing leading sizes taken as 1.

    >>> symgrad.tile(symgrad.tensor([[1.0], [2.0]]), (2,)).shape
    symgrad.Size([2, 2])
    """
    reps = parser.size_arg("tile", parser.varargs("tile", "dims", args, dims), name="dims")
    return repeat(input, (1,) * (input._value.ndim - len(reps)) + reps)


@torch_api("flip", example=lambda x: x.flip(0))
def flip(input: Tensor, *args: Any, dims: Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """Reverse the order of elements along ``dims`` (a copy, ``FlipBackward0``).

    >>> symgrad.tensor([1.0, 2.0, 3.0]).flip(0)
    tensor([3., 2., 1.])
    """
    ndim = input._value.ndim
    axes = _unique_dims(parser.size_arg("flip", parser.varargs("flip", "dims", args, dims),
                                        name="dims"), ndim)
    return apply_op(ops.shape.flip, input, dims=axes if ndim else ())


@torch_api("flip", example=lambda x: x.fliplr())
def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    """Reverse the columns (dim 1) of a tensor of at least 2 dims.

    >>> symgrad.tensor([[1.0, 2.0]]).fliplr()
    tensor([[2., 1.]])
    """
    if input._value.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@torch_api("flip", example=lambda x: x.flipud())
def flipud(input: Tensor) -> Tensor:  # noqa: A002
    """Reverse the rows (dim 0) of a tensor of at least 1 dim.

    >>> symgrad.tensor([1.0, 2.0]).flipud()
    tensor([2., 1.])
    """
    if input._value.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


@torch_api("roll", example=lambda x: x.roll(1, 1))
def roll(input: Tensor, shifts: int | Sequence[int],  # noqa: A002
         dims: int | Sequence[int] | None = None) -> Tensor:
    """Shift elements cyclically along ``dims`` (the flattened tensor when None), by as many
    places as ``shifts`` (``RollBackward0``).

    >>> symgrad.tensor([1.0, 2.0, 3.0]).roll(1)
    tensor([3., 1., 2.])
    """
    shift = _int_list(shifts)
    axes = () if dims is None else _int_list(dims)
    if len(shift) != len(axes) and not (dims is None and len(shift) == 1):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift)}, "
                           f"dims:{len(axes)}")
    if dims is None:
        return apply_op(ops.shape.roll, input, shifts=shift[0], dims=None)
    ndim = input._value.ndim
    if ndim == 0:
        raise IndexError(f"Dimension specified as {axes[0]} but tensor has no dimensions")
    return apply_op(ops.shape.roll, input, shifts=shift,
                    dims=tuple(_dim(d, ndim) for d in axes))


@torch_api("permute", aliases=("moveaxis",), example=lambda x: x.movedim(0, 1))
def movedim(input: Tensor, source: int | Sequence[int],  # noqa: A002
            destination: int | Sequence[int]) -> Tensor:
    """Move the dims ``source`` to the positions ``destination``, keeping the others in order
    (a view, ``PermuteBackward0``).

    >>> symgrad.zeros(2, 3, 4).movedim(0, -1).shape
    symgrad.Size([3, 4, 2])
    """
    ndim = input._value.ndim
    src, dst = _int_list(source), _int_list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    src = tuple(_dim(d, ndim) for d in src)
    dst = tuple(_dim(d, ndim) for d in dst)
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    order: list[int | None] = [None] * ndim
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    return input.permute((*(next(rest) if s is None else s for s in order),))


@torch_api("transpose", example=lambda x: x.swapdims(0, 1))
def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """Same as :meth:`transpose`.

    >>> symgrad.zeros(2, 3).swapdims(0, 1).shape
    symgrad.Size([3, 2])
    """
    return input.transpose(dim0, dim1)


@torch_api("reshape", example=lambda x: x.unflatten(1, (3, 1)))
def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:  # noqa: A002
    """Split dim ``dim`` into several dims of the given ``sizes`` (one may be -1).

    >>> symgrad.zeros(2, 6).unflatten(1, (2, 3)).shape
    symgrad.Size([2, 2, 3])
    """
    shape = input._value.shape
    d = _dim(dim, len(shape))
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = shape[d] if shape else 1
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) == 1 and known and size % known == 0:
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    if math.prod(sizes) != size or any(s < 0 for s in sizes):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({size}) in the input tensor")
    return input.reshape((*shape[:d], *sizes, *shape[d + 1:]))


# ---------------------------------------------------------------- narrow, select


@torch_api("index", example=lambda x: x.narrow(1, 1, 2))
def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:  # noqa: A002
    """Elements ``start .. start + length - 1`` of dim ``dim`` (a view, ``SliceBackward0``).

    >>> symgrad.tensor([1.0, 2.0, 3.0]).narrow(0, 1, 2)
    tensor([2., 3.])
    """
    if input._value.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input._value.ndim)
    size = input._value.shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return apply_op(ops.shape.index, input, key=_slice_key(d, slice(start, start + length)))


@torch_api(COMPOSITE, example=lambda x: x.narrow_copy(1, 1, 2))
def narrow_copy(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:  # noqa: A002
    """A copy of :func:`narrow`'s elements, not a view (``NarrowCopyBackward0``).

    >>> symgrad.arange(6.0).narrow_copy(0, 1, 2)
    tensor([1., 2.])
    """
    return named_node(narrow(input, dim, start, length).clone(), "NarrowCopyBackward0")


@torch_api("index", example=lambda x: x.select(1, -1))
def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """The slice at ``index`` of dim ``dim``, without that dim (a view, ``SelectBackward0``).

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).select(1, 0)
    tensor([1., 3.])
    """
    if input._value.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input._value.ndim)
    size = input._value.shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{_torch_size(input._value.shape)} at dimension {d}")
    return apply_op(ops.shape.index, input, key=_slice_key(d, index % size))


# ---------------------------------------------------------------- joining


def _cat_dim(tensors: list[Tensor], dim: int) -> int:
    """Check tensors for ``cat`` as PyTorch does; return the dim as a non-negative int."""
    for i, x in enumerate(tensors):
        if x._value.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    # 1-D empty tensors are skipped, whatever their shape (PyTorch's legacy behaviour)
    joined = [(i, x._value.shape) for i, x in enumerate(tensors) if x._value.shape != (0,)]
    if not joined:
        return _dim(dim, 1)
    first = joined[0][1]
    d = _dim(dim, len(first))
    for i, shape in joined[1:]:
        if len(shape) != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} "
                               f"and {len(shape)}")
        for k, (a, b) in enumerate(zip(first, shape, strict=True)):
            if k != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {a} but got size {b} for tensor number {i} "
                                   "in the list.")
    return d


@torch_api("cat", method=False, aliases=("concat", "concatenate"))
def cat(tensors: Sequence[Tensor], dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors along an existing dim ``dim`` (``CatBackward0``); the result has the
    promoted dtype. 1-D empty tensors are skipped, as in PyTorch.

    >>> symgrad.cat([symgrad.ones(1, 2), symgrad.zeros(1, 2)]).shape
    symgrad.Size([2, 2])
    """
    tensors = _tensors(tensors, "cat")
    if not tensors:
        raise ValueError("symgrad.cat(): expected a non-empty list of Tensors")
    d = _cat_dim(tensors, dim if axis is None else axis)
    return apply_op(ops.shape.cat, *tensors, dim=d)


@torch_api("stack", method=False)
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of equal shape along a new dim ``dim`` (``StackBackward0``).

    >>> symgrad.stack([symgrad.ones(3), symgrad.zeros(3)], dim=1).shape
    symgrad.Size([3, 2])
    """
    tensors = _tensors(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._value.shape
    d = _dim(dim, len(first) + 1)
    for i, x in enumerate(tensors[1:], 1):
        if x._value.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{_torch_size(first)} at entry 0 and "
                               f"{_torch_size(x._value.shape)} at entry {i}")
    return apply_op(ops.shape.stack, *tensors, dim=d)


def _at_least(x: Tensor, ndim: int) -> Tensor:
    """``x`` with PyTorch's atleast_1d/2d/3d shape (1-D ``n`` -> ``1, n`` / ``1, n, 1``)."""
    shape = x._value.shape
    if len(shape) >= ndim:
        return x
    if not shape:
        return x.reshape((1,) * ndim)
    if len(shape) == 1:
        return x.unsqueeze(0) if ndim == 2 else x.reshape(1, shape[0], 1)
    return x.unsqueeze(-1)  # 2-D to 3-D


def _nonempty(tensors: Any, name: str) -> list[Tensor]:
    tensors = _tensors(tensors, name)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


@torch_api(COMPOSITE, method=False)
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 1 (dim 0 for 1-D tensors); 0-d tensors count as 1-D.

    >>> symgrad.hstack([symgrad.ones(2), symgrad.zeros(1)])
    tensor([1., 1., 0.])
    """
    tensors = [_at_least(x, 1) for x in _nonempty(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0]._value.ndim == 1 else 1)


@torch_api(COMPOSITE, method=False, aliases=("row_stack",))
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 0, 1-D tensors of size n counting as 1 x n rows.

    >>> symgrad.vstack([symgrad.ones(2), symgrad.zeros(2)]).shape
    symgrad.Size([2, 2])
    """
    return cat([_at_least(x, 2) for x in _nonempty(tensors, "vstack")], 0)


@torch_api(COMPOSITE, method=False)
def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 2 (depth), lower-dim tensors made 3-D as ``atleast_3d`` makes them.

    >>> symgrad.dstack([symgrad.ones(2), symgrad.zeros(2)]).shape
    symgrad.Size([1, 2, 2])
    """
    return cat([_at_least(x, 3) for x in _nonempty(tensors, "dstack")], 2)


@torch_api(COMPOSITE, method=False)
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Join as columns: 1-D tensors of size n become n x 1 columns, then :func:`hstack`.

    >>> symgrad.column_stack([symgrad.ones(2), symgrad.zeros(2)]).shape
    symgrad.Size([2, 2])
    """
    tensors = _nonempty(tensors, "column_stack")
    columns = [x.reshape(x._value.size, 1) if x._value.ndim <= 1 else x for x in tensors]
    return cat(columns, 1)


# ---------------------------------------------------------------- splitting


def _pieces(input: Tensor, op: ops.Op, keys: Sequence[Any]) -> tuple[Tensor, ...]:  # noqa: A002
    """The views of ``input`` at ``keys``, marked as outputs of one multi-output op: PyTorch
    refuses to change them in place (their shared backward could not see the change)."""
    pieces = tuple(apply_op(op, input, key=key) for key in keys)
    name = op.node_name.removesuffix("Backward0")
    for k, piece in enumerate(pieces):
        piece._multi_output = (name, k)
    return pieces


def _split_sizes(input: Tensor, sizes: Sequence[int], dim: int) -> tuple[Tensor, ...]:  # noqa: A002
    size = input._value.shape[dim]
    if any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(sizes)}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                           f"(input tensor's size at dimension {dim}), but got "
                           f"split_sizes={list(sizes)}")
    ends = np.cumsum([0, *sizes]).tolist()
    return _pieces(input, ops.shape.split_with_sizes,
                   [_slice_key(dim, slice(a, b)) for a, b in pairwise(ends)])


def _split_size(input: Tensor, split_size: int, dim: int) -> tuple[Tensor, ...]:  # noqa: A002
    size = input._value.shape[dim]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {size}")
    count = max(-(-size // split_size), 1) if split_size else 1
    starts = [i * split_size for i in range(count)]
    return _pieces(input, ops.shape.split,
                   [_slice_key(dim, slice(a, min(a + split_size, size))) for a in starts])


@torch_api("split", method=False, example=lambda x: x.split(2, 1)[0])
def split(tensor: Tensor, split_size_or_sections: int | Sequence[int],
          dim: int = 0) -> tuple[Tensor, ...]:
    """Views of consecutive pieces along ``dim``: of ``split_size_or_sections`` elements each
    (the last may be smaller; ``SplitBackward0``), or of the listed sizes
    (``SplitWithSizesBackward0``).

    >>> [p.shape[0] for p in symgrad.zeros(5).split(2)]
    [2, 2, 1]
    """
    if tensor._value.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _dim(dim, tensor._value.ndim)
    if isinstance(split_size_or_sections, int | np.integer):
        return _split_size(tensor, int(split_size_or_sections), d)
    return _split_sizes(tensor, _int_list(split_size_or_sections), d)


@torch_api("split", function=False, name="split", example=lambda x: x.split(2, 1)[0])
def _split_method(self: Tensor, split_size: int | Sequence[int], dim: int = 0,
                  ) -> tuple[Tensor, ...]:
    """Tensor.split: :func:`split` with PyTorch's method keyword ``split_size``.

    >>> [p.shape[0] for p in symgrad.zeros(5).split(split_size=2)]
    [2, 2, 1]
    """
    return split(self, split_size, dim)


@torch_api("split", example=lambda x: x.chunk(2, 1)[1])
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """At most ``chunks`` views along ``dim``, of ``ceil(size / chunks)`` elements each (the
    last may be smaller, and fewer chunks come back when that size runs out early).

    >>> [p.shape[0] for p in symgrad.zeros(6).chunk(4)]
    [2, 2, 2]
    """
    if input._value.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _dim(dim, input._value.ndim)
    size = input._value.shape[d]
    if size == 0:  # as many empty chunks as asked (PyTorch splits with sizes here)
        return _split_sizes(input, [0] * chunks, d)
    return _split_size(input, -(-size // chunks), d)


@torch_api("unbind", example=lambda x: x.unbind(1)[2])
def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """The slices along ``dim``, without that dim (views, ``UnbindBackward0``).

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).unbind(1)
    (tensor([1., 3.]), tensor([2., 4.]))
    """
    ndim = input._value.ndim
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _dim(dim, ndim)
    return _pieces(input, ops.shape.unbind,
                   [_slice_key(d, i) for i in range(input._value.shape[d])])


@torch_api("index", example=lambda x: x.tensor_split(2, 1)[0])
def tensor_split(input: Tensor, indices_or_sections: Any = None, dim: int = 0, *,  # noqa: A002
                 sections: int | None = None, indices: Sequence[int] | None = None
                 ) -> tuple[Tensor, ...]:
    """Views along ``dim``: ``n`` sections of near-equal size (the first ``size % n`` one
    larger), or the pieces between the given indices (``SliceBackward0``).

    >>> [p.shape[0] for p in symgrad.zeros(7).tensor_split(3)]
    [3, 2, 2]
    """
    if indices_or_sections is None and sections is None and indices is None:
        raise parser.invalid_combination("tensor_split", (indices_or_sections,), {})
    parser.int64(indices_or_sections), parser.int64(sections)
    ndim = input._value.ndim
    if ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _dim(dim, ndim)
    size = input._value.shape[d]
    spec = next(s for s in (indices_or_sections, sections, indices) if s is not None)
    if isinstance(spec, Tensor) and spec._value.ndim == 0 or isinstance(spec, int | np.integer):
        n = int(spec)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        ends = np.cumsum([0] + [small + 1] * extra + [small] * (n - extra)).tolist()
        parts = [slice(a, b) for a, b in pairwise(ends)]
    else:
        cuts = [0, *_int_list(spec)]
        parts = [slice(a, b) for a, b in pairwise(cuts)] + [slice(cuts[-1], None)]
    return tuple(apply_op(ops.shape.index, input, key=_slice_key(d, part)) for part in parts)


# ---------------------------------------------------------------- gathering


def _gather_checks(input: Tensor, dim: int, index: np.ndarray) -> int:  # noqa: A002
    shape = input._value.shape
    d = _dim(dim, len(shape))
    if max(index.ndim, 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for k, (i, s) in enumerate(zip(index.shape, shape, strict=False)):
        if k != d and i > s:
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{list(index.shape)} to be no larger than self {list(shape)} "
                               f"apart from dimension {d}")
    _check_bounds(index, d, shape[d] if shape else 1)
    return d


@torch_api("gather", example=lambda x: x.gather(1, _example_index([[0, 2], [1, 1]])))
def gather(input: Tensor, dim: int, index: Tensor, *,  # noqa: A002
           sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` for ``dim=1`` (and likewise for other dims);
    ``index`` may be smaller than ``input`` except along ``dim`` (``GatherBackward0``).
    Gradients add up where indices repeat.

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).gather(1, symgrad.tensor([[1], [0]]))
    tensor([[2.],
            [3.]])
    """
    idx = _index(index, "gather", "gather(): Expected dtype int32/int64 for index")
    d = _gather_checks(input, dim, idx)
    if input._value.ndim == 0:
        if idx.ndim == 0:
            return apply_op(ops.shape.gather, input, key=())
        input = input.reshape(1)
    return apply_op(ops.shape.gather, input, key=_grid_key(idx, d))


@torch_api("gather", example=lambda x: x.take_along_dim(_example_index([[1], [0]]), 1))
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """Pick values along ``dim`` at ``indices`` (broadcast against ``input`` in the other
    dims), or from the flattened tensor when ``dim`` is None (``GatherBackward0``).

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).take_along_dim(symgrad.tensor([[1], [0]]), 1)
    tensor([[2.],
            [3.]])
    """
    if not isinstance(indices, Tensor):
        raise TypeError("take_along_dim(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(indices).__name__}")
    if not dtypes.is_index(indices.dtype):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    idx = indices._value.astype(np.int64)
    if dim is None:
        flat = idx.reshape(-1)
        _check_bounds(flat, 0, input._value.size)
        return apply_op(ops.shape.gather, input.reshape(-1), key=(flat,))
    shape = input._value.shape
    if idx.ndim != len(shape):
        raise RuntimeError("symgrad.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {len(shape)} dimensions for input, "
                           f"and {idx.ndim} dimensions for indices")
    d = _dim(dim, len(shape))
    size = shape[d] if shape else 1
    idx = np.where((idx < 0) & (idx >= -size), idx + size, idx)  # PyTorch wraps these
    _check_bounds(idx, d, size)
    if not shape:
        return apply_op(ops.shape.gather, input, key=())
    rest = [s for k, s in enumerate(shape) if k != d]
    rest_index = [s for k, s in enumerate(idx.shape) if k != d]
    try:
        common = list(np.broadcast_shapes(tuple(rest), tuple(rest_index)))
    except ValueError:
        raise RuntimeError(_broadcast_error([np.empty(rest), np.empty(rest_index)])) from None
    target = (*common[:d], shape[d], *common[d:])
    if target != shape:
        input = input.expand((*target,))
    idx = np.broadcast_to(idx, (*common[:d], idx.shape[d], *common[d:]))
    return apply_op(ops.shape.gather, input, key=_grid_key(idx, d))


@torch_api("index_select", example=lambda x: x.index_select(1, _example_index([2, 0, 2])))
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    """The slices of dim ``dim`` at the positions in the 1-D ``index``, in that order
    (``IndexSelectBackward0``); gradients add up where indices repeat.

    >>> symgrad.tensor([1.0, 2.0, 3.0]).index_select(0, symgrad.tensor([2, 2, 0]))
    tensor([3., 3., 1.])
    """
    idx = _index(index, "index_select", "index_select(): Expected dtype int32 or int64 for "
                 "index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    ndim = input._value.ndim
    d = _dim(dim, ndim)
    if ndim == 0:
        if idx.size != 1:
            raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                               f"{idx.size} value(s)")
        if idx.reshape(-1)[0] != 0:
            raise IndexError("index out of range in self")
        return apply_op(ops.shape.index_select, input, key=())
    idx = idx.reshape(-1)
    size = input._value.shape[d]
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        if d != 1:  # PyTorch's CPU kernels: dim 1 has its own bounds check and message
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={idx[bad][0]} "
                           f"axis_dim={size}")
    return apply_op(ops.shape.index_select, input, key=(*(slice(None),) * d, idx))


# ---------------------------------------------------------------- masked_fill, scatter


def fill_tensor(fn: str, value: Tensor, like: Tensor) -> Tensor:
    """A fill value given as a tensor, checked as PyTorch checks it (0-d) and in ``like``'s
    dtype (``fn``: masked_fill_, index_fill_)."""
    if value._value.ndim:
        raise RuntimeError(f"{fn} only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value._value.ndim} dimension(s).")
    return value if value.dtype is like.dtype else value._cast(like.dtype)


def _masked_fill_args(input: Tensor, mask: Tensor, value: Any) -> tuple:  # noqa: A002
    """Check masked_fill's arguments; return the op and its inputs and params."""
    if not isinstance(mask, Tensor) or mask.dtype is not dtypes.bool_:
        got = mask.dtype._cpp_name if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{got}")
    if isinstance(value, Tensor):
        return ops.shape.masked_fill_tensor, (input, mask, fill_tensor("masked_fill_", value,
                                                                       input)), {}
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, int | float):
        raise TypeError(f"masked_fill(): argument 'value' must be Number or Tensor, not "
                        f"{type(value).__name__}")
    value = dtypes.check_fill(value, input._value.dtype)
    if input._value.dtype.kind in "biu":  # the value is cast to the tensor's dtype
        value = bool(value) if input._value.dtype.kind == "b" else int(value)
    return ops.shape.masked_fill, (input, mask), {"value": value}


@torch_api("masked_fill", example=lambda x: x.masked_fill(x > 2, 0.0))
def masked_fill(input: Tensor, mask: Tensor, value: float | Tensor) -> Tensor:  # noqa: A002
    """``value`` where the boolean ``mask`` (broadcast) is true, ``input`` elsewhere
    (``MaskedFillBackward0``; ``MaskedFillBackward1`` for a 0-d tensor ``value``, which then
    gets the sum of the gradient over the filled places).

    >>> x = symgrad.tensor([1.0, -2.0])
    >>> x.masked_fill(x < 0, 0.0)
    tensor([1., 0.])
    """
    op, inputs, params = _masked_fill_args(input, mask, value)
    try:
        np.broadcast_shapes(mask._value.shape, input._value.shape)
    except ValueError:
        raise RuntimeError(_broadcast_error([mask._value, input._value])) from None
    return apply_op(op, *inputs, **params)


@torch_api("masked_fill", function=False, inplace=True,
           example=lambda x: x.masked_fill_(x > 2, 0.0))
def masked_fill_(self: Tensor, mask: Tensor, value: float | Tensor) -> Tensor:
    """In-place :meth:`masked_fill`.

    >>> x = symgrad.tensor([1.0, -2.0])
    >>> x.masked_fill_(x < 0, 0.0)
    tensor([1., 0.])
    """
    op, inputs, params = _masked_fill_args(self, mask, value)
    return apply_inplace(op, *inputs, **params)


def _scatter_args(input: Tensor, dim: int, index: Tensor, src: Any, value: Any,  # noqa: A002
                  reduce: str | None, name: str) -> tuple:
    """Check scatter's arguments; return the op, its inputs and its params."""
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is None:
        src = value
    if src.__class__ is int:  # (PyTorch reads a Scalar before it checks anything)
        dtypes.check_int(src)
    idx = _index(index, name, "scatter(): Expected dtype int32/int64 for index")
    shape = input._value.shape
    d = _dim(dim, len(shape))
    if idx.ndim != len(shape) and not (idx.ndim == 0 and len(shape) == 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self "
                           "tensor")
    if isinstance(src, Tensor):
        if src._value.ndim != idx.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    too_big = any(i > s for k, (i, s) in enumerate(zip(idx.shape, shape, strict=False))
                  if k != d)
    if isinstance(src, Tensor):
        if too_big or any(i > s for i, s in zip(idx.shape, src._value.shape, strict=True)):
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                               f"{list(shape)} apart from dimension {d} and to be no larger "
                               f"size than src {list(src._value.shape)}")
    elif too_big:
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                           f"{list(shape)} apart from dimension {d}")
    _check_bounds(idx, d, shape[d] if shape else 1)
    key = _grid_key(idx, d) if shape else ()
    if not isinstance(src, Tensor):
        src = dtypes.check_fill(src, input._value.dtype)
    if reduce is not None:  # PyTorch records no gradient for these (a NotImplemented node)
        if isinstance(src, Tensor):
            warn_at_user("The reduce argument of symgrad.scatter with Tensor src is deprecated "
                         "and will be removed in a future PyTorch release. Use "
                         "symgrad.scatter_reduce instead for more reduction options.")
        else:
            src = _make(np.full(idx.shape, src, dtype=input._value.dtype))
        return ops.shape.scatter_with_reduce, (input, src), {
            "key": key, "src_key": tuple(slice(0, n) for n in idx.shape),
            "reduce": "sum" if reduce == "add" else "prod", "include_self": True}
    if not isinstance(src, Tensor):
        return ops.shape.scatter_value, (input,), {"key": key, "value": src}
    src_key = tuple(slice(0, n) for n in idx.shape)
    return ops.shape.scatter, (input, src), {"key": key, "src_key": src_key}


@torch_api("scatter", example=lambda x: x.scatter(1, _example_index([[2], [0]]), x))
def scatter(input: Tensor, dim: int, index: Tensor, src: Tensor | float | None = None,  # noqa: A002
            *, value: float | None = None, reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src[i][j]`` written at ``[i][index[i][j]]`` for ``dim=1``
    (``ScatterBackward0``), or the number ``value`` written there (``ScatterBackward1``).
    Where indices repeat, which write wins is unspecified, as in PyTorch. With ``reduce="add"``
    or ``"multiply"`` the values are added or multiplied in instead (not differentiable in
    PyTorch: the node raises in backward; see :func:`scatter_reduce`).

    >>> symgrad.zeros(3).scatter(0, symgrad.tensor([2]), 5.0)
    tensor([0., 0., 5.])
    """
    op, inputs, params = _scatter_args(input, dim, index, src, value, reduce, "scatter")
    return apply_op(op, *inputs, **params)


@torch_api("scatter", function=False, inplace=True,
           example=lambda x: x.scatter_(1, _example_index([[2], [0]]), x.detach()))
def scatter_(self: Tensor, dim: int, index: Tensor, src: Tensor | float | None = None, *,
             value: float | None = None, reduce: str | None = None) -> Tensor:
    """In-place :meth:`scatter`.

    >>> symgrad.zeros(3).scatter_(0, symgrad.tensor([0]), 1.0)
    tensor([1., 0., 0.])
    """
    op, inputs, params = _scatter_args(self, dim, index, src, value, reduce, "scatter")
    return apply_inplace(op, *inputs, **params)


def _scatter_add_args(input: Tensor, dim: int, index: Tensor, src: Tensor) -> tuple:  # noqa: A002
    if not isinstance(src, Tensor):
        raise TypeError("scatter_add(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    _, inputs, params = _scatter_args(input, dim, index, src, None, None, "scatter_add")
    return inputs, params


@torch_api("scatter_add", example=lambda x: x.scatter_add(1, _example_index([[2, 2], [0, 1]]), x))
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``src[i][j]`` added at ``[i][index[i][j]]`` for ``dim=1``
    (``ScatterAddBackward0``); repeated indices add up.

    >>> symgrad.zeros(2).scatter_add(0, symgrad.tensor([1, 1]), symgrad.ones(2))
    tensor([0., 2.])
    """
    inputs, params = _scatter_add_args(input, dim, index, src)
    return apply_op(ops.shape.scatter_add, *inputs, **params)


@torch_api("scatter_add", function=False, inplace=True,
           example=lambda x: x.scatter_add_(1, _example_index([[2, 2], [0, 1]]), x.detach()))
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """In-place :meth:`scatter_add`.

    >>> symgrad.zeros(2).scatter_add_(0, symgrad.tensor([1, 1]), symgrad.ones(2))
    tensor([0., 2.])
    """
    inputs, params = _scatter_add_args(self, dim, index, src)
    return apply_inplace(ops.shape.scatter_add, *inputs, **params)


# ---------------------------------------------------------------- diagonals and triangles


@torch_api("diagonal", example=lambda x: x.diag())
def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """For a 1-D tensor, the square matrix with it on diagonal ``diagonal``
    (``DiagEmbedBackward0``); for a matrix, a copy of that diagonal
    (``DiagonalBackward0_copy``).

    >>> symgrad.diag(symgrad.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    parser.int64(diagonal)
    ndim = input._value.ndim
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        n = input._value.shape[0] + abs(diagonal)
        return apply_op(ops.linalg.diag_embed, input, shape=(n, n), offset=diagonal, dim1=0,
                        dim2=1)
    return apply_op(ops.linalg.diagonal, input, offset=diagonal, dim1=0, dim2=1, copy=True)


def _two_dims(dim1: int, dim2: int, ndim: int) -> tuple[int, int]:
    d1, d2 = _dim(dim1, ndim), _dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


@torch_api("diagonal", example=lambda x: x.diagonal(1))
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """A view of the diagonal ``offset`` of dims ``dim1``, ``dim2``, as the last dim
    (``DiagonalBackward0``).

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).diagonal()
    tensor([1., 4.])
    """
    parser.int64(offset)
    d1, d2 = _two_dims(dim1, dim2, input._value.ndim)
    return apply_op(ops.linalg.diagonal, input, offset=offset, dim1=d1, dim2=d2)


@torch_api("diag_embed", example=lambda x: x.diag_embed())
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2,  # noqa: A002
               dim2: int = -1) -> Tensor:
    """Tensors whose diagonal ``offset`` in dims ``dim1``, ``dim2`` holds the last dim of
    ``input``, zeros elsewhere (``DiagEmbedBackward0``).

    >>> symgrad.tensor([1.0, 2.0]).diag_embed()
    tensor([[1., 0.],
            [0., 2.]])
    """
    shape = input._value.shape
    d1, d2 = _two_dims(dim1, dim2, len(shape) + 1)
    n = (shape[-1] if shape else 1) + abs(offset)
    out = list(shape[:-1])
    for d in sorted((d1, d2)):
        out.insert(d, n)
    source = input if shape else input.reshape(1)
    return apply_op(ops.linalg.diag_embed, source, shape=tuple(out), offset=offset, dim1=d1,
                    dim2=d2)


@torch_api("trace")
def trace(input: Tensor) -> Tensor:  # noqa: A002
    """The sum of the main diagonal of a matrix (``TraceBackward0``).

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
    tensor(5.)
    """
    if input._value.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                           f"{input._value.ndim}")
    if input.dtype is dtypes.bool_:
        raise dtypes.not_implemented("trace", input.dtype)
    return apply_op(ops.linalg.trace, input)


def _triangle(name: str, input: Tensor) -> None:  # noqa: A002
    if input._value.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@torch_api("tril", example=lambda x: x.tril())
def tril(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The lower triangle of the last two dims, on and below diagonal ``diagonal``; zeros
    above (``TrilBackward0``).

    >>> symgrad.ones(2, 2).tril()
    tensor([[1., 0.],
            [1., 1.]])
    """
    parser.int64(diagonal)
    _triangle("tril", input)
    return apply_op(ops.linalg.tril, input, diagonal=int(diagonal))


@torch_api("triu", example=lambda x: x.triu(1))
def triu(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The upper triangle of the last two dims, on and above diagonal ``diagonal``; zeros
    below (``TriuBackward0``).

    >>> symgrad.ones(2, 2).triu()
    tensor([[1., 1.],
            [0., 1.]])
    """
    parser.int64(diagonal)
    _triangle("triu", input)
    return apply_op(ops.linalg.triu, input, diagonal=int(diagonal))


@torch_api("tril", function=False, inplace=True)
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place :meth:`tril`.

    >>> symgrad.ones(2, 2).tril_()
    tensor([[1., 0.],
            [1., 1.]])
    """
    parser.int64(diagonal)
    _triangle("tril", self)
    return apply_inplace(ops.linalg.tril, self, diagonal=int(diagonal))


@torch_api("triu", function=False, inplace=True)
def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place :meth:`triu`.

    >>> symgrad.ones(2, 2).triu_()
    tensor([[1., 1.],
            [0., 1.]])
    """
    parser.int64(diagonal)
    _triangle("triu", self)
    return apply_inplace(ops.linalg.triu, self, diagonal=int(diagonal))


# ---------------------------------------------------------------- products


@torch_api("mul", aliases=("ger",), example=lambda x: x[0].outer(x[1]))
def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    """The outer product ``input[i] * vec2[j]`` of two 1-D tensors (``MulBackward0``).

    >>> symgrad.outer(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 10.0]))
    tensor([[ 1., 10.],
            [ 2., 20.]])
    """
    parser.tensor_arg("outer", "vec2", vec2, 2)
    for name, v in (("self", input), ("vec2", vec2)):
        if v._value.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{v._value.ndim}-D")
    return input.reshape(-1, 1) * vec2


def _einsum_terms(equation: str, count: int) -> tuple[list[list[str]], list[str] | None]:
    """Parse an einsum equation into each operand's subscripts and the output's (None when
    implicit); ``'.'`` stands for an ellipsis."""
    terms: list[list[str]] = [[]]
    output: list[str] | None = None
    i = 0
    while i < len(equation):
        c = equation[i]
        if c == " ":
            pass
        elif c == "," and output is None:
            terms.append([])
        elif equation.startswith("->", i) and output is None:
            output = []
            i += 1
        elif equation.startswith("...", i):
            (terms[-1] if output is None else output).append(".")
            i += 2
        elif c == ".":
            raise RuntimeError(f"einsum(): found '.' for operand {len(terms) - 1} that is not "
                               "part of any ellipsis")
        elif c.isascii() and c.isalpha():
            (terms[-1] if output is None else output).append(c)
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        i += 1
    if len(terms) > count:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < count:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return terms, output


def _einsum_labels(terms: list[list[str]], operands: Sequence[Tensor]) -> tuple[list, int]:
    """Each operand's dim labels, with the ellipsis expanded into integer labels (the
    ellipsis dims of all operands broadcast together, aligned from the right)."""
    spans = []
    for k, (term, x) in enumerate(zip(terms, operands, strict=True)):
        ndim, letters = x._value.ndim, len([s for s in term if s != "."])
        if "." in term:
            if letters > ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({letters}) is more than the number of dimensions ({ndim}) "
                                   f"for operand {k}")
            spans.append(ndim - letters)
        elif letters != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({letters}) "
                               f"does not match the number of dimensions ({ndim}) for operand "
                               f"{k} and no ellipsis was given")
        else:
            spans.append(0)
    width = max(spans)
    labels = []
    for term, span in zip(terms, spans, strict=True):
        expanded: list = []
        for s in term:
            expanded.extend(range(width - span, width) if s == "." else [s])
        labels.append(expanded)
    return labels, width


def _einsum_diagonals(x: Tensor, labels: list, k: int) -> tuple[Tensor, list]:
    """Take the diagonal for each label repeated within one operand."""
    while len(set(labels)) != len(labels):
        label = next(s for s in labels if labels.count(s) > 1)
        p1 = labels.index(label)
        p2 = labels.index(label, p1 + 1)
        n1, n2 = x._value.shape[p1], x._value.shape[p2]
        if n1 != n2:
            raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {k} but "
                               f"the sizes don't match, {n2} != {n1}")
        x = x.diagonal(0, p1, p2)
        labels = [s for i, s in enumerate(labels) if i not in (p1, p2)] + [label]
    return x, labels


def _arranged(x: Tensor, labels: list, order: list) -> Tensor:
    """``x`` with its dims permuted into ``order`` (no node when already in order)."""
    perm = [labels.index(s) for s in order]
    return x if perm == list(range(len(perm))) else x.permute((*perm,))


def _expand_label(x: Tensor, labels: list, label: Any, size: int) -> Tensor:
    i = labels.index(label)
    if x._value.shape[i] == size:
        return x
    return x.expand((*x._value.shape[:i], size, *x._value.shape[i + 1:]))


def _einsum_pair(a: Tensor, la: list, b: Tensor, lb: list, keep: set,
                 sizes: dict) -> tuple[Tensor, list]:
    """Combine two operands: a broadcast product, or a (batched) matmul over the labels they
    share that are not kept, as PyTorch computes einsum."""
    batch = [s for s in la if s in lb and s in keep]
    summed = [s for s in la if s in lb and s not in keep]
    only_a = [s for s in la if s not in lb]
    only_b = [s for s in lb if s not in la]
    for s in summed:  # a contracted size-1 dim broadcasts: expand it for the matmul
        a, b = _expand_label(a, la, s, sizes[s]), _expand_label(b, lb, s, sizes[s])
    shape_a = [a._value.shape[la.index(s)] for s in batch]
    shape_b = [b._value.shape[lb.index(s)] for s in batch]
    n_a = [a._value.shape[la.index(s)] for s in only_a]
    n_b = [b._value.shape[lb.index(s)] for s in only_b]
    if not summed:
        left = _arranged(a, la, batch + only_a).reshape((*shape_a, *n_a, *[1] * len(only_b)))
        right = _arranged(b, lb, batch + only_b).reshape((*shape_b, *[1] * len(only_a), *n_b))
        return left * right, batch + only_a + only_b
    inner = math.prod(sizes[s] for s in summed)
    left = _arranged(a, la, batch + only_a + summed).reshape((*shape_a, math.prod(n_a), inner))
    right = _arranged(b, lb, batch + summed + only_b).reshape((*shape_b, inner, math.prod(n_b)))
    product = left.matmul(right)
    return product.reshape((*product.shape[:-2], *n_a, *n_b)), batch + only_a + only_b


@torch_api(COMPOSITE, method=False)
def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Sum of products over the subscripts of ``equation`` (``'ij,jk->ik'``, ``'bij,bjk->bik'``,
    traces ``'ii->'``, diagonals ``'ii->i'``, ``'...'`` for broadcast dims; without ``->``, the
    output holds the subscripts that appear once, in alphabetical order). A composite of
    diagonal, permute, sum, mul and matmul.

    >>> symgrad.einsum('ii->', symgrad.eye(3))
    tensor(3.)
    """
    operands = _einsum_operands(equation, operands)
    terms, output_term = _einsum_terms(equation, len(operands))
    labels, width = _einsum_labels(terms, operands)
    tensors = [_einsum_diagonals(x, term, k)
               for k, (x, term) in enumerate(zip(operands, labels, strict=True))]
    sizes = _einsum_sizes(tensors)
    output = _einsum_output(labels, output_term, width)
    if len(tensors) == 1:  # as PyTorch: permute (always), then sum what is not kept
        x, term = tensors[0]
        rest = [s for s in term if s not in output]
        x = x.permute([term.index(s) for s in output + rest])
        return x.sum(tuple(range(len(output), len(term)))) if rest else x
    return _einsum_contract(tensors, output, sizes)


def _einsum_operands(equation: Any, operands: tuple) -> tuple[Tensor, ...]:
    """The operands of ``einsum(equation, *operands)`` (or of one list of them), checked as
    PyTorch checks them, the equation first."""
    if isinstance(equation, Tensor):
        raise NotImplementedError("symgrad.einsum takes an equation string; the sublist format "
                                  "einsum(op1, sublist1, ...) is not supported")
    if not isinstance(equation, str):
        raise TypeError("einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    for i, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{type(x).__name__}")
    return operands


def _einsum_sizes(tensors: list[tuple[Tensor, list]]) -> dict:
    """Each label's size over all operands (1 broadcasts against n), or PyTorch's error."""
    sizes: dict = {}
    for k, (x, term) in enumerate(tensors):
        for s, n in zip(term, x._value.shape, strict=True):
            seen = sizes.get(s, 1)
            if n != seen and n != 1 and seen != 1:
                name = s if isinstance(s, str) else "..."
                raise RuntimeError(f"einsum(): subscript {name} has size {n} for operand {k} "
                                   f"which does not broadcast with previously seen size {seen}")
            sizes[s] = max(seen, n)
    return sizes


def _einsum_output(labels: list[list], output_term: str | None, width: int) -> list:
    """The output's labels: the given ones (checked), or the broadcast dims then the labels
    that appear once, in alphabetical order."""
    counts: dict = {}
    for term in labels:
        for s in term:
            counts[s] = counts.get(s, 0) + 1
    if output_term is None:
        return list(range(width)) + sorted(s for s, c in counts.items()
                                           if isinstance(s, str) and c == 1)
    output: list = []
    for s in output_term:
        if s == ".":
            output.extend(range(width))
            continue
        if s in output:
            raise RuntimeError(f"einsum(): output subscript {s} appears more than once in "
                               "the output")
        if s not in counts:
            raise RuntimeError(f"einsum(): output subscript {s} does not appear in the "
                               "equation for any input operand")
        output.append(s)
    return output


def _einsum_contract(tensors: list[tuple[Tensor, list]], output: list, sizes: dict) -> Tensor:
    """Two or more operands: sum out the labels of one operand only that the output does not
    keep, then combine them left to right, pair by pair."""
    for k, (x, term) in enumerate(tensors):
        others = {s for j, (_, t) in enumerate(tensors) if j != k for s in t}
        alone = [i for i, s in enumerate(term) if s not in output and s not in others]
        if alone:
            tensors[k] = (x.sum(tuple(alone)), [s for s in term if term.index(s) not in alone])
    x, term = tensors[0]
    for k in range(1, len(tensors)):
        keep = set(output) | {s for _, t in tensors[k + 1:] for s in t}
        x, term = _einsum_pair(x, term, *tensors[k], keep, sizes)
    return _arranged(x, term, output)


# ---------------------------------------------------------------- padding (nn.functional.pad)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",  # noqa: A002
        value: float | None = None) -> Tensor:
    """Pad with ``value`` (0 by default): ``pad`` gives (before, after) counts for the last
    dim, then the one before it, ...; negative counts crop (``ConstantPadNdBackward0``).
    ``mode`` 'reflect', 'replicate' and 'circular' pad the last 1 to 3 dims of a batched or
    unbatched input by mirroring, repeating the edge or wrapping around.

    >>> symgrad.nn.functional.pad(symgrad.ones(2), (1, 2))
    tensor([0., 1., 1., 0., 0.])
    """
    if mode != "constant":
        if mode in ("reflect", "replicate", "circular"):
            from symgrad.torch_api.conv import pad_by_mode

            return pad_by_mode(input, pad, mode, value)
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    for i, p in enumerate(pad):
        if not isinstance(p, int | np.integer) or isinstance(p, bool):
            raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    shape = input._value.shape
    if len(pad) // 2 > len(shape):
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {len(shape)}")
    pairs = [(0, 0)] * len(shape)
    for i in range(len(pad) // 2):
        pairs[len(shape) - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    if any(n + min(a, 0) + min(b, 0) < 0 for n, (a, b) in zip(shape, pairs, strict=True)):
        raise RuntimeError("narrow(): length must be non-negative.")
    fill = 0 if value is None else (value.item() if isinstance(value, Tensor) else value)
    return apply_op(ops.shape.constant_pad, input, pad=tuple(pairs), value=fill)
