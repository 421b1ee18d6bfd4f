"""PyTorch spellings that rearrange or select elements (see symgrad.methods): ``rot90``,
``repeat_interleave``, ``meshgrid``, ``cartesian_prod``, ``Tensor.unfold``,
``masked_select`` and ``nonzero``/``argwhere``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import named_node, warn_at_user
from symgrad.dispatch import _broadcast_error, apply_inplace, apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim, _make
from symgrad.torch_api.arguments import check_ints
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api
from symgrad.torch_api.pointwise import _tensor
from symgrad.torch_api.shaping import (
    _check_bounds,
    _example_index,
    _grid_key,
    _scatter_args,
    fill_tensor,
    flat_positions,
    stack,
)

_sh = ops.shape


@torch_api("rot90", example=lambda x: x.rot90())
def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:  # noqa: A002
    """``input`` turned by ``k`` quarter turns in the plane of ``dims``, from the first dim
    toward the second (``Rot90Backward0``).

    >>> symgrad.rot90(symgrad.tensor([[0, 1, 2], [3, 4, 5]]))
    tensor([[2, 5],
            [1, 4],
            [0, 3]])
    """
    _tensor(input, "rot90")
    dims = tuple(dims)
    ndim = input._value.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = _dim(dims[0], ndim), _dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return apply_op(_sh.rot90, input, k=int(k), dims=(d0, d1))


@torch_api("index_select",
           example=lambda x: x.repeat_interleave(_example_index([1, 2, 0]), dim=1))
def repeat_interleave(input: Tensor, repeats: int | Tensor | None = None,  # noqa: A002
                      dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Each element (each slice along ``dim``; without ``dim``, of the flattened input)
    repeated ``repeats`` times in place, ``repeats`` an int (an expand and a reshape,
    ``ViewBackward0``) or a tensor of one count per slice (a gather of the repeated positions,
    ``IndexSelectBackward0``). With a tensor of counts alone, ``repeat_interleave(counts)``
    repeats each index that often.

    >>> symgrad.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0)
    tensor([[1, 2],
            [1, 2],
            [3, 4],
            [3, 4]])
    >>> symgrad.repeat_interleave(symgrad.tensor([2, 0, 1]))
    tensor([0, 0, 2])
    """
    parser.int64(repeats)
    _tensor(input, "repeat_interleave")
    if repeats is None:  # repeat_interleave(counts): the positions, each repeated
        if not dtypes.is_index(input.dtype):
            raise dtypes.not_implemented("repeat_interleave_cpu", input.dtype)
        counts = input._value
        if counts.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        return _make(np.repeat(np.arange(counts.size), counts.reshape(-1)).astype(np.int64))
    source = input if dim is not None else input.reshape(-1)
    d = _dim(dim, source._value.ndim) if dim is not None else 0
    size = source._value.shape[d] if source._value.ndim else 1
    if isinstance(repeats, Tensor):
        if not dtypes.is_index(repeats.dtype):
            raise dtypes.not_implemented("repeat_interleave_cpu", repeats.dtype)
        counts = repeats._value.reshape(-1)
        if repeats._value.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if counts.size == 1:
            counts = np.full(size, counts[0])
        elif counts.size != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.size} and input.size({d}) = {size}")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
    else:
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        if source._value.ndim == 0:
            source = source.reshape(1)
        # as PyTorch: unsqueeze, expand, clone, then merge the two dims (ViewBackward0)
        shape = source._value.shape
        wide = source.unsqueeze(d + 1).expand(*shape[:d + 1], int(repeats), *shape[d + 1:])
        return wide.clone().reshape(*shape[:d], shape[d] * int(repeats), *shape[d + 1:])
    positions = np.repeat(np.arange(size), counts)
    if source._value.ndim == 0:
        source = source.reshape(1)
    return apply_op(_sh.index_select, source, key=(*(slice(None),) * d, positions))


