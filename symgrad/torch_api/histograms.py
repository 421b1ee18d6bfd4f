"""PyTorch's histograms (see ``symgrad.torch_api``): ``histogram`` (function and method) and
``histogramdd``, computed in numpy as PyTorch computes them: ``bins`` equal bins between the
smallest and largest value (or ``range``; widened by 0.5 on each side when they are equal), or
the given edges; a value on the last edge counts in the last bin, values outside the edges
are left out; ``weight`` sums weights instead of counting, ``density`` divides by the total
and the bin widths. Neither is differentiable: for an input or weight that requires grad
PyTorch records a ``NotImplemented`` node whose backward raises, and so does symgrad.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.declaration import NO_GRAPH, torch_api
from symgrad.torch_api.sorting import return_types  # (it holds histogram's types too)


def _edges_between(low: float, high: float, bins: int, dtype: np.dtype) -> np.ndarray:
    """``bins + 1`` equally spaced edges from ``low`` to ``high`` (PyTorch's linspace)."""
    if low == high:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, bins + 1).astype(dtype)


def _counts(points: np.ndarray, edges: list[np.ndarray], weight: np.ndarray | None,
            density: bool, dtype: np.dtype) -> np.ndarray:
    """The (weighted) counts of the rows of ``points`` (N, D) in the bins between ``edges``."""
    shape = tuple(max(len(e) - 1, 0) for e in edges)
    hist = np.zeros(shape, dtype=np.float64)
    keep = np.ones(len(points), dtype=bool)
    positions = []
    for d, e in enumerate(edges):
        column = points[:, d]
        inside = (column >= e[0]) & (column <= e[-1]) if len(e) else np.zeros_like(keep)
        keep &= inside
        position = np.searchsorted(e, column, side="right") - 1
        positions.append(np.clip(position, 0, max(len(e) - 2, 0)))
    if keep.any() and all(shape):
        index = tuple(p[keep] for p in positions)
        values = np.ones(int(keep.sum())) if weight is None else weight[keep].astype(np.float64)
        np.add.at(hist, index, values)
    hist = hist.astype(dtype)
    if density:
        total = hist.sum(dtype=dtype)
        widths = np.ones(shape, dtype=dtype)
        for d, e in enumerate(edges):
            step = np.diff(e).astype(dtype)
            widths = widths * step.reshape((1,) * d + (-1,) + (1,) * (len(edges) - d - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = (hist / total / widths).astype(dtype)
    return hist


def _histogramdd(fn: str, input: Tensor, bins: Any, range: Sequence[float] | None,  # noqa: A002
                 weight: Tensor | None, density: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """The counts and edges of ``input`` read as (N, D) points, with PyTorch's checks."""
    value = input._value
    if value.dtype.kind != "f":
        raise dtypes.not_implemented("histogramdd", input.dtype)
    dims = value.shape[-1] if value.ndim else 1
    points = value.reshape(-1, dims)
    if weight is not None:
        parser.tensor_arg(fn, "weight", weight)
        if weight._value.shape != value.shape[:-1]:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(value.shape)} and weight with shape {list(weight._value.shape)}")
    if isinstance(bins, Tensor) or (isinstance(bins, Sequence) and bins
                                    and isinstance(bins[0], Tensor)):
        given = [bins] if isinstance(bins, Tensor) else list(bins)
        edges = [b._value.astype(value.dtype).reshape(-1) for b in given]
    else:
        counts = [int(parser.int64(b)) for b in ([bins] * dims if parser._is_int(bins)
                                                  else bins)]
        for d, n in enumerate(counts):
            if n <= 0:
                raise RuntimeError(f"torch.{fn}(): bins must be > 0, but got {n} for dimension "
                                   f"{d}")
        if range is not None:
            bounds = [(float(range[2 * d]), float(range[2 * d + 1])) for d in np.arange(dims)]
        elif points.size:
            bounds = [(float(points[:, d].min()), float(points[:, d].max()))
                      for d in np.arange(dims)]
        else:
            bounds = [(0.0, 1.0)] * dims
        for d, (low, high) in enumerate(bounds):
            if low > high:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                                   f"{low:g} max {high:g} for dimension {d}")
            if not (np.isfinite(low) and np.isfinite(high)):
                raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{low:g}, "
                                   f"{high:g}] is not finite")
        edges = [_edges_between(low, high, n, value.dtype)
                 for (low, high), n in zip(bounds, counts, strict=True)]
    w = None if weight is None else weight._value.reshape(-1)
    return _counts(points, edges, w, density, value.dtype), edges


def _recorded(result: np.ndarray, input: Tensor, weight: Tensor | None) -> Tensor:  # noqa: A002
    """``result`` as a tensor, in the graph (a ``NotImplemented`` node) when ``input`` or
    ``weight`` requires grad."""
    if weight is None:
        return apply_op(ops.elementwise.histogram, input, value=result)
    return apply_op(ops.elementwise.histogram_weighted, input, weight, value=result)


@torch_api(NO_GRAPH, example=lambda x: x.detach().histogram(3).hist)
def histogram(input: Tensor, bins: int | Tensor, *, range: Sequence[float] | None = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> Any:
    """The histogram of ``input``'s values: ``bins`` equal bins over ``range`` (default: the
    smallest to the largest value), or the edges given as a 1-D tensor; returns
    ``(hist, bin_edges)``.

    >>> symgrad.histogram(symgrad.tensor([1.0, 2.0, 1.0, 4.0]), 3)
    symgrad.return_types.histogram(
    hist=tensor([2., 1., 1.]),
    bin_edges=tensor([1., 2., 3., 4.]))
    """
    if not (isinstance(bins, Tensor) or parser._is_int(bins)):
        raise parser.invalid_combination("histogram", (input, bins), {})
    points = input.reshape(-1, 1)
    hist, edges = _histogramdd("histogram", points, bins, range, weight, density)
    if weight is not None:
        weight = weight.reshape(-1)
    return return_types.histogram(_recorded(hist, input, weight),
                                  _recorded(edges[0], input, weight))


@torch_api(NO_GRAPH, method=False, example=lambda x: histogramdd(x.detach(), [2, 2, 2]).hist)
def histogramdd(input: Tensor, bins: int | Sequence[int] | Sequence[Tensor],  # noqa: A002
                range: Sequence[float] | None = None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False) -> Any:
    """The histogram of the points in ``input``'s last dim (one coordinate per column):
    ``bins`` per dimension (an int for all, a list of ints, or a list of 1-D edge tensors);
    ``range`` lists (min, max) of each dimension in turn; returns ``(hist, bin_edges)``.

    >>> symgrad.histogramdd(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), [2, 2]).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    hist, edges = _histogramdd("histogramdd", input, bins, range, weight, density)
    return return_types.histogramdd(_recorded(hist, input, weight),
                                    tuple(_make(e) for e in edges))
