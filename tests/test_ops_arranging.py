"""addmm/addmv/baddbmm, kron, meshgrid, cartesian_prod, rot90, repeat_interleave, unfold,
masked_select, nonzero and view(dtype) against values confirmed with PyTorch 2.13 (gradients
of the new records: tests/test_registry.py)."""

from __future__ import annotations

import math

import pytest

import symgrad as t

A = t.arange(6.0).reshape(2, 3)
B = t.arange(12.0).reshape(3, 4)


def test_addmm_family():
    c = t.ones(2, 4)
    assert t.addmm(c, A, B).tolist() == [[21, 24, 27, 30], [57, 69, 81, 93]]
    assert t.addmm(c, A, B, beta=0.5, alpha=2).tolist()[0] == [40.5, 46.5, 52.5, 58.5]
    assert t.addmm(t.tensor(1.0), A, B).tolist()[1] == [57, 69, 81, 93]
    # beta == 0 ignores input, nan included
    assert t.addmm(t.full((2, 4), math.nan), A, B, beta=0).tolist()[0] == [20, 23, 26, 29]
    ints = t.addmm(t.ones(2, 4, dtype=t.int64), A.long(), B.long(), alpha=2)
    assert ints.dtype is t.int64 and ints.tolist()[0] == [41, 47, 53, 59]
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied "
                                           r"\(2x3 and 2x3\)"):
        t.addmm(c, A, A)
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(2\) must match"):
        t.addmm(t.ones(3, 4), A, B)
    assert t.addmv(t.ones(2), A, t.ones(3)).tolist() == [4, 13]
    with pytest.raises(RuntimeError, match=r"^size mismatch, got input \(2\), mat \(2x3\), "
                                           r"vec \(2\)"):
        t.addmv(t.ones(2), A, t.ones(2))
    out = t.baddbmm(t.zeros(2, 2, 4), A.expand(2, 2, 3), B.expand(2, 3, 4), alpha=0.5)
    assert out.tolist()[1][1] == [28, 34, 40, 46]
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.baddbmm(t.zeros(2, 4), A, B)
    m = t.ones(2, 2, requires_grad=True)
    assert t.addmm(m, m, m).grad_fn.name() == "AddmmBackward0"
    assert t.addmv(m[0], m, m[0]).grad_fn.name() == "AddmvBackward0"
    assert t.baddbmm(m[None], m[None], m[None]).grad_fn.name() == "BaddbmmBackward0"


def test_kron():
    k = t.kron(t.tensor([[1.0, 2], [3, 4]]), t.tensor([[0.0, 1], [1, 0]]))
    assert k.tolist() == [[0, 1, 0, 2], [1, 0, 2, 0], [0, 3, 0, 4], [3, 0, 4, 0]]
    assert t.kron(t.tensor([1, 2]), t.tensor([[1, 10]])).tolist() == [[1, 10, 2, 20]]
    assert t.kron(t.tensor(2.0), t.tensor([1.0, 2])).tolist() == [2, 4]
    m = t.ones(2, 2, requires_grad=True)
    t.kron(m, m).sum().backward()
    assert m.grad.tolist() == [[8, 8], [8, 8]]