def _grid_tensors(tensors: tuple, name: str) -> list[Tensor]:
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


@torch_api(COMPOSITE, method=False)
def meshgrid(*tensors: Tensor, indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D (or 0-d) tensors: with ``indexing="ij"`` the grids have one
    dim per tensor in order, with ``"xy"`` the first two dims are swapped (numpy's default;
    PyTorch's default is "ij"). Each grid is a reshape and an expand of its tensor.

    >>> xs, ys = symgrad.meshgrid(symgrad.tensor([1, 2, 3]), symgrad.tensor([4, 5]),
    ...                           indexing="xy")
    >>> xs
    tensor([[1, 2, 3],
            [1, 2, 3]])
    """
    tensors = _grid_tensors(tensors, "meshgrid")
    if indexing not in ("ij", "xy"):
        raise RuntimeError("symgrad.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for x in tensors:
        if x._value.ndim > 1:
            raise RuntimeError("symgrad.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {x}")
    if len({x.dtype for x in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    sizes = [x._value.size for x in tensors]
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, x in enumerate(tensors):
        axis = {0: 1, 1: 0}.get(i, i) if swap else i
        shape = [1] * len(tensors)
        shape[axis] = x._value.size
        grids.append(x.reshape(shape).expand(tuple(sizes)))
    return tuple(grids)


@torch_api(COMPOSITE, method=False)
def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element of each 1-D tensor, one per row, in order (one tensor:
    itself).

    >>> symgrad.cartesian_prod(symgrad.tensor([1, 2]), symgrad.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    tensors = _grid_tensors(tensors, "cartesian_prod")
    for x in tensors:
        if x._value.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape "
                               f"{list(x._value.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], dim=1)


@torch_api("unfold", function=False, example=lambda x: x.unfold(1, 2, 1))
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``size`` elements of dim ``dimension``, ``step`` apart, as a new last
    dim (``dimension`` keeps one entry per window) (``UnfoldBackward0``; gradients of
    overlapping windows add up).

    >>> symgrad.arange(7.0).unfold(0, 3, 2)
    tensor([[0., 1., 2.],
            [2., 3., 4.],
            [4., 5., 6.]])
    """
    shape = self._value.shape
    if not shape:
        shape = (1,)
        source = self.reshape(1)
    else:
        source = self
    d = _dim(dimension, len(shape))
    if size > shape[d]:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {shape[d]} but size "
                           f"is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    windows = (shape[d] - size) // step + 1
    # out[..., w, ..., j] = a[..., w * step + j, ...]; the window dim stays at d
    out_ndim = len(shape) + 1
    key = []
    for k in range(len(shape)):
        view = [1] * out_ndim
        if k == d:
            view[d] = windows
            view[-1] = size
            part = (np.arange(windows)[:, None] * step + np.arange(size)[None, :])
            part = part.reshape(view)
        else:
            view[k] = shape[k]
            part = np.arange(shape[k]).reshape(view)
        key.append(part)
    out = apply_op(_sh.unfold, source, key=tuple(key))
    return out.reshape(size) if not self._value.shape else out


@torch_api("masked_select", example=lambda x: x.masked_select(x > 2))
def masked_select(input: Tensor, mask: Tensor) -> Tensor:  # noqa: A002
    """The elements of ``input`` where the boolean ``mask`` is true, both broadcast, as a 1-D
    tensor in row-major order (``MaskedSelectBackward0``).

    >>> x = symgrad.tensor([[0, 1, 2], [3, 4, 5]])
    >>> symgrad.masked_select(x, x > 2)
    tensor([3, 4, 5])
    """
    _tensor(input, "masked_select")
    _tensor(mask, "masked_select", "mask", 2)
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape_in, shape_mask = input._value.shape, mask._value.shape
    try:
        shape = np.broadcast_shapes(shape_in, shape_mask)
    except ValueError:
        raise RuntimeError(_broadcast_error([mask._value, input._value])) from None
    positions = np.nonzero(np.broadcast_to(mask._value, shape))
    lead = len(shape) - len(shape_in)
    # positions in the broadcast shape, mapped onto input (a broadcast dim reads index 0)
    key = tuple(positions[lead + k] if n != 1 else np.zeros_like(positions[lead + k])
                for k, n in enumerate(shape_in))
    if not shape_in:
        return apply_op(_sh.masked_select, input.reshape(1),
                        key=(np.zeros(positions[0].size if positions else int(mask._value),
                                      dtype=np.int64),))
    return apply_op(_sh.masked_select, input, key=key)


@torch_api(NO_GRAPH, example=lambda x: x.nonzero())
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    """The indices of the nonzero elements: one row per element (``as_tuple=True``: one
    1-D tensor per dim, for indexing).

    >>> symgrad.tensor([[0, 1], [2, 0]]).nonzero()
    tensor([[0, 1],
            [1, 0]])
    >>> symgrad.tensor([[0, 1], [2, 0]]).nonzero(as_tuple=True)
    (tensor([0, 1]), tensor([1, 0]))
    """
    _tensor(input, "nonzero")
    value = input._value
    if as_tuple:
        found = np.nonzero(np.atleast_1d(value))
        return tuple(_make(p.astype(np.int64)) for p in found)
    if value.ndim == 0:
        return _make(np.zeros((int(bool(value)), 0), dtype=np.int64))
    return _make(np.argwhere(value).astype(np.int64))


@torch_api(NO_GRAPH)
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:  # noqa: A002
    """:func:`nonzero` with exactly ``size`` rows: the first ``size`` found, then rows of
    ``fill_value``.

    >>> symgrad.tensor([0, 1, 0, 2]).nonzero_static(size=3)
    tensor([[ 1],
            [ 3],
            [-1]])
    """
    _tensor(input, "nonzero_static")
    if not parser._is_int(size):
        raise parser.wrong_type("nonzero_static", "size", "int", size)
    if not parser._is_int(fill_value):
        raise parser.wrong_type("nonzero_static", "fill_value", "int", fill_value)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = nonzero(input)._value[:size]
    rows = np.full((int(size), found.shape[1]), int(fill_value), dtype=np.int64)
    rows[:len(found)] = found
    return _make(rows)


@torch_api(NO_GRAPH, example=lambda x: x.argwhere())
def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    """``nonzero(input)``: one row of indices per nonzero element.

    >>> symgrad.argwhere(symgrad.tensor([0, 1, 1]))
    tensor([[1],
            [2]])
    """
    return nonzero(input)


# ---------------------------------------------------------------- index_add, index_copy
def _index_args(fn: str, input: Tensor, dim: int, index: Tensor, source: Tensor) -> dict:  # noqa: A002
    """The key (positions in ``input`` of each ``source`` element) of index_add/index_copy."""
    _tensor(input, fn)
    _tensor(source, fn, "source", 4)
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' (position 3) must be Tensor, not "
                        f"{type(index).__name__}")
    if fn == "index_copy" and index.dtype is not dtypes.int64:
        raise RuntimeError(f"{fn}_(): Expected a long tensor for index, but got "
                           f"{index.dtype._torch_name}")
    if not dtypes.is_index(index.dtype):
        raise RuntimeError(f"{fn}_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype._torch_name}")
    idx = index._value.reshape(-1).astype(np.int64)
    if index._value.ndim > 1:
        raise IndexError(f"{fn}_(): Index is supposed to be a vector")
    shape, src_shape = input._value.shape or (1,), source._value.shape or (1,)
    d = _dim(dim, len(shape))
    if idx.size != src_shape[d]:
        raise RuntimeError(f"{fn}_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({src_shape[d]}), for dim: {d}")
    if len(src_shape) != len(shape) or any(s != n for k, (s, n) in
                                           enumerate(zip(src_shape, shape, strict=True))
                                           if k != d):
        raise RuntimeError(f"{fn}_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {list(shape[:d] + shape[d + 1:])} at "
                           f"dimension {d} and source slice shape: "
                           f"{list(src_shape[:d] + src_shape[d + 1:])} at dimension 0.")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{fn}_(): self ({input.dtype._cpp_name}) and source "
                           f"({source.dtype._cpp_name}) must have the same scalar type")
    _check_bounds(idx, d, shape[d])
    positions = np.broadcast_to(idx.reshape([-1 if k == d else 1 for k in range(len(shape))]),
                                src_shape)
    key = _grid_key(np.ascontiguousarray(positions), d)
    if not input._value.shape:
        key = ()
    return {"key": key, "src_key": tuple(slice(None) for _ in source._value.shape)}


