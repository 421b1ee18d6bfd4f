"""PyTorch functions composed of registered ops (see ``symgrad.torch_api``): broadcasting
helpers (``broadcast_tensors``, ``broadcast_shapes``, ``atleast_1d/2d/3d``), differences and
products along a dimension (``diff``, ``cross``), block and split helpers (``block_diag``,
``diagflat``, ``hsplit``/``vsplit``/``dsplit``, ``split_with_sizes``, ``take``,
``combinations``), NaN-aware and other reductions (``nansum``, ``nanmean``, ``aminmax``,
``count_nonzero``, ``dist``, ``cdist``, ``trapezoid``, ``cumulative_trapezoid``, ``cov``,
``corrcoef``), matrices (``matrix_power``, ``vander``, ``adjoint``, ``mH``, ``H``) and copies
written into (``*_scatter``), and factories of index or value tensors (``logspace``,
``scalar_tensor``, ``tril_indices``, ``triu_indices``, ``isin``).

Most record the registered ops they are made of (their nodes, not PyTorch's fused node where
PyTorch has one: ``renorm`` records a norm and a product where PyTorch records
``RenormBackward0``), with PyTorch's values, shapes and argument errors; ``cross`` and
``hardshrink`` run their own registered ops.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import creation, ops, parser
from symgrad.autograd.graph import named_node, warn_at_user
from symgrad.dispatch import _broadcast_error, apply_inplace, apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim, _make
from symgrad.torch_api.arguments import check_ints, result_dtype
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api
from symgrad.torch_api.reductions import result_type
from symgrad.torch_api.shaping import cat, flat_positions, pad, stack


def _tensors(fn: str, tensors: Sequence[Any]) -> list[Tensor]:
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tensors[0]
    for t in tensors:
        parser.tensor_arg(fn, "tensors", t)
    return list(tensors)


# ---------------------------------------------------------------- broadcasting
@torch_api(NO_GRAPH, method=False)
def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of ``shapes`` (ints or sequences of ints) broadcast to.

    >>> symgrad.broadcast_shapes((2, 1), (3,))
    symgrad.Size([2, 3])
    """
    from symgrad.tensor import Size

    result: list[int] = []
    as_tuples = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    for index, shape in enumerate(as_tuples):
        for i in range(1, len(shape) + 1):
            n = shape[-i]
            if i > len(result):
                result.insert(0, n)
            elif result[-i] == 1:
                result[-i] = n
            elif n not in (1, result[-i]):
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {-i}! "
                                   f"Mismatching argument at index {index} had {shape}; but "
                                   f"expected shape should be broadcastable to {result}")
    return Size(result)


@torch_api(COMPOSITE, method=False, example=lambda x: broadcast_tensors(x, x[:1])[1])
def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (those already of that shape
    come back as they are; the others through ``ExpandBackward0``).

    >>> a, b = symgrad.broadcast_tensors(symgrad.ones(2, 1), symgrad.zeros(3))
    >>> a.shape, b.shape
    (symgrad.Size([2, 3]), symgrad.Size([2, 3]))
    """
    tensors = _tensors("broadcast_tensors", tensors)
    try:
        shape = tuple(np.broadcast_shapes(*(t._value.shape for t in tensors)))
    except ValueError:
        for i in range(1, len(tensors)):
            message = _broadcast_error([tensors[0]._value, tensors[i]._value], quiet=True)
            if message:
                raise RuntimeError(message) from None
        raise RuntimeError(_broadcast_error([t._value for t in tensors])) from None
    return tuple(t if t._value.shape == shape else t.expand(shape) for t in tensors)


def _at_least(fn: str, tensors: Sequence[Any], ndim: int) -> Any:
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    out = []
    for t in _tensors(fn, tensors):
        shape = t._value.shape
        if len(shape) >= ndim:
            out.append(t)
        elif ndim == 3 and len(shape) == 2:
            out.append(t.unsqueeze(-1))
        elif ndim == 3 and len(shape) == 1:
            out.append(t.unsqueeze(0).unsqueeze(-1))
        elif len(shape) == 1:
            out.append(t.unsqueeze(0))
        else:
            out.append(t.reshape((1,) * ndim))
    return out[0] if single else tuple(out)


@torch_api(COMPOSITE, method=False, example=lambda x: atleast_1d(x[0, 0]))
def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dimension (a 0-d one as shape ``(1,)``); one tensor gives
    a tensor, several (or a sequence) a tuple.

    >>> symgrad.atleast_1d(symgrad.tensor(1.0))
    tensor([1.])
    """
    return _at_least("atleast_1d", tensors, 1)


@torch_api(COMPOSITE, method=False, example=lambda x: atleast_2d(x[0]))
def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dimensions (``(n,)`` becomes ``(1, n)``).

    >>> symgrad.atleast_2d(symgrad.tensor([1.0, 2.0])).shape
    symgrad.Size([1, 2])
    """
    return _at_least("atleast_2d", tensors, 2)


@torch_api(COMPOSITE, method=False, example=lambda x: atleast_3d(x))
def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dimensions (``(n,)`` becomes ``(1, n, 1)``, ``(m, n)``
    becomes ``(m, n, 1)``).

    >>> symgrad.atleast_3d(symgrad.ones(2, 3)).shape
    symgrad.Size([2, 3, 1])
    """
    return _at_least("atleast_3d", tensors, 3)


