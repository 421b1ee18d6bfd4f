"""PyTorch spellings of sorting and order statistics (see symgrad.methods): ``sort``,
``argsort``, ``msort``, ``topk``, ``kthvalue``, ``median`` and ``nanmedian``, ``mode``,
``cummax``/``cummin``, ``logcumsumexp``, and the binning functions ``searchsorted``,
``bucketize``, ``histc`` and ``bincount``.

The indices are found here, numerically, with PyTorch's choice among ties: nan sorts as the
largest value; ``sort(stable=True)`` keeps equal elements in order, and otherwise, like
``topk`` and ``mode``, runs the same C++ library algorithms as PyTorch's CPU kernels (reproduced
below); ``median`` takes the lower median and among equal values the one a stable sort puts
there, ``kthvalue`` runs PyTorch's quickselect, ``cummax``/``cummin`` move to a later equal
element. The values are recorded as a gather (``SortBackward0`` ...) whose gradient goes to
those indices (symgrad.ops.reduction).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation, ops, parser
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.ops.reduction import _take_along_key
from symgrad.tensor import Tensor, _dim, _make
from symgrad.torch_api.arguments import check_ints
from symgrad.torch_api.declaration import NO_GRAPH, torch_api
from symgrad.torch_api.reductions import _records, _return_type, result_type, return_types

_red = ops.reduction

for _name in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin"):
    _type = _return_type(_name)
    _type.__doc__ = f"""What ``{_name}`` returns along a dim: a tuple ``(values, indices)``
    with names (PyTorch's ``torch.return_types.{_name}``).

    >>> values, indices = symgrad.tensor([[1.0, 3.0], [2.0, 0.0]]).cummax(dim=1)
    >>> indices
    tensor([[0, 1],
            [0, 0]])
    """
    setattr(return_types, _name, _type)

# (histogram's, here too: symgrad.return_types is this namespace, complete on first access)
return_types.histogram = result_type("histogram", ("hist", "bin_edges"), """What
    ``histogram`` returns: a tuple ``(hist, bin_edges)`` with names (PyTorch's
    ``torch.return_types.histogram``).

    >>> symgrad.histogram(symgrad.tensor([1.0, 2.0, 2.0]), 2).hist
    tensor([1., 2.])
    """)
return_types.histogramdd = result_type("histogramdd", ("hist", "bin_edges"), """What
    ``histogramdd`` returns: a tuple ``(hist, bin_edges)``, the edges a tuple with one tensor
    per dimension (PyTorch's ``torch.return_types.histogramdd``).

    >>> symgrad.histogramdd(symgrad.tensor([[0.0, 1.0]]), [1, 1]).hist
    tensor([[1.]])
    """)


def _check_tensor(input: Any, fn: str) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def _stable_order(value: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Positions of a stable sort along ``axis`` (nan largest: last ascending, first
    descending; equal elements keep their order either way)."""
    if not descending:
        return np.argsort(value, axis=axis, kind="stable")
    n = value.shape[axis]
    backwards = np.flip(np.argsort(np.flip(value, axis), axis=axis, kind="stable"), axis)
    return n - 1 - backwards


def _gather(op: ops.Op, input: Tensor, dim: int, positions: np.ndarray,  # noqa: A002
            keepdim: bool = True) -> Tensor:
    """The elements of ``input`` at ``positions`` along ``dim`` (one node: ``op``); without
    ``keepdim`` the (size-1) ``dim`` of ``positions`` is dropped from the result."""
    if input._value.ndim == 0:
        return apply_op(op, input, key=())
    key = _take_along_key(input._value.shape, dim, positions)
    if not keepdim:
        key = tuple(np.squeeze(part, axis=dim) for part in key)
    return apply_op(op, input, key=key)


def _pair(name: str, values: Tensor, positions: np.ndarray) -> Any:
    return getattr(return_types, name)(values, _make(np.asarray(positions, dtype=np.int64)))


def _sorted(input: Tensor, dim: int, descending: bool,  # noqa: A002
            stable: bool | None) -> tuple[int, np.ndarray]:
    value = input._value
    d = _dim(dim, value.ndim)
    if value.ndim == 0:
        return d, np.zeros((), dtype=np.int64)
    stable_order = _stable_order(value, d, bool(descending))
    if stable or value.shape[d] <= 16:  # PyTorch's unstable sort is stable up to 16
        return d, stable_order
    # without equal values (or nans) every sort gives the same order: emulate PyTorch's
    # unstable sort only on the rows that have some
    moved = np.moveaxis(value, d, -1)
    order = np.moveaxis(stable_order, d, -1).copy()
    comp = _sort_comparison(bool(descending))
    ties = _has_ties(moved)
    for idx in np.ndindex(*ties.shape):
        if not ties[idx]:
            continue
        pairs = _pairs(moved[idx])
        _std_sort(pairs, 0, len(pairs), comp)
        order[idx] = [i for _, i in pairs]
    return d, np.moveaxis(order, -1, d)


def _has_ties(rows: np.ndarray) -> np.ndarray:
    """For each row (last dim) of ``rows``: whether two elements are equal or one is nan."""
    ordered = np.sort(rows, axis=-1)
    equal = (ordered[..., 1:] == ordered[..., :-1]).any(-1)
    return equal | (np.isnan(rows).any(-1) if rows.dtype.kind == "f" else False)


_UNSET: Any = object()  # stable= not given


def _sort_args(fn: str, args: tuple, dim: Any, descending: Any, stable: Any) -> tuple:
    """``(dim, descending, stable)`` from PyTorch's two signatures: ``(dim=-1,
    descending=False)`` positional or not, or ``(*, stable, dim=-1, descending=False)``, all
    keywords once ``stable`` is given."""
    if args and stable is not _UNSET:
        kwargs = {"stable": stable}
        kwargs.update({k: v for k, v in (("dim", dim), ("descending", descending))
                       if v is not _UNSET})
        raise parser.invalid_combination(fn, args, kwargs)
    if len(args) > 2:
        raise TypeError(f"{fn}() takes from 0 to 2 positional arguments but {len(args)} were "
                        "given")
    for name, given in zip(("dim", "descending")[:len(args)], (dim, descending), strict=False):
        if given is not _UNSET:
            raise TypeError(f"{fn}() got multiple values for argument '{name}'")
    if args:
        dim = args[0]
    if len(args) > 1:
        descending = args[1]
    return (-1 if dim is _UNSET else dim, False if descending is _UNSET else descending,
            stable)


@torch_api("sort", example=lambda x: x.sort(1).values)
def sort(input: Tensor, *args: Any, stable: bool | None = _UNSET, dim: int = _UNSET,  # noqa: A002
         descending: bool = _UNSET) -> Any:
    """The named tuple ``(values, indices)`` of ``input`` sorted along ``dim``, nan as the
    largest value. With ``stable=True`` equal elements keep their order; otherwise their order
    is PyTorch's (its CPU sort, reproduced: stable up to 16 elements). The gradient goes back to
    where each value came from (``SortBackward0``; ``SortBackward1`` when ``stable`` is given,
    which makes ``dim`` and ``descending`` keyword-only, as in PyTorch).

    >>> symgrad.tensor([3.0, 1.0, 2.0, 1.0]).sort()
    symgrad.return_types.sort(
    values=tensor([1., 1., 2., 3.]),
    indices=tensor([1, 3, 2, 0]))
    """
    _check_tensor(input, "sort")
    dim, descending, stable = _sort_args("sort", args, dim, descending, stable)
    d, order = _sorted(input, dim, descending, None if stable is _UNSET else stable)
    op = _red.sort if stable is _UNSET else _red.sort_stable
    return _pair("sort", _gather(op, input, d, order), order)


@torch_api(NO_GRAPH, example=lambda x: x.argsort(1))
def argsort(input: Tensor, *args: Any, stable: bool = _UNSET, dim: int = _UNSET,  # noqa: A002
            descending: bool = _UNSET) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (those of :func:`sort`).

    >>> symgrad.argsort(symgrad.tensor([3.0, 1.0, 2.0, 1.0]), descending=True)
    tensor([0, 2, 1, 3])
    """
    _check_tensor(input, "argsort")
    dim, descending, stable = _sort_args("argsort", args, dim, descending, stable)
    order = _sorted(input, dim, descending, None if stable is _UNSET else stable)[1]
    return _make(np.asarray(order, dtype=np.int64))


@torch_api("sort", example=lambda x: x.msort())
def msort(input: Tensor) -> Tensor:  # noqa: A002
    """``input`` sorted along its first dim (``sort(input, dim=0).values``).

    >>> symgrad.msort(symgrad.tensor([[2.0, 1.0], [1.0, 3.0]]))
    tensor([[1., 1.],
            [2., 3.]])
    """
    return sort(input, 0).values


@torch_api("topk", example=lambda x: x.topk(2).values)
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True,  # noqa: A002
         sorted: bool = True) -> Any:  # noqa: A002
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim`` and their
    indices, largest first (``TopkBackward0``: the gradient goes to those indices). nan counts
    as the largest value. Among equal values the indices are PyTorch's: its selection
    algorithm (the C++ library's nth_element and sort) is reproduced.

    >>> symgrad.tensor([1.0, 5.0, 3.0, 4.0]).topk(2)
    symgrad.return_types.topk(
    values=tensor([5., 4.]),
    indices=tensor([1, 3]))
    """
    _check_tensor(input, "topk")
    if input.dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    value = input._value
    d = _dim(dim, value.ndim)
    size = value.shape[d] if value.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if value.ndim == 0:
        return _pair("topk", _gather(_red.topk, input, d, None), np.zeros((), np.int64))
    moved = np.moveaxis(value, d, -1)
    order = np.zeros((*moved.shape[:-1], k), dtype=np.int64)
    for idx in np.ndindex(*moved.shape[:-1]):
        order[idx] = _topk_positions(moved[idx], k, bool(largest), bool(sorted))
    order = np.moveaxis(order, -1, d)
    return _pair("topk", _gather(_red.topk, input, d, order), order)


def _greater_or_nan(x: float, y: float) -> bool:
    return (x != x and y == y) or x > y


def _quickselect(row: np.ndarray, k: int) -> int:
    """The position in ``row`` of its ``k``-th smallest element (0-based) as PyTorch's CPU
    kthvalue finds it (its quick_select_template: median-of-three pivot, Hoare partition), so
    that the index among equal values is PyTorch's."""
    values = list(row.tolist())
    index = list(range(len(values)))

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        index[i], index[j] = index[j], index[i]

    gt = _greater_or_nan
    left, right = 0, len(values) - 1
    while True:
        if right <= left:
            return index[k]
        if right == left + 1:
            if gt(values[left], values[right]):
                swap(left, right)
            return index[k]
        p = left + (right - left) // 2
        swap(p, left + 1)
        if gt(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt(values[left], values[right]):
            swap(left, right)
        if gt(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j = left + 1, right
        pivot = values[left]
        while True:
            i += 1
            while gt(pivot, values[i]):
                i += 1
            j -= 1
            while gt(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def _rowwise(value: np.ndarray, d: int, pick: Any) -> np.ndarray:
    """``pick(row)`` (a position) for every 1-d slice along ``d``, in the keepdim shape."""
    moved = np.moveaxis(value, d, -1)
    out = np.zeros(moved.shape[:-1], dtype=np.int64)
    for idx in np.ndindex(*moved.shape[:-1]):
        out[idx] = pick(moved[idx])
    return np.expand_dims(out, d)


def _reduced(name: str, op: ops.Op, input: Tensor, d: int, positions: np.ndarray,  # noqa: A002
             keepdim: bool) -> Any:
    if input._value.ndim == 0:
        return _pair(name, _gather(op, input, d, None), np.zeros((), np.int64))
    values = _gather(op, input, d, positions, keepdim)
    return _pair(name, values, positions if keepdim else positions.squeeze(d))


@torch_api("kthvalue", example=lambda x: x.kthvalue(2).values)
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """The ``k``-th smallest element along ``dim`` (1-based) and its index; among equal
    values the index PyTorch's quickselect lands on (``KthvalueBackward0``).

    >>> symgrad.tensor([3.0, 1.0, 2.0, 1.0]).kthvalue(2)
    symgrad.return_types.kthvalue(
    values=tensor(1.),
    indices=tensor(3))
    """
    _check_tensor(input, "kthvalue")
    if input.dtype is dtypes.bool_:
        raise dtypes.not_implemented("kthvalue_cpu", input.dtype)
    value = input._value
    d = _dim(dim, value.ndim)
    size = value.shape[d] if value.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    positions = _rowwise(value, d, lambda row: _quickselect(row, k - 1)) if value.ndim else None
    return _reduced("kthvalue", _red.kthvalue, input, d, positions, keepdim)


def _median_position(row: np.ndarray, ignore_nan: bool) -> int:
    nan = np.isnan(row) if row.dtype.kind == "f" else np.zeros(row.shape, bool)
    if not ignore_nan and nan.any():
        return int(np.argmax(nan))  # the first nan
    count = row.size - int(nan.sum())
    if count == 0:
        return 0
    return int(np.argsort(row, kind="stable")[(count - 1) // 2])


def _median(name: str, input: Tensor, dim: Any, keepdim: bool, ignore_nan: bool) -> Any:  # noqa: A002
    _check_tensor(input, name)
    if input.dtype is dtypes.bool_:
        raise dtypes.not_implemented("median_cpu" if dim is None else "median_out", input.dtype)
    value = input._value
    if dim is None:
        op = _red.nanmedian if ignore_nan else _red.median
        flat = value.reshape(-1)
        if flat.size == 0:
            return _make(np.asarray(np.nan, dtype=value.dtype))
        position = _median_position(flat, ignore_nan)
        key = np.unravel_index(position, value.shape)
        if not _records(input):
            return apply_op(op, input, key=key)
        picked = flat[position]
        mask = np.isnan(value) if picked != picked else value == picked
        return apply_op(op, input, key=key, mask=mask, count=mask.sum(keepdims=True))
    d = _dim(dim, value.ndim)
    op = _red.nanmedian_dim if ignore_nan else _red.median_dim
    positions = _rowwise(value, d, lambda row: _median_position(row, ignore_nan)) \
        if value.ndim else None
    return _reduced(name, op, input, d, positions, keepdim)


@torch_api("median", example=lambda x: x.median())
def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The lower median of all elements (nan if any is nan; ``MedianBackward0``, gradient
    split evenly among the elements equal to it); with ``dim``, the named tuple ``(values,
    indices)`` of each slice's lower median (``MedianBackward1``, gradient to that index).

    >>> symgrad.tensor([4.0, 1.0, 4.0, 1.0]).median()
    tensor(1.)
    >>> symgrad.tensor([4.0, 1.0, 4.0, 1.0]).median(0).indices
    tensor(3)
    """
    return _median("median", input, dim, keepdim, ignore_nan=False)


@torch_api("nanmedian", example=lambda x: x.nanmedian())
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    """:func:`median` ignoring nan (``NanmedianBackward0``/``1``).

    >>> symgrad.tensor([0.0, 5.0, float("nan"), 4.0]).nanmedian()
    tensor(4.)
    """
    return _median("nanmedian", input, dim, keepdim, ignore_nan=True)


def _mode_position(row: np.ndarray) -> int:
    """PyTorch's mode: sort (value, index) pairs by value, take the last pair of the first
    longest run of equal values."""
    pairs = _pairs(row)
    _std_sort(pairs, 0, len(pairs), lambda x, y: x[0] < y[0])
    best, position, run = 0, 0, 0
    for i, (v, index) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or v != pairs[i + 1][0]:
            if run > best:
                best, position = run, index
            run = 0
    return position


@torch_api("mode", example=lambda x: x.mode().values)
def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """The most frequent value along ``dim`` (the smallest one among equally frequent values)
    and the index of its last occurrence (``ModeBackward0``).

    >>> symgrad.tensor([1.0, 2.0, 2.0, 1.0, 3.0]).mode()
    symgrad.return_types.mode(
    values=tensor(1.),
    indices=tensor(3))
    """
    _check_tensor(input, "mode")
    value = input._value
    d = _dim(dim, value.ndim)
    positions = None
    if value.ndim:  # rows of distinct values: every value occurs once, the smallest wins
        positions = np.expand_dims(np.argmin(value, axis=d), d) if value.shape[d] else None
        moved = np.moveaxis(value, d, -1)
        if positions is None or _has_ties(moved).any():
            positions = _rowwise(value, d, _mode_position)
    return _reduced("mode", _red.mode, input, d, positions, keepdim)


def _running(value: np.ndarray, d: int, largest: bool) -> np.ndarray:
    """For each position along ``d``, the index of the running extreme: a later element
    equal to it (or a nan) takes over, as in PyTorch."""
    moved = np.moveaxis(value, d, -1)
    out = np.zeros(moved.shape, dtype=np.int64)
    best = moved[..., 0].copy()
    where = np.zeros(moved.shape[:-1], dtype=np.int64)
    for i in range(moved.shape[-1]):
        x = moved[..., i]
        nan = x != x
        take = nan | ((best == best) & ((x >= best) if largest else (x <= best)))
        best = np.where(take, x, best)
        where = np.where(take, i, where)
        out[..., i] = where
    return np.moveaxis(out, -1, d)


def _cumulative(name: str, op: ops.Op, input: Tensor, dim: int, largest: bool) -> Any:  # noqa: A002
    _check_tensor(input, name)
    value = input._value
    d = _dim(dim, value.ndim)
    if value.ndim == 0:
        return _pair(name, _gather(op, input, d, None), np.zeros((), np.int64))
    if value.shape[d] == 0:
        return _pair(name, input.clone(), np.zeros(value.shape, np.int64))
    positions = _running(value, d, largest)
    return _pair(name, _gather(op, input, d, positions), positions)


@torch_api("cummax", example=lambda x: x.cummax(1).values)
def cummax(input: Tensor, dim: int) -> Any:  # noqa: A002
    """Running maximum along ``dim`` and where it was found (a later equal element takes
    over); the gradient goes to those elements (``CummaxBackward0``).

    >>> symgrad.tensor([1.0, 3.0, 3.0, 2.0]).cummax(0)
    symgrad.return_types.cummax(
    values=tensor([1., 3., 3., 3.]),
    indices=tensor([0, 1, 2, 2]))
    """
    return _cumulative("cummax", _red.cummax, input, dim, True)


@torch_api("cummin", example=lambda x: x.cummin(1).values)
def cummin(input: Tensor, dim: int) -> Any:  # noqa: A002
    """Running minimum along ``dim`` and where it was found (``CumminBackward0``).

    >>> symgrad.tensor([3.0, 1.0, 1.0, 2.0]).cummin(0).indices
    tensor([0, 1, 2, 2])
    """
    return _cumulative("cummin", _red.cummin, input, dim, False)


@torch_api("logcumsumexp", example=lambda x: x.logcumsumexp(1))
def logcumsumexp(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """``log(cumsum(exp(input)))`` along ``dim``, without overflow
    (``LogcumsumexpBackward0``).

    >>> symgrad.tensor([0.0, 0.0, 100.0]).logcumsumexp(0)
    tensor([  0.0000,   0.6931, 100.0000])
    """
    _check_tensor(input, "logcumsumexp")
    if not input.is_floating_point():
        raise dtypes.not_implemented("logcumsumexp_out_cpu", input.dtype)
    d = _dim(dim, input._value.ndim)
    return apply_op(_red.logcumsumexp, input, dim=d)


# ---------------------------------------------------------------- binning
def _searchsorted(sorted_sequence: np.ndarray, values: np.ndarray, right: bool,
                  sorter: np.ndarray | None) -> np.ndarray:
    side = "right" if right else "left"
    if sorted_sequence.ndim <= 1:
        seq = sorted_sequence if sorter is None else sorted_sequence[sorter]
        return np.searchsorted(seq, values, side=side).astype(np.int64)
    out = np.zeros(values.shape, dtype=np.int64)
    for idx in np.ndindex(*sorted_sequence.shape[:-1]):
        seq = sorted_sequence[idx] if sorter is None else sorted_sequence[idx][sorter[idx]]
        out[idx] = np.searchsorted(seq, values[idx], side=side)
    return out


@torch_api(NO_GRAPH, method=False)
def searchsorted(sorted_sequence: Tensor, input: Tensor | float, *,  # noqa: A002
                 out_int32: bool = False, right: bool = False, side: str | None = None,
                 sorter: Tensor | None = None) -> Tensor:
    """For each value, the index where it would be inserted into the sorted last dim of
    ``sorted_sequence`` to keep it sorted (``right``/``side="right"``: after equal values).

    >>> symgrad.searchsorted(symgrad.tensor([1, 3, 5, 7]), symgrad.tensor([3, 6, 9]))
    tensor([1, 3, 4])
    >>> symgrad.searchsorted(symgrad.tensor([1, 3, 5, 7]), 3, right=True)
    tensor(2)
    """
    if not isinstance(input, Tensor | bool | int | float) or not \
            isinstance(sorted_sequence, Tensor):  # (input a Tensor or Scalar)
        raise parser.refused_argument((sorted_sequence, input), 1)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"symgrad.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("symgrad.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    values = np.asarray(input) if scalar else input._value
    seq = sorted_sequence._value
    if seq.ndim > 1 and (scalar or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError("symgrad.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           "must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor "
                           f"{list(values.shape)}")
    order = None if sorter is None else sorter._value
    out = _searchsorted(seq, values, bool(right), order)
    return _make(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


@torch_api(NO_GRAPH, method=False)
def bucketize(input: Tensor | float, boundaries: Tensor, *,  # noqa: A002
              out_int32: bool = False, right: bool = False) -> Tensor:
    """For each value, the index of its bucket in the sorted 1-d ``boundaries``: ``i`` with
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x <
    boundaries[i]``).

    >>> symgrad.bucketize(symgrad.tensor([1, 5, 7]), symgrad.tensor([1, 3, 5, 7]))
    tensor([0, 2, 3])
    """
    if not isinstance(input, Tensor | bool | int | float) or not \
            isinstance(boundaries, Tensor):  # (input a Tensor or Scalar)
        raise parser.refused_argument((input, boundaries), 1)
    if boundaries._value.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries._value.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@torch_api(NO_GRAPH)
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """Histogram of ``input`` in ``bins`` equal-width bins over ``[min, max]`` (both 0: the
    data's range); elements outside are ignored, ``max`` falls into the last bin.

    >>> symgrad.histc(symgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    parser.int64(bins)
    check_ints(min, max)
    _check_tensor(input, "histc")
    value = input._value
    if value.dtype.kind != "f":
        raise dtypes.not_implemented("histogram_cpu", input.dtype)
    if bins <= 0:
        raise RuntimeError("symgrad.histogram(): bins must be > 0, but got "
                           f"{bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("symgrad.histc: max must be larger than min")
    if lo == hi and value.size:
        lo, hi = float(value.min()), float(value.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    flat = value.reshape(-1).astype(np.float64)
    inside = flat[(flat >= lo) & (flat <= hi)]
    position = ((inside - lo) * bins / (hi - lo)).astype(np.int64)
    position = np.minimum(position, bins - 1)
    counts = np.bincount(position, minlength=bins)
    return _make(counts.astype(value.dtype))


@torch_api(NO_GRAPH)
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:  # noqa: A002
    """How often each value ``0, 1, ..., max(input)`` occurs in the 1-d non-negative integer
    ``input`` (with ``weights``: their sums), at least ``minlength`` long.

    >>> symgrad.bincount(symgrad.tensor([0, 2, 2, 5]))
    tensor([1, 0, 2, 0, 0, 1])
    """
    _check_tensor(input, "bincount")
    value = input._value
    if value.dtype.kind not in "iu":
        raise dtypes.not_implemented("bincount_cpu", input.dtype)
    if value.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if value.size and value.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _make(np.bincount(value, minlength=minlength).astype(np.int64))
    w = weights._value
    if w.ndim != 1 or w.shape[0] != value.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = w.dtype if w.dtype.kind == "f" else np.float64
    if w.dtype == np.float32:
        dtype = np.float32
    return _make(np.bincount(value, weights=w.astype(np.float64),
                             minlength=minlength).astype(dtype))



# ---------------------------------------------------------------- PyTorch's topk selection
# PyTorch's CPU topk runs the C++ standard library's nth_element + sort (or partial_sort for
# k * 64 <= size) on (value, index) pairs; which of several equal values it returns, and in
# which order, is decided by those algorithms. They are reproduced here (as GCC's libstdc++,
# which PyTorch's Linux builds use) so that the indices are PyTorch's.
def _insertion_sort(a: list, first: int, last: int, comp: Any) -> None:
    for i in range(first + 1, last):
        value = a[i]
        if comp(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            j = i
            while comp(value, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = value


def _median_to_first(a: list, result: int, x: int, y: int, z: int, comp: Any) -> None:
    if comp(a[x], a[y]):
        pick = y if comp(a[y], a[z]) else (z if comp(a[x], a[z]) else x)
    else:
        pick = x if comp(a[x], a[z]) else (z if comp(a[y], a[z]) else y)
    a[result], a[pick] = a[pick], a[result]


def _partition_pivot(a: list, first: int, last: int, comp: Any) -> int:
    _median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, comp)
    pivot, lo, hi = first, first + 1, last
    while True:
        while comp(a[lo], a[pivot]):
            lo += 1
        hi -= 1
        while comp(a[pivot], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _push_heap(a: list, first: int, hole: int, top: int, value: Any, comp: Any) -> None:
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a: list, first: int, hole: int, length: int, value: Any, comp: Any) -> None:
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, comp)


def _make_heap(a: list, first: int, last: int, comp: Any) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, first: int, last: int, result: int, comp: Any) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, comp)


def _heap_select(a: list, first: int, middle: int, last: int, comp: Any) -> None:
    _make_heap(a, first, middle, comp)
    for i in range(middle, last):
        if comp(a[i], a[first]):
            _pop_heap(a, first, middle, i, comp)


def _sort_heap(a: list, first: int, last: int, comp: Any) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, comp)


def _partial_sort(a: list, first: int, middle: int, last: int, comp: Any) -> None:
    _heap_select(a, first, middle, last, comp)
    _sort_heap(a, first, middle, comp)


def _nth_element(a: list, first: int, nth: int, last: int, comp: Any) -> None:
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, comp)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, comp)


def _introsort_loop(a: list, first: int, last: int, depth: int, comp: Any) -> None:
    while last - first > 16:
        if depth == 0:
            _partial_sort(a, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        _introsort_loop(a, cut, last, depth, comp)
        last = cut


def _std_sort(a: list, first: int, last: int, comp: Any) -> None:
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * ((last - first).bit_length() - 1), comp)
    if last - first > 16:
        _insertion_sort(a, first, first + 16, comp)
        for i in range(first + 16, last):  # unguarded: a smaller element is always in front
            value, j = a[i], i
            while comp(value, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = value
    else:
        _insertion_sort(a, first, last, comp)


def _pairs(row: np.ndarray) -> list[tuple[Any, int]]:
    return [(v, i) for i, v in enumerate(row.tolist())]


def _sort_comparison(descending: bool) -> Any:
    """PyTorch's order of (value, index) pairs: nan largest."""
    def comp(x: tuple, y: tuple) -> bool:
        a, b = x[0], y[0]
        if descending:
            return (a != a and b == b) or a > b
        return (a == a and b != b) or a < b

    return comp


def _topk_positions(row: np.ndarray, k: int, largest: bool, sort: bool) -> list[int]:
    """The positions PyTorch's CPU topk returns for one row."""
    if k == 0:
        return []
    comp = _sort_comparison(largest)
    queue = _pairs(row)
    if k * 64 <= len(queue):
        _partial_sort(queue, 0, k, len(queue), comp)
    else:
        _nth_element(queue, 0, k - 1, len(queue), comp)
        if sort:
            _std_sort(queue, 0, k - 1, comp)
    return [i for _, i in queue[:k]]


@torch_api(NO_GRAPH, function=False, example=lambda x: x.multinomial(2))
def multinomial(self: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Any = None) -> Tensor:
    """:func:`symgrad.multinomial` of this tensor's rows.

    >>> symgrad.tensor([[0.0, 1.0], [1.0, 0.0]]).multinomial(1)
    tensor([[1],
            [0]])
    """
    return creation.multinomial(self, num_samples, replacement, generator=generator)