def _index_add(run: Any, fn: str, input: Tensor, dim: int, index: Tensor,  # noqa: A002
               source: Tensor, alpha: float) -> Tensor:
    check_ints(alpha)
    params = _index_args(fn, input, dim, index, source)
    if alpha != 1:
        params["alpha"] = alpha
    return run(_sh.index_add, input, source, **params)


@torch_api("index_add", example=lambda x: x.index_add(1, _example_index([2, 0, 2]), x))
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *,  # noqa: A002
              alpha: float = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source``'s slices along ``dim`` added at the
    positions in the 1-D ``index`` (repeats add up) (``IndexAddBackward0``).

    >>> symgrad.zeros(3, 2).index_add(0, symgrad.tensor([0, 2, 0]), symgrad.ones(3, 2))
    tensor([[2., 2.],
            [0., 0.],
            [1., 1.]])
    """
    return _index_add(apply_op, "index_add", input, dim, index, source, alpha)


@torch_api("index_add", function=False, inplace=True,
           example=lambda x: x.index_add_(1, _example_index([2, 0, 2]), x.detach()))
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *,
               alpha: float = 1) -> Tensor:
    """In-place :func:`index_add`.

    >>> symgrad.zeros(3).index_add_(0, symgrad.tensor([1, 1]), symgrad.ones(2))
    tensor([0., 2., 0.])
    """
    return _index_add(apply_inplace, "index_add", self, dim, index, source, alpha)


@torch_api("index_copy", example=lambda x: x.index_copy(1, _example_index([2, 0, 1]), x))
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``source``'s slices along ``dim`` written at the positions in
    the 1-D ``index`` (``IndexCopyBackward0``).

    >>> symgrad.zeros(3, 2).index_copy(0, symgrad.tensor([2, 0]), symgrad.ones(2, 2))
    tensor([[1., 1.],
            [0., 0.],
            [1., 1.]])
    """
    params = _index_args("index_copy", input, dim, index, source)
    return apply_op(_sh.index_copy, input, source, **params)