# ---------------------------------------------------------------- along a dimension
@torch_api(COMPOSITE, example=lambda x: x.diff())
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,  # noqa: A002
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``), after
    ``prepend`` and ``append`` are concatenated; for bool tensors, where neighbours differ.

    >>> symgrad.diff(symgrad.tensor([1.0, 4.0, 9.0, 16.0]))
    tensor([3., 5., 7.])
    >>> symgrad.diff(symgrad.tensor([1.0, 4.0, 9.0, 16.0]), n=2)
    tensor([2., 2.])
    """
    parser.tensor_arg("diff", "input", input)
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim(dim, input.dim())
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x._value.shape[d]
        if length == 0:
            break
        after, before = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = after.logical_xor(before) if x._value.dtype.kind == "b" else after - before
    return x


@torch_api(COMPOSITE, example=lambda x: x[:, :3].cross(x[:, :3].exp(), dim=1))
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along ``dim`` (with broadcasting); without ``dim``, the
    first dimension of size 3, with PyTorch's deprecation warning.

    >>> symgrad.cross(symgrad.tensor([1.0, 0.0, 0.0]), symgrad.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """
    return cross_product("cross", input, other, dim)


def cross_product(fn: str, input: Tensor, other: Tensor, dim: int | None) -> Tensor:  # noqa: A002
    """:func:`cross` as the spelling ``fn`` checks its arguments (``linalg.cross`` too)."""
    parser.tensor_arg(fn, "input", input)
    parser.tensor_arg(fn, "other", other, 2)
    if input._value.ndim != other._value.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype is dtypes.bool_:
        raise dtypes.not_implemented("cross", input.dtype)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._torch_name} but found "
                           f"{other.dtype._torch_name}")
    if dim is None:
        warn_at_user("Using symgrad.cross without specifying the dim arg is deprecated.\n"
                     "Please either pass the dim explicitly or simply use "
                     "symgrad.linalg.cross.\nThe default value of dim will change to agree "
                     "with that of linalg.cross in a future release.")
        if 3 not in input._value.shape:
            raise RuntimeError("no dimension of size 3 in input")
        d = dim = input._value.shape.index(3)
    else:
        d = _dim(dim, input.dim())
    if input._value.shape[d] != 3 or other._value.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input._value.shape[d]} and {other._value.shape[d]}")
    message = _broadcast_error([input._value, other._value], quiet=True)
    if message:
        raise RuntimeError(message)
    return apply_op(ops.linalg.cross, input, other, dim=d)


