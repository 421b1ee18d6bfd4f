"""Sorting, order statistics and binning against values confirmed with PyTorch 2.13 (the
indices PyTorch picks among ties included); gradients of the recorded gathers are checked by
tests/test_registry.py, the gradient at ties here."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad as t

NAN = math.nan
X = [[3.0, 1.0, 2.0, 1.0, 3.0], [0.0, 5.0, 5.0, 4.0, NAN]]


def _same(a, b) -> bool:
    """Equal lists, nan equal to nan."""
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                          equal_nan=True)


def test_sort_and_argsort():
    x = t.tensor(X)
    values, indices = x.sort(1)
    assert _same(values.tolist(), [[1, 1, 2, 3, 3], [0, 4, 5, 5, NAN]])
    assert indices.tolist() == [[1, 3, 2, 0, 4], [0, 3, 1, 2, 4]]
    values, indices = x.sort(1, descending=True)
    assert _same(values.tolist(), [[3, 3, 2, 1, 1], [NAN, 5, 5, 4, 0]])
    assert indices.tolist() == [[0, 4, 2, 1, 3], [4, 1, 2, 3, 0]]
    assert x.argsort(1, descending=True).tolist() == [[0, 4, 2, 1, 3], [4, 1, 2, 3, 0]]
    assert t.tensor([1, 3, 2]).sort().indices.tolist() == [0, 2, 1]
    assert t.tensor([1, 3, 2]).sort().values.dtype is t.int64
    assert t.msort(x).tolist()[0] == [0.0, 1.0, 2.0, 1.0, 3.0]
    scalar = t.tensor(3.0).sort()
    assert scalar.values.item() == 3.0 and scalar.indices.item() == 0


def test_unstable_sort_orders_ties_as_pytorch_beyond_16_elements():
    v = t.tensor([2.0, 2, 3, 4, 0, 0, 4, 4, 1, 1, 4, 2, 1, 4, 1, 2, 3, 2, 0, 0])
    assert v.sort().indices.tolist() == [19, 18, 4, 5, 14, 8, 9, 12, 1, 17, 15, 11, 0, 16,
                                         2, 10, 13, 7, 6, 3]
    assert v.sort(stable=True).indices.tolist() == [4, 5, 18, 19, 8, 9, 12, 14, 0, 1, 11, 15,
                                                    17, 2, 16, 3, 6, 7, 10, 13]


def test_topk_and_kthvalue():
    x = t.tensor(X)
    top = x.topk(2)
    assert _same(top.values.tolist(), [[3, 3], [NAN, 5]])
    assert top.indices.tolist() == [[4, 0], [4, 2]]
    assert x.topk(3).indices.tolist() == [[4, 0, 2], [4, 2, 1]]
    assert x.topk(2, largest=False).indices.tolist() == [[1, 3], [0, 3]]
    assert t.tensor([1.0, 3, 3, 2, 3]).topk(2).indices.tolist() == [2, 4]
    k = x.kthvalue(2)
    assert k.values.tolist() == [1.0, 4.0] and k.indices.tolist() == [3, 3]
    assert x.kthvalue(2, 0).indices.tolist() == [0, 1, 1, 1, 1]
    assert t.tensor([1.0, 3, 3, 2, 3]).kthvalue(3).indices.item() == 2
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        x.topk(6)
    with pytest.raises(RuntimeError, match=r"^kthvalue\(\): selected number k out of range for "
                                           "dimension 1"):
        x.kthvalue(0)


def test_median_nanmedian_and_mode():
    x = t.tensor(X)
    assert math.isnan(x.median().item())
    med = x.median(1)
    assert _same(med.values.tolist(), [2, NAN]) and med.indices.tolist() == [2, 4]
    nan_med = x.nanmedian(1)
    assert nan_med.values.tolist() == [2.0, 4.0] and nan_med.indices.tolist() == [2, 3]
    assert x.nanmedian().item() == 3.0
    assert t.tensor([2.0, 2, 1]).median().item() == 2.0
    lower = t.tensor([4.0, 1, 4, 1]).median(0)  # the lower median, at PyTorch's index
    assert lower.values.item() == 1.0 and lower.indices.item() == 3
    assert t.tensor([1.0, 3, 3, 2, 3]).median(0).indices.item() == 1
    assert math.isnan(t.tensor([]).median().item())
    mode = x.mode(1)
    assert mode.values.tolist() == [1.0, 5.0] and mode.indices.tolist() == [3, 2]
    assert t.tensor([1.0, 2, 2, 1, 3]).mode().indices.item() == 3
    assert t.tensor([0.0, 1, NAN, 2, NAN, 1, 2]).mode().values.item() == 0.0


def test_cummax_cummin_logcumsumexp():
    x = t.tensor(X)
    cmax = x.cummax(1)
    assert _same(cmax.values.tolist(), [[3, 3, 3, 3, 3], [0, 5, 5, 5, NAN]])
    assert cmax.indices.tolist() == [[0, 0, 0, 0, 4], [0, 1, 2, 2, 4]]
    assert x.cummin(1).indices.tolist() == [[0, 1, 1, 3, 3], [0, 0, 0, 0, 4]]
    assert t.tensor([1, 3, 3, 2, 3]).cummax(0).indices.tolist() == [0, 1, 2, 2, 4]
    assert t.tensor([1.0, NAN, 2]).cummax(0).indices.tolist() == [0, 1, 1]
    lse = t.tensor([0.0, 0.0, 100.0]).logcumsumexp(0)
    assert lse.tolist() == pytest.approx([0.0, math.log(2), 100.0])
    y = t.tensor([[1.0, 2, 3], [4, 5, 6]], requires_grad=True)
    out = y.logcumsumexp(1)
    assert out.grad_fn.name() == "LogcumsumexpBackward0"
    out.backward(t.tensor([[1.0, 2, 3], [1, 1, 1]]))
    assert y.grad.numpy().ravel().tolist() == pytest.approx(
        [1.8080, 2.1963, 1.9957, 1.3590, 0.9758, 0.6652], abs=1e-4)


CASES = [
    ("median()", lambda x: x.median(), "MedianBackward0", [0.5, 0, 0.5]),
    ("median(0)", lambda x: x.median(0).values, "MedianBackward1", [1, 0, 0]),
    ("kthvalue(2)", lambda x: x.kthvalue(2).values, "KthvalueBackward0", [1, 0, 0]),
    ("mode()", lambda x: x.mode().values, "ModeBackward0", [0, 0, 1]),
    ("topk(1)", lambda x: x.topk(1).values, "TopkBackward0", [1, 0, 0]),
    ("sort()", lambda x: x.sort().values, "SortBackward0", [1, 1, 1]),
    ("cummax(0)", lambda x: x.cummax(0).values, "CummaxBackward0", [2, 0, 1]),
    ("cummin(0)", lambda x: x.cummin(0).values, "CumminBackward0", [1, 2, 0]),
    ("nanmedian()", lambda x: x.nanmedian(), "NanmedianBackward0", [0.5, 0, 0.5]),
]


@pytest.mark.parametrize(("fn", "node", "grad"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_at_ties(fn, node, grad):
    x = t.tensor([1.0, 0.0, 1.0], requires_grad=True)
    y = fn(x)
    assert type(y.grad_fn).__name__ == node
    y.sum().backward()
    assert x.grad.tolist() == grad


def test_ties_agree_with_sympy():
    from symgrad import symbolic

    x = t.tensor([1.0, 0.0, 1.0, 2.0], dtype=t.float64, requires_grad=True)
    for y in (x.sort().values * t.arange(4.0, dtype=t.float64), x.topk(2).values,
              x.cummax(0).values, x.median(), x.kthvalue(3).values):
        symbolic.check(y.sum())


def test_searchsorted_and_bucketize():
    seq = t.tensor([[1, 3, 5, 7], [2, 4, 6, 8]])
    values = t.tensor([[3, 6, 9], [3, 6, 9]])
    assert t.searchsorted(seq, values).tolist() == [[1, 3, 4], [1, 2, 4]]
    assert t.searchsorted(seq, values, right=True).tolist() == [[2, 3, 4], [1, 3, 4]]
    assert t.searchsorted(t.tensor([1.0, 3, 5, 7]), t.tensor([[3.0, 6], [0, 9]]),
                          side="right").tolist() == [[2, 3], [0, 4]]
    assert t.searchsorted(t.tensor([1, 3, 5, 7]), 5).item() == 2
    assert t.searchsorted(t.tensor([5, 1, 3]), t.tensor([2, 4]),
                          sorter=t.tensor([1, 2, 0])).tolist() == [1, 2]
    with pytest.raises(RuntimeError, match=r"searchsorted\(\): boundaries tensor should be 1 "
                                           "dimension"):
        t.searchsorted(seq, t.tensor([3, 6, 9]))
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right' but got mid"):
        t.searchsorted(t.tensor([1, 3]), t.tensor([2]), side="mid")
    assert t.bucketize(t.tensor([[1, 5], [7, 9]]), t.tensor([1, 3, 5, 7])).tolist() == [[0, 2],
                                                                                      [3, 4]]
    assert t.bucketize(t.tensor([1, 5, 7, 9]), t.tensor([1, 3, 5, 7]),
                       right=True).tolist() == [1, 3, 4, 4]
    assert t.bucketize(3.5, t.tensor([1, 3, 5, 7])).item() == 2
    with pytest.raises(RuntimeError, match=r"^boundaries tensor must be 1 dimension, but got "
                                           r"dim\(2\)"):
        t.bucketize(t.tensor([1]), seq)


def test_histc_and_bincount():
    assert t.histc(t.tensor([1.0, 2, 1, 2.5, -1, 4]), bins=4, min=0, max=3).tolist() == [
        0, 2, 1, 1]
    assert t.histc(t.tensor([1.0, 2, 1, 2.5]), bins=3).tolist() == [2, 0, 2]
    assert t.histc(t.tensor([2.0, 2]), bins=4).tolist() == [0, 0, 2, 0]
    assert t.histc(t.tensor([1.0, 2], dtype=t.float64), bins=2).dtype is t.float64
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        t.histc(t.tensor([1, 2]), bins=4)
    with pytest.raises(RuntimeError, match="histc: max must be larger than min"):
        t.histc(t.tensor([1.0, 2]), bins=4, min=3, max=1)
    counts = t.bincount(t.tensor([0, 2, 2, 5]))
    assert counts.tolist() == [1, 0, 2, 0, 0, 1] and counts.dtype is t.int64
    weighted = t.bincount(t.tensor([0, 2, 2, 5]), weights=t.tensor([0.5, 1, 1, 2]), minlength=8)
    assert weighted.tolist() == [0.5, 0, 2, 0, 0, 2, 0, 0] and weighted.dtype is t.float32
    assert t.bincount(t.tensor([0, 2]), weights=t.tensor([1, 1])).dtype is t.float64
    with pytest.raises(RuntimeError, match="^bincount only supports 1-d non-negative integral"):
        t.bincount(t.tensor([0, -2]))
    with pytest.raises(NotImplementedError, match="\"bincount_cpu\" not implemented for 'Float'"):
        t.bincount(t.tensor([0.0, 2]))
    assert t.bincount(t.tensor([], dtype=t.int64)).tolist() == []