@torch_api("index_copy", function=False, inplace=True,
           example=lambda x: x.index_copy_(1, _example_index([2, 0, 1]), x.detach()))
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """In-place :func:`index_copy`.

    >>> symgrad.zeros(3).index_copy_(0, symgrad.tensor([1]), symgrad.ones(1))
    tensor([0., 1., 0.])
    """
    params = _index_args("index_copy", self, dim, index, source)
    return apply_inplace(_sh.index_copy, self, source, **params)


# ---------------------------------------------------------------- index_fill, masked_scatter, put
def _index_fill(run: Any, input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    _tensor(input, "index_fill")
    if not isinstance(value, Tensor | bool | int | float):
        raise parser.invalid_combination("index_fill", (dim, index, value), {})
    if not isinstance(index, Tensor):
        raise TypeError("index_fill(): argument 'index' (position 2) must be Tensor, not "
                        f"{parser.type_name(index)}")
    if index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index._value.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    shape = input._value.shape or (1,)
    d = _dim(dim, len(shape))
    idx = index._value.reshape(-1)
    idx = np.where(idx < 0, idx + shape[d], idx)
    bad = (idx < 0) | (idx >= shape[d])
    if bad.any():
        raise IndexError(f"index {index._value.reshape(-1)[bad][0]} is out of bounds for "
                         f"dimension {d} with size {shape[d]}")
    positions = np.broadcast_to(idx.reshape([-1 if k == d else 1 for k in range(len(shape))]),
                                shape[:d] + (idx.size,) + shape[d + 1:])
    key = _grid_key(np.ascontiguousarray(positions), d) if input._value.ndim else ()
    if isinstance(value, Tensor):
        value = fill_tensor("index_fill_", value, input)
        return named_node(run(_sh.setitem, input, value, key=key), "IndexFillBackward1")
    value = dtypes.check_fill(value, input._value.dtype)
    return named_node(run(_sh.scatter_value, input, key=key, value=value),
                      "IndexFillBackward0")


@torch_api(COMPOSITE, example=lambda x: x.index_fill(1, _example_index([2, 0]), -1.0))
def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    """A copy of ``input`` with the slices along ``dim`` at the positions in ``index`` set to
    ``value`` (a number, or a 0-d tensor that then gets their gradient's sum)
    (``IndexFillBackward0`` / ``IndexFillBackward1``).

    >>> symgrad.zeros(2, 3).index_fill(1, symgrad.tensor([0, 2]), -1.0)
    tensor([[-1.,  0., -1.],
            [-1.,  0., -1.]])
    """
    return _index_fill(apply_op, input, dim, index, value)


@torch_api(COMPOSITE, function=False, inplace=True,
           example=lambda x: x.index_fill_(1, _example_index([2, 0]), -1.0))
def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In-place :func:`index_fill`.

    >>> symgrad.zeros(3).index_fill_(0, symgrad.tensor([1]), 2.0)
    tensor([0., 2., 0.])
    """
    return _index_fill(apply_inplace, self, dim, index, value)


def _masked_scatter(run: Any, input: Tensor, mask: Tensor, source: Tensor,  # noqa: A002
                    inplace: bool) -> Tensor:
    _tensor(input, "masked_scatter")
    _tensor(mask, "masked_scatter", "mask", 1)
    _tensor(source, "masked_scatter", "source", 2)
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {mask.dtype._torch_name}")
    if source.dtype is not input.dtype:  # (PyTorch's message, space missing)
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{input.dtype._torch_name} and {source.dtype._torch_name}")
    shape = input._value.shape
    if inplace:
        expanded_mask = mask.expand(shape)._value
    else:
        message = _broadcast_error([input._value, mask._value], quiet=True)
        if message:
            raise RuntimeError(message)
        shape = np.broadcast_shapes(shape, mask._value.shape)
        expanded_mask = np.broadcast_to(mask._value, shape)
        if input._value.shape != shape:
            input = input.expand(shape)
    if not shape:
        return _on_one_element(run, lambda run_, a, m, src: _masked_scatter(
            run_, a, m.reshape(1), src, inplace), input, mask, source)
    key = np.nonzero(expanded_mask)
    count = key[0].size
    if count > source._value.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    source, src_key = _leading(source, count)
    return named_node(run(_sh.scatter, input, source, key=key, src_key=src_key),
                      "MaskedScatterBackward0")


def _leading(source: Tensor, count: int) -> tuple[Tensor, tuple]:
    """``source`` (a 0-d one as 1-element: its gradient goes back through the reshape) and the
    key that reads its first ``count`` elements in row-major order."""
    if not source._value.ndim:
        source = source.reshape(1)
    return source, np.unravel_index(np.arange(count), source._value.shape)


@torch_api(COMPOSITE, example=lambda x: x.masked_scatter(x > 0.5, x.exp()))
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """A copy of ``input`` with the elements of ``source``, in order, written where ``mask``
    (broadcast with ``input``) is true (``MaskedScatterBackward0``).

    >>> x = symgrad.zeros(2, 3)
    >>> x.masked_scatter(symgrad.tensor([True, False, True]), symgrad.arange(1.0, 7.0))
    tensor([[1., 0., 2.],
            [3., 0., 4.]])
    """
    return _masked_scatter(apply_op, input, mask, source, False)


@torch_api(COMPOSITE, function=False, inplace=True,
           example=lambda x: x.masked_scatter_(x > 0.5, x.detach().exp()))
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In-place :func:`masked_scatter` (``mask`` broadcasts to ``self``'s shape).

    >>> symgrad.zeros(3).masked_scatter_(symgrad.tensor([False, True, True]), symgrad.ones(5))
    tensor([0., 1., 1.])
    """
    return _masked_scatter(apply_inplace, self, mask, source, True)


def _put(run: Any, input: Tensor, index: Tensor, source: Tensor,  # noqa: A002
         accumulate: bool) -> Tensor:
    _tensor(input, "put")
    _tensor(index, "put", "index", 1)
    _tensor(source, "put", "source", 2)
    if index._value.dtype.kind not in "iu":
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{index.dtype._torch_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {input.dtype._torch_name} and source.dtype = "
                           f"{source.dtype._torch_name}")
    if index._value.size != source._value.size:
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source._value.size}, "
                         f"index.numel() = {index._value.size}")
    if not input._value.ndim:
        return _on_one_element(run, _put, input, index, source, accumulate)
    flat = flat_positions(input, index)
    key = np.unravel_index(flat, input._value.shape)
    source, src_key = _leading(source, flat.size)
    op = _sh.index_add if accumulate else _sh.scatter
    return named_node(run(op, input, source, key=key, src_key=src_key), "PutBackward0")