# ---------------------------------------------------------------- blocks and pieces
@torch_api(COMPOSITE, method=False, example=lambda x: block_diag(x, x[0]))
def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the tensors (0-d as 1x1, 1-D as one row), zeros elsewhere,
    in their promoted dtype.

    >>> symgrad.block_diag(symgrad.ones(2, 2), symgrad.tensor([3.0]))
    tensor([[1., 1., 0.],
            [1., 1., 0.],
            [0., 0., 3.]])
    """
    tensors = _tensors("block_diag", tensors)
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("symgrad.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return creation.zeros(0, 0)
    target = result_dtype(*tensors)  # (0-d ones weakly)
    width = sum(b._value.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        w = b._value.shape[1]
        rows.append(pad(b.to(target), (left, width - left - w)))
        left += w
    return cat(rows, 0)


@torch_api(COMPOSITE, example=lambda x: x.diagflat(1))
def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    """A square matrix with the flattened input on diagonal ``offset``.

    >>> symgrad.diagflat(symgrad.tensor([[1.0, 2.0]]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    parser.tensor_arg("diagflat", "input", input)
    return input.reshape(-1).diag_embed(offset)


def _split_along(fn: str, input: Tensor, sections: Any, dim: int,  # noqa: A002
                 need: int) -> tuple[Tensor, ...]:
    parser.tensor_arg(fn, "input", input)
    if input.dim() < need:
        raise RuntimeError(f"symgrad.{fn} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(sections, int):
        size = input._value.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"symgrad.{fn} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{sections}!")
    return tuple(input.tensor_split(sections, dim))


@torch_api(COMPOSITE, example=lambda x: x.hsplit(3)[0])
def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """Split columns (dim 1; dim 0 of a 1-D tensor) into equal sections or at indices.

    >>> [p.shape for p in symgrad.hsplit(symgrad.ones(2, 4), 2)]
    [symgrad.Size([2, 2]), symgrad.Size([2, 2])]
    """
    parser.tensor_arg("hsplit", "input", input)
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


@torch_api(COMPOSITE, example=lambda x: x.vsplit([1])[0])
def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """Split rows (dim 0) of a tensor of 2 or more dims into equal sections or at indices.

    >>> [p.shape for p in symgrad.vsplit(symgrad.ones(4, 2), [1, 3])]
    [symgrad.Size([1, 2]), symgrad.Size([2, 2]), symgrad.Size([1, 2])]
    """
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@torch_api(COMPOSITE, example=lambda x: x.unsqueeze(-1).dsplit(1)[0])
def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """Split depth (dim 2) of a tensor of 3 or more dims into equal sections or at indices.

    >>> [p.shape for p in symgrad.dsplit(symgrad.ones(1, 2, 4), 2)]
    [symgrad.Size([1, 2, 2]), symgrad.Size([1, 2, 2])]
    """
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


@torch_api(COMPOSITE, example=lambda x: x.split_with_sizes([1, 2], 1)[1])
def split_with_sizes(input: Tensor, split_sizes: Sequence[int],  # noqa: A002
                     dim: int = 0) -> tuple[Tensor, ...]:
    """Split ``dim`` into pieces of the given sizes, which must add up to its size.

    >>> [p.shape for p in symgrad.split_with_sizes(symgrad.ones(5, 2), [2, 3])]
    [symgrad.Size([2, 2]), symgrad.Size([3, 2])]
    """
    parser.tensor_arg("split_with_sizes", "input", input)
    d = _dim(dim, input.dim())
    size = input._value.shape[d]
    if sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                           f"(input tensor's size at dimension {dim}), but got "
                           f"split_sizes={list(split_sizes)}")
    return tuple(input.split(list(split_sizes), d))


@torch_api(COMPOSITE, example=lambda x: x.take(take_index()))
def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    """The elements of ``input`` read as a flat (row-major) tensor at ``index``, in index's
    shape.

    >>> symgrad.take(symgrad.tensor([[1, 2], [3, 4]]), symgrad.tensor([0, 3]))
    tensor([1, 4])
    """
    parser.tensor_arg("take", "input", input)
    parser.tensor_arg("take", "index", index, 2)
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{index.dtype._torch_name}")
    flat_positions(input, index)
    return input.reshape(-1)[index]


def take_index() -> Tensor:
    """The index the registry's example of :func:`take` uses."""
    return _make(np.array([[0, 5], [2, 2]]))


@torch_api(COMPOSITE, method=False,
           example=lambda x: combinations(x[0]).sum(1))
def combinations(input: Tensor, r: int = 2,  # noqa: A002
                 with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (like
    ``itertools.combinations``; ``with_replacement`` like ``combinations_with_replacement``).

    >>> symgrad.combinations(symgrad.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    parser.tensor_arg("combinations", "input", input)
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._value.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = np.array(list(pick(range(input._value.shape[0]), r)), dtype=np.int64)
    if r == 0:
        return input.new_empty((0,))
    if rows.size == 0:
        return input.new_empty((0, r))
    return stack([input[_make(np.ascontiguousarray(rows[:, j]))] for j in range(r)], 1)


# ---------------------------------------------------------------- reductions
@torch_api(NO_GRAPH)
def count_nonzero(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """The number of nonzero elements, over ``dim`` (all dims by default), as int64.

    >>> symgrad.count_nonzero(symgrad.tensor([[0, 1], [2, 0]]), dim=0)
    tensor([1, 1])
    """
    parser.tensor_arg("count_nonzero", "input", input)
    # (an empty list counts over all dims, as PyTorch's)
    axis = None if dim is None or not isinstance(dim, int) and not len(dim) else tuple(
        _dim(d, max(input.dim(), 1)) for d in ((dim,) if isinstance(dim, int) else dim))
    return _make(np.asarray(np.count_nonzero(input._value, axis=axis), dtype=np.int64))


_Aminmax = result_type("aminmax", ("min", "max"), """What :func:`aminmax` returns:
    ``(min, max)`` with names (PyTorch's ``torch.return_types.aminmax``).""", __name__)


@torch_api(COMPOSITE, example=lambda x: x.aminmax(dim=1).max)
def aminmax(input: Tensor, *, dim: int | None = None,  # noqa: A002
            keepdim: bool = False) -> Any:
    """The minimum and maximum (over ``dim``, or all elements), as ``(min, max)`` with names;
    the gradient of each is that of ``amin`` / ``amax`` (split evenly among ties).

    >>> symgrad.tensor([[1.0, 5.0], [3.0, 0.0]]).aminmax(dim=1)
    symgrad.return_types.aminmax(
    min=tensor([1., 0.]),
    max=tensor([5., 3.]))
    """
    parser.tensor_arg("aminmax", "input", input)
    dims: Any = () if dim is None else dim
    return _Aminmax(input.amin(dims, keepdim), input.amax(dims, keepdim))


@torch_api(COMPOSITE, example=lambda x: x.nansum(1))
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
           dtype: Any = None) -> Tensor:
    """The sum treating nan as 0 (its gradient there is 0).

    >>> symgrad.nansum(symgrad.tensor([1.0, float("nan"), 2.0]))
    tensor(3.)
    """
    parser.tensor_arg("nansum", "input", input)
    x = input.masked_fill(input.isnan(), 0) if input.is_floating_point() else input
    if dim is None:
        return x.sum(dtype=dtype) if not keepdim else x.sum(tuple(range(x.dim())), True,
                                                              dtype=dtype)
    return x.sum(dim, keepdim, dtype=dtype)


@torch_api(COMPOSITE, example=lambda x: x.nanmean(1))
def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
            dtype: Any = None) -> Tensor:
    """The mean of the elements that are not nan (nan where all are).

    >>> symgrad.nanmean(symgrad.tensor([1.0, float("nan"), 2.0]))
    tensor(1.5000)
    """
    parser.tensor_arg("nanmean", "input", input)
    if not input.is_floating_point():
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype._torch_name}")
    count = (~input.isnan()).sum(dim, keepdim) if dim is not None else (~input.isnan()).sum()
    return nansum(input, dim, keepdim, dtype=dtype) / count


@torch_api(COMPOSITE, example=lambda x: x.dist(x.exp(), 3))
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """The ``p``-norm of ``input - other`` (broadcast).

    >>> symgrad.dist(symgrad.tensor([0.0, 0.0]), symgrad.tensor([3.0, 4.0]))
    tensor(5.)
    """
    parser.tensor_arg("dist", "input", input)
    parser.tensor_arg("dist", "other", other, 2)
    check_ints(p)
    difference = input - other
    if not difference.is_floating_point():
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {difference.dtype._torch_name} instead.")
    return difference.norm(p)


@torch_api(COMPOSITE, method=False, example=lambda x: cdist(x, x.exp()))
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M), batch dims broadcast: shape (..., P, R). Its gradient at a zero distance is
    0, as PyTorch's.

    >>> symgrad.cdist(symgrad.tensor([[0.0, 0.0]]), symgrad.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """
    parser.tensor_arg("cdist", "x1", x1)
    parser.tensor_arg("cdist", "x2", x2, 2)
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._value.shape[-1] != x2._value.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: "
                           f"{x1._value.shape[-1]} X2: {x2._value.shape[-1]}")
    for x, name in ((x1, "X1"), (x2, "X2")):
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{x.dtype._torch_name}")
    if dtypes.float16 in (x1.dtype, x2.dtype):
        raise dtypes.not_implemented("cdist", dtypes.float16)
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype._torch_name} but found "
                           f"{x2.dtype._torch_name}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, -1)


def _trapezoid_parts(fn: str, y: Tensor, x: Tensor | None, dx: float | None,
                     dim: int) -> tuple[int, Tensor, Tensor | None]:
    """The checked dim of ``y``, the sums of its neighbours ``y[i] + y[i + 1]`` along it, and
    the spacing of ``x`` shaped to multiply them (None for a constant ``dx``)."""
    parser.tensor_arg(fn, "y", y)
    if y.dtype is dtypes.bool_:
        raise RuntimeError(f"{fn.removeprefix('symgrad.')}: received a bool input for `y`, but "
                           "bool is not supported")
    d = _dim(dim, y.dim())
    n = y._value.shape[d]
    pairs = y.narrow(d, 0, max(n - 1, 0)) + y.narrow(d, min(1, n), max(n - 1, 0))
    if x is None:
        return d, pairs, None
    if dx is not None:
        raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                        "(Tensor, Tensor, dx=float), but expected one of:\n"
                        " * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)")
    spacing = diff(x, dim=-1 if x.dim() == 1 else d)
    if x.dim() == 1:
        spacing = spacing.reshape([-1 if i == d else 1 for i in range(y.dim())])
    return d, pairs, spacing


@torch_api(COMPOSITE, method=False, aliases=("trapz",), example=lambda x: trapezoid(x))
def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
              dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: spacing ``dx`` (default 1) or the sample points
    ``x``, computed as PyTorch does (``dx * (sum(y) - (y[0] + y[-1]) / 2)`` for a constant
    spacing). Alias ``trapz``.

    >>> symgrad.trapezoid(symgrad.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    >>> symgrad.trapezoid(symgrad.tensor([1.0, 2.0, 3.0]), symgrad.tensor([0.0, 1.0, 3.0]))
    tensor(6.5000)
    """
    d, pairs, spacing = _trapezoid_parts("trapezoid", y, x, dx, dim)
    n = y._value.shape[d]
    if n == 0:
        return y.sum(d) * 0
    if spacing is None:
        ends = y.select(d, 0) + y.select(d, n - 1)
        return named_node((y.sum(d) - ends * 0.5) * (1.0 if dx is None else dx), "MulBackward1")
    return named_node((pairs * spacing).sum(d) / 2.0, "DivBackward1")


@torch_api(COMPOSITE, method=False, example=lambda x: cumulative_trapezoid(x))
def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """The running trapezoidal rule along ``dim`` (one element fewer than ``y`` there):
    spacing ``dx`` (default 1) or the sample points ``x``.

    >>> symgrad.cumulative_trapezoid(symgrad.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    d, pairs, spacing = _trapezoid_parts("cumulative_trapezoid", y, x, dx, dim)
    if spacing is None:
        return named_node(pairs * ((1.0 if dx is None else dx) / 2.0), "MulBackward1").cumsum(d)
    return named_node((pairs * spacing).cumsum(d) / 2.0, "DivBackward1")


def _variables(fn: str, input: Tensor) -> None:  # noqa: A002
    """PyTorch's checks of cov's and corrcoef's input: a tensor of variables by observations."""
    parser.tensor_arg(fn, "input", input)
    if input.dim() > 2:
        raise RuntimeError(f"{fn}(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")


@torch_api(COMPOSITE, example=lambda x: x.cov())
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,  # noqa: A002
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns; a 1-D input is one variable), with frequency and observation weights, as NumPy's
    ``cov``.

    >>> symgrad.cov(symgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    _variables("cov", input)
    if input.dtype is dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    data = input.view(1, -1) if input.dim() < 2 else input
    observations = data._value.shape[1]
    weights = None
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        parser.tensor_arg("cov", name, w)
        if w.dim() > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                               f"{name} with {w.dim()} dimensions")
        kind = w._value.dtype.kind
        if (name == "fweights") != (kind in "iu"):
            raise RuntimeError(f"cov(): expected {name} to have "
                               f"{'integral' if name == 'fweights' else 'floating point'} dtype "
                               f"but got {name} with {w.dtype._torch_name} dtype")
        if w._value.size != observations:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                               f"observations in the input but got {w._value.size} != "
                               f"{observations}")
        if observations and w._value.min() < 0:
            raise RuntimeError(f"cov(): {name} cannot be negative")
        weights = w if weights is None else weights * w
    if weights is None:
        average = data.mean(1) if data.dtype.is_floating_point else data.sum(1) / observations
        factor: Any = observations - correction
    else:
        total = weights.sum()
        if total.item() == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        average = (data * weights).sum(1) / total
        if correction == 0:
            factor = total
        elif aweights is None:
            factor = total - correction
        elif fweights is None and observations == 1 and correction == 1:
            factor = 0
        else:
            factor = total - correction * (weights * aweights).sum() / total
    if float(factor) <= 0:
        warn_at_user("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                     "than the number of observations.")
        factor = 0 if weights is None else factor * 0
    if observations == 1 and (fweights is None) != (aweights is None):
        centered = data * 0.0  # (one observation, one set of weights: the mean is the value)
    else:
        centered = data - average.unsqueeze(1)
    product = centered.mm((centered if weights is None else centered * weights).t())
    return product.true_divide(factor).squeeze()


@torch_api(COMPOSITE, example=lambda x: x.corrcoef())
def corrcoef(input: Tensor) -> Tensor:  # noqa: A002
    """Pearson's correlation coefficients of the variables in the rows of ``input`` (observations
    in the columns), clipped to [-1, 1], as NumPy's ``corrcoef``.

    >>> symgrad.corrcoef(symgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
    tensor([[ 1.0000, -0.9820],
            [-0.9820,  1.0000]])
    """
    _variables("corrcoef", input)
    c = cov(input)
    if c.dim() == 0:
        return c / c  # (nan where the variance is 0, nan or inf; else 1)
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


@torch_api(COMPOSITE, example=lambda x: x.renorm(2, 0, 1.0))
def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:  # noqa: A002
    """Each sub-tensor ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` scaled
    to the norm ``maxnorm`` (times ``1 / (1 + 1e-7 / norm)``, PyTorch's guard); the others
    as they are.

    >>> symgrad.tensor([[3.0, 4.0], [0.3, 0.4]]).renorm(2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    parser.tensor_arg("renorm", "input", input)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")
    d = _dim(dim, input.dim())
    others = [i for i in range(input.dim()) if i != d]
    norms = input.norm(p, dim=others, keepdim=True)
    factor = (maxnorm / (norms + 1e-7)).where(norms > maxnorm, 1.0)
    return input * factor


@torch_api(COMPOSITE, function=False, inplace=True, example=lambda x: x.renorm_(2, 0, 1.0))
def renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """In-place :func:`renorm` (its result copied into this tensor).

    >>> symgrad.ones(2, 3).renorm_(2, 0, 1.0)
    tensor([[0.5774, 0.5774, 0.5774],
            [0.5774, 0.5774, 0.5774]])
    """
    return self.copy_(renorm(self, p, dim, maxnorm))


@torch_api(COMPOSITE, example=lambda x: x.ldexp(x.detach().round()))
def ldexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``input * 2 ** other``, in a floating dtype.

    >>> symgrad.ldexp(symgrad.tensor([1.0, 3.0]), symgrad.tensor([2, -1]))
    tensor([4.0000, 1.5000])
    """
    parser.tensor_arg("ldexp", "input", input)
    parser.tensor_arg("ldexp", "other", other, 2)
    return input * (2.0 ** other)  # (a float16 other gives float16, an integer one float32)


# ---------------------------------------------------------------- matrices and scatters
@torch_api(COMPOSITE, example=lambda x: x[:, :2].matrix_power(3))
def matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    """The ``n``-th power of each square matrix in the last two dims: the identity for 0, by
    repeated squaring above, of the inverse below 0 (the products in PyTorch's order).

    >>> symgrad.matrix_power(symgrad.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    return _matrix_power("linalg.matrix_power", input, n)


def _matrix_power(fn: str, a: Tensor, n: int) -> Tensor:
    parser.tensor_arg("matrix_power", "input", a)
    if not isinstance(n, int | np.integer) or isinstance(n, bool):
        running = parser.spelling_running(2)
        raise parser.wrong_type("matrix_power", "n", "int", n,
                                1 if running is not None and running[1] else 2)
    if a.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    rows, cols = a._value.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {rows} by "
                           f"{cols} matrices")
    if n == 0:  # (the identity written into a copy: CopyBackwards, a zero gradient for a)
        return a.clone().copy_(creation.eye(rows, dtype=a.dtype).expand(a.shape))
    if n < 0:
        a, n = a.inverse(), -n
    if n == 1:
        return a.clone()
    if n <= 3:
        square = a @ a
        return square if n == 2 else square @ a
    power = result = None
    while n:  # (binary powering: a, a^2, a^4 ... multiplied in as the bits of n say)
        power = a if power is None else power @ power
        if n & 1:
            result = power if result is None else result @ power
        n >>= 1
    return result


@torch_api(COMPOSITE, method=False, example=lambda x: vander(x[0]))
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of the 1-D ``x``: its powers ``N - 1`` down to 0 as columns (0 up
    to ``N - 1`` with ``increasing``; ``N`` defaults to ``len(x)``), made by running products
    as PyTorch's (a bool ``x`` counts as int64).

    >>> symgrad.vander(symgrad.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 1., 1.],
            [4., 2., 1.],
            [9., 3., 1.]])
    """
    parser.tensor_arg("vander", "x", x)
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._value.shape[0] if N is None else N
    check_ints(n)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x.dtype is dtypes.bool_:
        x = x.to(dtypes.int64)
    ones = creation.ones_like(x).unsqueeze(1)
    if n == 0:
        return ones[:, :0]
    result = ones if n == 1 else cat([ones, x.unsqueeze(1).expand(-1, n - 1).cumprod(1)], 1)
    return result if increasing else result.flip(1)


@torch_api(COMPOSITE, function=False, attribute=True, example=lambda x: x.mH)
def mH(self: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    """The last two dims swapped (the conjugate transpose of real matrices).

    >>> symgrad.tensor([[1.0, 2.0]]).mH
    tensor([[1.],
            [2.]])
    """
    if self.dim() < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)


@torch_api(COMPOSITE, function=False, attribute=True, example=lambda x: x.H)
def H(self: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    """The conjugate transpose of a real matrix (2-D only): its transpose.

    >>> symgrad.tensor([[1.0, 2.0]]).H.shape
    symgrad.Size([2, 1])
    """
    if self.dim() != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.")
    return self.transpose(0, 1)


@torch_api(COMPOSITE, example=lambda x: x.adjoint())
def adjoint(input: Tensor) -> Tensor:  # noqa: A002
    """A view with the last two dims swapped (for real matrices, the conjugate transpose).

    >>> symgrad.ones(2, 3).adjoint().shape
    symgrad.Size([3, 2])
    """
    if input.dim() < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.dim()}-D tensor.")
    return input.transpose(-2, -1)


def _mvlgamma_order(input: Any, p: Any, fn: str) -> int:  # noqa: A002
    parser.tensor_arg(fn, "input", input)
    check_ints(p)
    if isinstance(p, bool | float):
        running = parser.spelling_running(1)
        method = running is not None and running[1]
        raise parser.wrong_type(fn, "p", "int", p, 1 if method else 2)
    if input.dtype is dtypes.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return int(p)


@torch_api("mvlgamma", example=lambda x: x.exp().add(1).mvlgamma(2))
def mvlgamma(input: Tensor, p: int) -> Tensor:  # noqa: A002
    """The multivariate log-gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum(lgamma(x - i / 2) for i < p)`` (``MvlgammaBackward0``).

    >>> symgrad.mvlgamma(symgrad.tensor([2.0, 3.0]), 2)
    tensor([0.4516, 1.5502])
    """
    return apply_op(ops.elementwise.mvlgamma, input, p=_mvlgamma_order(input, p, "mvlgamma"))


@torch_api("mvlgamma", function=False, inplace=True,
           example=lambda x: x.add_(1).mvlgamma_(2))
def mvlgamma_(input: Tensor, p: int) -> Tensor:  # noqa: A002
    """In-place :func:`mvlgamma`."""
    return apply_inplace(ops.elementwise.mvlgamma, input,
                         p=_mvlgamma_order(input, p, "mvlgamma_"))


@torch_api(COMPOSITE, inplace=True, example=lambda x: x.ldexp_(x.detach().round()))
def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`ldexp`.

    >>> symgrad.ones(2).ldexp_(symgrad.tensor([1, 2]))
    tensor([2., 4.])
    """
    if not self.is_floating_point():
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{self.dtype._torch_name}")
    return self.copy_(ldexp(self, other))


def _scatter_into(fn: str, input: Tensor, src: Tensor, view: Any) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``src`` written into the part ``view(copy)`` selects."""
    parser.tensor_arg(fn, "input", input)
    parser.tensor_arg(fn, "src", src, 2)
    out = input.clone()
    part = view(out)
    if part._value.shape != src._value.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(part.shape)}")
    part.copy_(src)
    return out


