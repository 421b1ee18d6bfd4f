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