def test_meshgrid_and_cartesian_prod():
    xs, ys = t.meshgrid(t.tensor([1, 2, 3]), t.tensor([4, 5]), indexing="xy")
    assert xs.tolist() == [[1, 2, 3], [1, 2, 3]] and ys.tolist() == [[4, 4, 4], [5, 5, 5]]
    xs, ys = t.meshgrid(t.tensor([1, 2, 3]), t.tensor([4, 5]), indexing="ij")
    assert xs.tolist() == [[1, 1], [2, 2], [3, 3]] and ys.tolist() == [[4, 5], [4, 5], [4, 5]]
    xs, ys = t.meshgrid([t.tensor([1, 2]), t.tensor([4])], indexing="ij")
    assert ys.tolist() == [[4], [4]]
    with pytest.raises(RuntimeError, match="meshgrid: indexing must be one of \"xy\" or \"ij\", "
                                           "but received: zz"):
        t.meshgrid(t.tensor([1, 2]), indexing="zz")
    with pytest.raises(RuntimeError, match="meshgrid: Expected 0D or 1D tensor"):
        t.meshgrid(t.tensor([[1, 2]]), indexing="ij")
    prod = t.cartesian_prod(t.tensor([1, 2]), t.tensor([3, 4, 5]))
    assert prod.tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    assert t.cartesian_prod(t.tensor([1, 2])).tolist() == [1, 2]
    x = t.tensor([1.0, 2.0], requires_grad=True)
    grid = t.meshgrid(x, t.tensor([1.0, 2.0, 3.0]), indexing="ij")[0]
    assert grid.grad_fn.name() == "ExpandBackward0"
    t.cartesian_prod(x, x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_rot90():
    x = t.arange(6).reshape(2, 3)
    assert t.rot90(x).tolist() == [[2, 5], [1, 4], [0, 3]]
    assert t.rot90(x, 2, [1, 0]).tolist() == [[5, 4, 3], [2, 1, 0]]
    assert t.rot90(x, -1).tolist() == t.rot90(x, 3).tolist() == [[3, 0], [4, 1], [5, 2]]
    for args, message in ((([0, 0],), "expected rotation dims to be different, but got dim0 = 0 "
                                      "and dim1 = 0"),
                          (([0],), "expected total rotation dims == 2, but got dims = 1")):
        with pytest.raises(RuntimeError, match=f"^{message}"):
            t.rot90(x, 1, *args)
    with pytest.raises(RuntimeError, match="^expected total dims >= 2, but got total dims = 1"):
        t.rot90(t.ones(3), 1)


def test_repeat_interleave():
    x = t.arange(6).reshape(2, 3)
    assert t.repeat_interleave(x, 2).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert x.repeat_interleave(2, dim=0).tolist() == [[0, 1, 2], [0, 1, 2], [3, 4, 5],
                                                      [3, 4, 5]]
    assert x.repeat_interleave(t.tensor([1, 2]), dim=0).tolist() == [[0, 1, 2], [3, 4, 5],
                                                                     [3, 4, 5]]
    assert t.repeat_interleave(t.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    with pytest.raises(RuntimeError, match=r"^repeats must have the same size as input along "
                                           r"dim, but got repeats.size\(0\) = 2 and "
                                           r"input.size\(1\) = 3"):
        x.repeat_interleave(t.tensor([1, 2]), dim=1)
    with pytest.raises(RuntimeError, match="^Repeats must be non-negative"):
        x.repeat_interleave(-1)
    with pytest.raises(RuntimeError, match="^repeats can not be negative"):
        x.repeat_interleave(t.tensor([1, -2]), dim=0)
    m = t.ones(2, 2, requires_grad=True)
    m.repeat_interleave(t.tensor([1, 3]), dim=1).sum().backward()
    assert m.grad.tolist() == [[1, 3], [1, 3]]


def test_unfold():
    assert t.arange(7.0).unfold(0, 3, 2).tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    x = t.arange(6).reshape(2, 3)
    assert x.unfold(1, 2, 1).tolist() == [[[0, 1], [1, 2]], [[3, 4], [4, 5]]]
    assert t.tensor(5.0).unfold(0, 1, 1).tolist() == [5.0]
    assert x.unfold(0, 0, 1).shape == (3, 3, 0)
    with pytest.raises(RuntimeError, match="^maximum size for tensor at dimension 1 is 3 but "
                                           "size is 4"):
        x.unfold(1, 4, 1)
    with pytest.raises(RuntimeError, match="^step is 0 but must be > 0"):
        x.unfold(1, 2, 0)
    m = t.ones(4, requires_grad=True)
    y = m.unfold(0, 2, 1)
    assert y.grad_fn.name() == "UnfoldBackward0"
    y.sum().backward()
    assert m.grad.tolist() == [1, 2, 2, 1]  # overlapping windows add up


def test_masked_select_and_nonzero():
    x = t.arange(6).reshape(2, 3)
    assert t.masked_select(x, x > 2).tolist() == [3, 4, 5]
    mask = t.tensor([[True, False, True], [False, False, True]])
    assert t.masked_select(t.tensor([1, 2, 3]), mask).tolist() == [1, 3, 3]
    with pytest.raises(RuntimeError, match="^masked_select: expected BoolTensor for mask"):
        t.masked_select(x, x)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of "
                                           r"tensor b \(3\)"):
        t.masked_select(x, t.tensor([True, False]))
    v = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = t.masked_select(v, mask)
    assert y.grad_fn.name() == "MaskedSelectBackward0"
    y.sum().backward()
    assert v.grad.tolist() == [1, 0, 2]
    z = t.tensor([[0, 1], [2, 0]])
    assert t.nonzero(z).tolist() == [[0, 1], [1, 0]]
    rows, cols = t.nonzero(z, as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert t.tensor(3).nonzero().shape == (1, 0)
    assert [p.tolist() for p in t.tensor(3).nonzero(as_tuple=True)] == [[0]]
    assert t.argwhere(t.tensor([0, 1])).tolist() == [[1]]


def test_view_dtype():
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.view(t.int64).tolist() == [[4611686019492741120], [4647714816524288000]]
    assert t.tensor(1.0, dtype=t.float64).view(t.int64).item() == 4607182418800017408
    assert t.tensor([True, False] * 4).view(t.int64).tolist() == [281479271743489]
    assert t.tensor([1, 2]).view(t.float32).shape == (4,)
    with pytest.raises(RuntimeError, match=r"^self.size\(-1\) must be divisible by 2 to view "
                                           "Float as Long"):
        t.tensor([1.0, 2.0, 3.0]).view(t.int64)
    with pytest.raises(RuntimeError, match=r"^self.dim\(\) cannot be 0 to view Float as Long"):
        t.tensor(1.0).view(t.int64)
    y = t.tensor([1.0, 2.0], dtype=t.float64)
    bits = y.view(t.int64)
    y.add_(1.0)  # shares storage and version counter
    assert bits.tolist() == t.tensor([2.0, 3.0], dtype=t.float64).view(t.int64).tolist()
    assert bits._version == y._version
    assert not t.ones(2, requires_grad=True).view(t.float32).requires_grad


def test_index_add_and_index_copy():
    x = t.zeros(3, 2)
    src = t.arange(1.0, 7.0).reshape(3, 2)
    idx = t.tensor([0, 2, 0])
    assert x.index_add(0, idx, src).tolist() == [[6, 8], [0, 0], [3, 4]]
    assert x.index_add(0, idx, src, alpha=2).tolist() == [[12, 16], [0, 0], [6, 8]]
    assert x.index_add(1, t.tensor([1, 1]), src).tolist() == [[0, 3], [0, 7], [0, 11]]
    with pytest.raises(RuntimeError, match="^index 3 is out of bounds for dimension 0 with "
                                           "size 3"):
        x.index_add(0, t.tensor([0, 3, 0]), src)
    with pytest.raises(RuntimeError, match=r"^index_add_\(\): Expected dtype int32/int64 for "
                                           "index but got: Float"):
        x.index_add(0, idx.float(), src)
    with pytest.raises(RuntimeError, match=r"^index_add_\(\): Number of indices \(3\) should be "
                                           r"equal to source.size\(dim\): \(2\), for dim: 0"):
        x.index_add(0, idx, src[:2])
    assert x.index_copy(0, t.tensor([2, 0, 1]), src).tolist() == [[3, 4], [5, 6], [1, 2]]
    assert x.index_copy(0, t.tensor([2, 0]), src[:2]).tolist() == [[3, 4], [0, 0], [1, 2]]
    b = t.zeros(3, 2, requires_grad=True)
    s = t.ones(3, 2, requires_grad=True)
    y = b.index_add(0, idx, s, alpha=3)
    assert y.grad_fn.name() == "IndexAddBackward0"
    y.backward(t.arange(6.0).reshape(3, 2))
    assert b.grad.tolist() == [[0, 1], [2, 3], [4, 5]]
    assert s.grad.tolist() == [[0, 3], [12, 15], [0, 3]]
    b.grad = s.grad = None
    y = b.index_copy(0, t.tensor([2, 0]), s[:2])
    assert y.grad_fn.name() == "IndexCopyBackward0"
    y.backward(t.arange(6.0).reshape(3, 2))
    assert b.grad.tolist() == [[0, 0], [2, 3], [0, 0]]
    assert s.grad.tolist() == [[4, 5], [0, 1], [0, 0]]


REDUCED = {  # base [1, 2, 3, 4], src [1 .. 6] at [0, 1, 0, 1, 2, 1], per include_self
    ("sum", True): [5, 14, 8, 4], ("sum", False): [4, 12, 5, 4],
    ("prod", True): [3, 96, 15, 4], ("prod", False): [3, 48, 5, 4],
    ("mean", True): [5 / 3, 3.5, 4, 4], ("mean", False): [2, 4, 5, 4],
    ("amax", True): [3, 6, 5, 4], ("amax", False): [3, 6, 5, 4],
    ("amin", True): [1, 2, 3, 4], ("amin", False): [1, 2, 5, 4],
}
GRADS = {  # base [1, 5, 3, 4], src [1, 2, 3, 5, 5, 6], backward of [1, 2, 3, 4]
    ("sum", True): ([1, 2, 3, 4], [1, 2, 1, 2, 3, 2]),
    ("sum", False): ([0, 0, 0, 4], [1, 2, 1, 2, 3, 2]),
    ("prod", True): ([3, 120, 15, 4], [3, 300, 1, 120, 9, 100]),
    ("prod", False): ([0, 0, 0, 4], [3, 60, 1, 24, 3, 20]),
    ("mean", True): ([1 / 3, 0.5, 1.5, 4], [1 / 3, 0.5, 1 / 3, 0.5, 1.5, 0.5]),
    ("mean", False): ([0, 0, 0, 4], [0.5, 2 / 3, 0.5, 2 / 3, 3, 2 / 3]),
    ("amax", True): ([0, 0, 0, 4], [0, 0, 1, 0, 3, 2]),
    ("amax", False): ([0, 0, 0, 4], [0, 0, 1, 0, 3, 2]),
    ("amin", True): ([0.5, 0, 3, 4], [0.5, 2, 0, 0, 0, 0]),
    ("amin", False): ([0, 0, 0, 4], [0.5, 2, 0, 0, 3, 0]),  # PyTorch counts the input's tie
}


@pytest.mark.parametrize(("reduce", "include_self"), sorted(REDUCED))
def test_scatter_reduce(reduce, include_self):
    index = t.tensor([0, 1, 0, 1, 2, 1])
    base = t.tensor([1.0, 2, 3, 4])
    out = base.scatter_reduce(0, index, t.arange(1.0, 7.0), reduce, include_self=include_self)
    assert out.tolist() == pytest.approx(REDUCED[reduce, include_self])
    b = t.tensor([1.0, 5, 3, 4], requires_grad=True)
    s = t.tensor([1.0, 2, 3, 5, 5, 6], requires_grad=True)
    y = b.scatter_reduce(0, index, s, reduce, include_self=include_self)
    assert y.grad_fn.name() == "ScatterReduceBackward0"
    y.backward(t.tensor([1.0, 2, 3, 4]))
    grad_self, grad_src = GRADS[reduce, include_self]
    assert b.grad.tolist() == pytest.approx(grad_self)
    assert s.grad.tolist() == pytest.approx(grad_src)


def test_scatter_with_reduce_is_not_differentiable():
    added = t.zeros(2, 3).scatter(1, t.tensor([[0, 0], [1, 2]]), 1.0, reduce="add")
    assert added.tolist() == [[2, 0, 0], [0, 1, 1]]
    product = t.ones(2, 3).scatter(1, t.tensor([[0, 0], [1, 2]]), 3.0, reduce="multiply")
    assert product.tolist() == [[9, 1, 1], [1, 3, 3]]
    with pytest.raises(RuntimeError, match="^reduce argument must be either add or multiply."):
        t.ones(2, 3).scatter(1, t.tensor([[0, 0], [1, 2]]), 3.0, reduce="mean")
    with pytest.raises(RuntimeError, match="^reduce argument must be either sum, prod, mean, amax "
                                           "or amin, got median"):
        t.ones(2).scatter_reduce(0, t.tensor([0]), t.ones(1), "median")
    b = t.zeros(2, 2, requires_grad=True)
    with pytest.warns(UserWarning, match="reduce argument of symgrad.scatter with Tensor src is "
                                         "deprecated"):
        y = b.scatter(0, t.tensor([[0, 1]]), t.ones(1, 2), reduce="add")
    assert type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::scatter is not implemented"):
        y.sum().backward()