def _on_one_element(run: Any, fn: Any, input: Tensor, *args: Any) -> Tensor:  # noqa: A002
    """``fn(apply_op, input, ...)`` of a 0-d ``input``, computed on its 1-element reshape (an
    in-place ``run`` copies the result back)."""
    result = fn(apply_op, input.reshape(1), *args).reshape(())
    return input.copy_(result) if run is apply_inplace else result


@torch_api(COMPOSITE, example=lambda x: x.put(_example_index([5, 0]), x[0, :2]))
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False,  # noqa: A002
        ) -> Tensor:
    """A copy of ``input`` with ``source``'s elements written at the flat (row-major)
    positions ``index`` (negative ones count from the end), or added there with
    ``accumulate`` (``PutBackward0``).

    >>> symgrad.zeros(2, 2).put(symgrad.tensor([3, 0]), symgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 1.]])
    """
    return _put(apply_op, input, index, source, accumulate)


@torch_api(COMPOSITE, function=False, inplace=True,
           example=lambda x: x.put_(_example_index([5, 0]), x[0, :2].detach()))
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place :func:`put`.

    >>> symgrad.zeros(3).put_(symgrad.tensor([1, 1]), symgrad.ones(2), accumulate=True)
    tensor([0., 2., 0.])
    """
    return _put(apply_inplace, self, index, source, accumulate)


# ---------------------------------------------------------------- scatter_reduce
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _winners(a: np.ndarray, s: np.ndarray, key: tuple, include_self: bool,
             largest: bool) -> dict:
    """For amax/amin: which source elements are written, and how the gradient is split among
    the elements equal to each result (self included when ``include_self``)."""
    flat_key = np.ravel_multi_index(tuple(np.broadcast_arrays(*key)), a.shape).reshape(-1) \
        if key else np.zeros(s.size, dtype=np.int64)
    values = s.reshape(-1)
    flat_a = a.reshape(-1)
    best = {}
    for j, p in enumerate(flat_key.tolist()):
        v = values[j]
        if p not in best or (v > best[p] if largest else v < best[p]):
            best[p] = v
    if include_self:
        for p in best:
            if (flat_a[p] > best[p]) if largest else (flat_a[p] < best[p]):
                best[p] = flat_a[p]
    # PyTorch counts input's own element among the ties whenever it equals the result, even
    # without include_self (it then gets no gradient itself)
    ties = {p: (1 if flat_a[p] == v else 0) for p, v in best.items()}
    for j, p in enumerate(flat_key.tolist()):
        ties[p] += values[j] == best[p]
    weight_self = np.ones(a.size)
    for p, v in best.items():
        weight_self[p] = 1 / ties[p] if include_self and flat_a[p] == v else 0.0
    weight_src = np.array([1 / ties[p] if values[j] == best[p] else 0.0
                           for j, p in enumerate(flat_key.tolist())])
    written, source = {}, {}
    for j, p in enumerate(flat_key.tolist()):
        if values[j] == best[p] and p not in written and not (include_self and
                                                                flat_a[p] == best[p]):
            written[p], source[p] = True, j
    pick = sorted(source)
    unravel = np.unravel_index(np.array(pick, dtype=np.int64), a.shape)
    src_positions = np.unravel_index(np.array([source[p] for p in pick], dtype=np.int64),
                                     s.shape)
    return {"pick_key": tuple(unravel) if pick else (), "pick_src": tuple(src_positions),
            "weight_self": weight_self.reshape(a.shape),
            "weight_src": weight_src.reshape(s.shape)}


def _scatter_reduce(run: Any, fn: str, input: Tensor, dim: int, index: Tensor,  # noqa: A002
                    src: Tensor, reduce: str, include_self: bool) -> Tensor:
    _tensor(input, fn)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # older spellings PyTorch takes
    if reduce not in _REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    _, _, params = _scatter_args(input, dim, index, src, None, None, fn)
    params.update(reduce=reduce, include_self=bool(include_self))
    a, key = input._value, params["key"]
    s = src._value[params["src_key"]]
    if reduce == "mean":
        count = np.zeros(a.shape) + (1 if include_self else 0)
        touched = np.zeros(a.shape, dtype=bool)
        if key:
            np.add.at(count, key, 1)
            touched[key] = True
        params["divisor"] = np.where(touched, np.maximum(count, 1), 1)
    elif reduce in ("amax", "amin"):
        params.update(_winners(a, s, key, bool(include_self), reduce == "amax"))
    return run(_sh.scatter_reduce, input, src, **params)


@torch_api("scatter_reduce",
           example=lambda x: x.scatter_reduce(1, _example_index([[2, 2], [0, 1]]), x, "sum"))
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor,  # noqa: A002
                   reduce: str, *, include_self: bool = True) -> Tensor:
    """``input`` with the elements of ``src`` reduced into the positions ``index`` gives
    along ``dim`` (as for :func:`scatter`), by ``reduce``: "sum", "prod", "mean", "amax" or
    "amin", with or without ``input``'s own value (``include_self``). The gradient of
    amax/amin is split evenly among the elements equal to the result
    (``ScatterReduceBackward0``).

    >>> base = symgrad.tensor([1.0, 2.0, 3.0, 4.0])
    >>> src = symgrad.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> base.scatter_reduce(0, symgrad.tensor([0, 1, 0, 1, 2, 1]), src, "amax")
    tensor([3., 6., 5., 4.])
    """
    return _scatter_reduce(apply_op, "scatter_reduce", input, dim, index, src, reduce,
                           include_self)


@torch_api("scatter_reduce", function=False, inplace=True,
           example=lambda x: x.scatter_reduce_(1, _example_index([[2, 2], [0, 1]]), x.detach(),
                                               "sum"))
def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    """In-place :func:`scatter_reduce`.

    >>> symgrad.ones(2).scatter_reduce_(0, symgrad.tensor([1, 1]), symgrad.tensor([2.0, 3.0]),
    ...                                 "prod")
    tensor([1., 6.])
    """
    return _scatter_reduce(apply_inplace, "scatter_reduce_", self, dim, index, src, reduce,
                           include_self)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _index_reduce(run: Any, fn: str, input: Tensor, dim: int, index: Tensor,  # noqa: A002
                  source: Tensor, reduce: str, include_self: bool) -> Tensor:
    """index_reduce(_) as :func:`scatter_reduce` with ``index`` spread along ``dim`` over
    ``source``'s shape, checked with PyTorch's messages first (``IndexReduceBackward0``)."""
    _tensor(input, fn)
    parser.tensor_arg(fn, "index", index, 2)
    parser.tensor_arg(fn, "source", source, 3)
    warn_at_user("index_reduce() is in beta and the API may change at any time.")
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    ndim = input._value.ndim
    d = _dim(dim, ndim)
    ids = index._value
    if ids.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{ids.ndim} with type: {index.dtype._torch_name} and size: "
                         f"{list(ids.shape)}")
    if ids.dtype not in (np.int32, np.int64):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype._torch_name}")
    src = source._value
    count = src.shape[d] if src.ndim else 1
    if ids.size != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({ids.size}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {d}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype._torch_name}) and source "
                           f"({source.dtype._torch_name}) must have the same scalar type")
    if src.ndim and src.shape[:d] + src.shape[d + 1:] != input._value.shape[:d] + \
            input._value.shape[d + 1:]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input._value.shape)} "
                           f"source.shape = {list(src.shape)}")
    size = input._value.shape[d] if ndim else 1
    if ids.size and (ids.min() < 0 or ids.max() >= size):
        raise IndexError("index out of range in self")
    spread = ids.astype(np.int64)
    if not ndim and run is apply_op:  # (a 0-d tensor: as its one-element vector)
        result = _index_reduce(run, fn, input.reshape(1), 0, index, source.reshape(1), reduce,
                               include_self)
        return named_node(result.reshape(()), "IndexReduceBackward0")
    if src.ndim:
        spread = np.broadcast_to(spread.reshape((1,) * d + (-1,) + (1,) * (src.ndim - d - 1)),
                                 src.shape)
    else:
        spread = spread.reshape(())
    result = _scatter_reduce(run, fn, input, dim, _make(np.ascontiguousarray(spread)), source,
                             reduce, include_self)
    return named_node(result, "IndexReduceBackward0")


def _index_reduce_example(x: Tensor, name: str, reduce: str) -> Tensor:
    """The registry's example call of index_reduce(_), without PyTorch's beta warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return getattr(x, name)(0, _example_index([1, 1]), x.detach() + 1, reduce)