@torch_api(COMPOSITE, example=lambda x: x[:, :2].diagonal_scatter(x[0, :2]))
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,  # noqa: A002
                     dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written on the diagonal ``input.diagonal(offset, dim1,
    dim2)``.

    >>> symgrad.diagonal_scatter(symgrad.zeros(2, 2), symgrad.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _scatter_into("diagonal_scatter", input, src,
                         lambda out: out.diagonal(offset, dim1, dim2))


@torch_api(COMPOSITE, example=lambda x: x.select_scatter(x[0].exp(), 0, 1))
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``.

    >>> symgrad.select_scatter(symgrad.zeros(2, 2), symgrad.ones(2), 0, 1)
    tensor([[0., 0.],
            [1., 1.]])
    """
    return _scatter_into("select_scatter", input, src, lambda out: out.select(dim, index))


@torch_api(COMPOSITE, example=lambda x: x.slice_scatter(x[:, :1].exp(), 1, 1, 2))
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,  # noqa: A002
                  end: int | None = None, step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written at the slice ``start:end:step`` of ``dim``.

    >>> symgrad.slice_scatter(symgrad.zeros(4), symgrad.ones(2), start=1, step=2)
    tensor([0., 1., 0., 1.])
    """
    def part(out: Tensor) -> Tensor:
        d = _dim(dim, out.dim())
        return out[(slice(None),) * d + (slice(start, end, step),)]
    return _scatter_into("slice_scatter", input, src, part)


@torch_api("hardshrink", example=lambda x: x.hardshrink(0.7))
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``input`` where ``|input| > lambd``, else 0 (nan stays nan) (``HardshrinkBackward0``).

    >>> symgrad.tensor([-1.0, 0.25, 2.0]).hardshrink()
    tensor([-1.,  0.,  2.])
    """
    parser.tensor_arg("hardshrink", "input", input)
    if not input.is_floating_point():
        raise dtypes.not_implemented("hardshrink_cpu", input.dtype)
    check_ints(lambd)
    return apply_op(ops.elementwise.hardshrink, input, lambd=float(lambd))


# ---------------------------------------------------------------- factories and membership
@torch_api(NO_GRAPH, method=False)
def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """``steps`` values ``base ** v`` for ``v`` evenly spaced from ``start`` to ``end``.

    >>> symgrad.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    check_ints(base)
    exponents = creation.linspace(start, end, steps, dtype=dtypes.float64)
    target = parser.dtype_arg("logspace", dtype) or dtypes.get_default_dtype()
    values = np.power(float(base), exponents._value)
    if target._category == 1:
        values = np.round(values)
    return creation.tensor(values, dtype=target, device=device, requires_grad=requires_grad)


@torch_api(NO_GRAPH, method=False)
def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """A 0-d tensor of the number ``s``, in the default float dtype unless ``dtype`` is given.

    >>> symgrad.scalar_tensor(2), symgrad.scalar_tensor(True)
    (tensor(2.), tensor(1.))
    """
    target = parser.dtype_arg("scalar_tensor", dtype) or dtypes.get_default_dtype()
    check_ints(s)
    if isinstance(s, Tensor):
        s = s.item()
    if not isinstance(s, bool | int | float | np.generic):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    return creation.tensor(s if target._category else bool(s), dtype=target, device=device,
                           requires_grad=requires_grad)


def _indices(fn: str, row: int, col: int, offset: int, dtype: Any, lower: bool) -> Tensor:
    target = parser.dtype_arg(fn, dtype) or dtypes.int64
    if target._category != 1:
        raise RuntimeError("\"" + fn + "\" not implemented for '" + target._torch_name + "'")
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else
                           f"col must be non-negative, got{col}")
    make = np.tril_indices if lower else np.triu_indices
    rows, cols = make(row, offset, col)
    return _make(np.stack([rows, cols]).astype(target.np_dtype).reshape(2, -1))


@torch_api(NO_GRAPH, method=False)
def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """The coordinates, in a tensor of ``shape``, of the flat (row-major) ``indices``: one
    int64 tensor per dimension, each of ``indices``' shape. As PyTorch, an index beyond the
    number of elements wraps around, and a negative one counts from the end.

    >>> symgrad.unravel_index(symgrad.tensor([4, 1, -1]), (2, 3))
    (tensor([1, 0, 1]), tensor([1, 1, 2]))
    """
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices._value.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int | np.integer):
        sizes = (int(shape),)
    elif isinstance(shape, Sequence):
        for size in shape:
            if not isinstance(size, int | np.integer):
                raise TypeError("expected 'shape' sequence to only contain ints, but got "
                                f"{type(size)}")
        sizes = tuple(int(size) for size in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(size < 0 for size in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {sizes}")
    if 0 in sizes:  # (PyTorch divides by the sizes)
        raise RuntimeError("ZeroDivisionError")
    flat = indices._value.astype(np.int64)
    coordinates = []
    for size in reversed(sizes):
        coordinates.append(np.mod(flat, size))
        flat = np.floor_divide(flat, size)
    return tuple(_make(c) for c in reversed(coordinates))


@torch_api(NO_GRAPH, method=False)
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None, **kwargs: Any) -> Tensor:
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix (with
    diagonal ``offset``), as a 2 x N tensor in row-major order.

    >>> symgrad.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    return _indices("tril_indices", row, col, offset, dtype, True)


@torch_api(NO_GRAPH, method=False)
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None, **kwargs: Any) -> Tensor:
    """The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix.

    >>> symgrad.triu_indices(3, 4, 1)
    tensor([[0, 0, 0, 1, 1, 2],
            [1, 2, 3, 2, 3, 3]])
    """
    return _indices("triu_indices", row, col, offset, dtype, False)