@torch_api("scatter_reduce",
           example=lambda x: _index_reduce_example(x, "index_reduce", "prod"))
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor,  # noqa: A002
                 reduce: str, *, include_self: bool = True) -> Tensor:
    """``input`` with slice ``i`` of ``source`` along ``dim`` reduced into slice ``index[i]``
    by ``reduce``: "prod", "mean", "amax" or "amin", with or without ``input``'s own values
    (``include_self``; PyTorch's beta warning; ``IndexReduceBackward0``, whose amax/amin
    gradient is split evenly among the elements equal to the result).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.ones(2, 2).index_reduce(0, symgrad.tensor([1, 1]),
    ...                                 symgrad.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod")
    tensor([[ 1.,  1.],
            [ 8., 15.]])
    """
    return _index_reduce(apply_op, "index_reduce", input, dim, index, source, reduce,
                         include_self)


@torch_api("scatter_reduce", function=False, inplace=True,
           example=lambda x: _index_reduce_example(x, "index_reduce_", "amax"))
def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In-place :func:`index_reduce`.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.ones(2).index_reduce_(0, symgrad.tensor([1, 1]), symgrad.tensor([2.0, 3.0]),
    ...                               "mean")
    tensor([1., 2.])
    """
    return _index_reduce(apply_inplace, "index_reduce_", self, dim, index, source, reduce,
                         include_self)