@torch_api(NO_GRAPH, method=False)
def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each of ``elements`` is in ``test_elements`` (either may be a number), as
    bool in ``elements``' shape.

    >>> symgrad.isin(symgrad.tensor([1, 2, 3]), symgrad.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    check_ints(elements, test_elements)
    a = elements._value if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._value if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    if a.dtype.kind == "b" or b.dtype.kind == "b":
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    return _make(np.asarray(np.isin(a, b, invert=invert)))



# ---------------------------------------------------------------- unique, quantile
def _unique_result(values: np.ndarray, inverse: np.ndarray, counts: np.ndarray, shape: tuple,
                   return_inverse: bool, return_counts: bool) -> Any:
    out = [_make(values)]
    if return_inverse:
        out.append(_make(inverse.reshape(shape).astype(np.int64)))
    if return_counts:
        out.append(_make(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@torch_api(NO_GRAPH)
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct elements (or slices along ``dim``), sorted; with ``return_inverse`` where
    each element went, with ``return_counts`` how often each occurs. nan are all distinct, as
    in PyTorch. Not recorded (PyTorch's node has no derivative).

    >>> symgrad.unique(symgrad.tensor([3, 1, 2, 3, 1]), return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 1, 2]))
    """
    parser.tensor_arg("unique", "input", input)
    value = input._value
    if dim is None:
        values, inverse, counts = np.unique(value.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        return _unique_result(values, inverse, counts, value.shape, return_inverse,
                              return_counts)
    d = _dim(dim, value.ndim)
    values, inverse, counts = np.unique(value, return_inverse=True, return_counts=True,
                                        axis=d)
    return _unique_result(values, inverse, counts, (-1,), return_inverse, return_counts)


@torch_api(NO_GRAPH)
def unique_consecutive(input: Tensor, return_inverse: bool = False,  # noqa: A002
                       return_counts: bool = False, dim: int | None = None) -> Any:
    """One element (or slice along ``dim``) of each run of equal consecutive ones; with
    ``return_inverse`` the run each went to, with ``return_counts`` the runs' lengths.

    >>> symgrad.unique_consecutive(symgrad.tensor([1, 1, 2, 2, 3, 1, 1]))
    tensor([1, 2, 3, 1])
    """
    parser.tensor_arg("unique_consecutive", "input", input)
    value = input._value
    d = 0 if dim is None else _dim(dim, value.ndim)
    flat = value.reshape(-1) if dim is None else np.moveaxis(value, d, 0)
    n = flat.shape[0]
    if n == 0:
        return _unique_result(flat, np.zeros(value.shape, np.int64), np.zeros(0), value.shape,
                              return_inverse, return_counts)
    changed = np.ones(n, dtype=bool)
    changed[1:] = (flat[1:] != flat[:-1]).reshape(n - 1, -1).any(axis=1)
    starts = np.flatnonzero(changed)
    values = flat[starts] if dim is None else np.moveaxis(flat[starts], 0, d)
    inverse = np.cumsum(changed) - 1
    counts = np.diff(np.append(starts, n))
    return _unique_result(np.ascontiguousarray(values), inverse,
                          counts, value.shape if dim is None else (-1,), return_inverse,
                          return_counts)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(fn: str, input: Tensor, q: Any, dim: int | None, keepdim: bool,  # noqa: A002
              interpolation: str, ignore_nan: bool) -> Tensor:
    parser.tensor_arg(fn, "input", input)
    if input.dtype not in (dtypes.float32, dtypes.float64):  # (nanquantile too says quantile)
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    qs = np.asarray(q._value if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1:
        raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
    if ((qs < 0) | (qs > 1)).any():
        bad = qs[(qs < 0) | (qs > 1)].flat[0]
        raise RuntimeError(f"{fn}() q must be in the range [0, 1] but got {bad:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _dim(dim, input.dim())
    ordered = x.sort(d).values.movedim(d, -1)  # nan last
    n = ordered._value.shape[-1]
    nan = np.isnan(ordered._value)
    valid = (n - nan.sum(-1, keepdims=True)) if ignore_nan else np.full(nan.shape[:-1] + (1,), n)
    pos = qs.reshape(-1) * (np.maximum(valid, 1) - 1)  # (..., Q)
    low, high = np.floor(pos), np.ceil(pos)
    if interpolation == "lower":
        high = low
    elif interpolation == "higher":
        low = high
    elif interpolation == "nearest":
        low = high = np.round(pos)
    frac = np.where(low == high, 0.0, 0.5 if interpolation == "midpoint" else pos - low)
    below = ordered.gather(-1, _make(low.astype(np.int64)))
    above = ordered.gather(-1, _make(high.astype(np.int64)))
    out = below.lerp(above, _make(frac.astype(input._value.dtype)))
    empty = (valid == 0) if ignore_nan else nan.any(-1, keepdims=True)
    if empty.any():
        out = out.masked_fill(_make(np.broadcast_to(empty, out._value.shape).copy()), np.nan)
    out = out.movedim(-1, 0)  # (Q, ...)
    if keepdim:
        out = out.unsqueeze(d + 1) if dim is not None else out.reshape(
            (out._value.shape[0],) + (1,) * input.dim())
    return out.squeeze(0) if qs.ndim == 0 else out


@torch_api(COMPOSITE, example=lambda x: x.quantile(0.3, dim=1))
def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False,  # noqa: A002
             *, interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles (a number or a 1-D tensor, the quantiles' dimension first) of
    ``input`` along ``dim`` (all elements by default), between the two nearest sorted values
    as ``interpolation`` says; nan where the slice holds nan. Its gradient goes to those two
    values (``LerpBackward1``, as PyTorch's).

    >>> symgrad.quantile(symgrad.tensor([[1.0, 2.0, 3.0, 4.0]]), 0.3, dim=1)
    tensor([1.9000])
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@torch_api(COMPOSITE, example=lambda x: x.nanquantile(0.3, dim=1))
def nanquantile(input: Tensor, q: Any, dim: int | None = None,  # noqa: A002
                keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """:func:`quantile` ignoring nan (nan only where a slice holds nothing else).

    >>> symgrad.nanquantile(symgrad.tensor([1.0, float("nan"), 3.0]), 0.5)
    tensor(2.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)
