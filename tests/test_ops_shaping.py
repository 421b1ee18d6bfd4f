"""Shape, joining/splitting, indexing and matrix-structure ops: PyTorch's conventions at the
edges (node names, views and version counters, empty pieces, repeated indices, dtypes) and its
errors. Gradients of every op are checked against finite differences by the registry test;
here they are checked against closed forms where a convention is involved."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F


def leaf(values, dtype=t.float64):
    return t.tensor(np.asarray(values, dtype=float), dtype=dtype, requires_grad=True)


def node(y) -> str:
    return type(y.grad_fn).__name__


def grad_of(y, x, g=None):
    (gx,) = t.autograd.grad(y, [x], grad_outputs=g if g is not None else t.ones_like(y))
    return gx.numpy()


A = np.arange(24.0).reshape(2, 3, 4)
M = np.arange(9.0).reshape(3, 3)
N = np.arange(12.0).reshape(3, 4)


# ---------------------------------------------------------------- node names, as in PyTorch


@pytest.mark.parametrize(("call", "name"), [
    (lambda x: x.repeat(2, 1, 1), "RepeatBackward0"),
    (lambda x: x.tile(2), "RepeatBackward0"),
    (lambda x: x.flip(0), "FlipBackward0"),
    (lambda x: t.fliplr(x), "FlipBackward0"),
    (lambda x: x.flipud(), "FlipBackward0"),
    (lambda x: x.roll(1), "RollBackward0"),
    (lambda x: x.roll((1, 2), (0, 2)), "RollBackward0"),
    (lambda x: x.movedim(0, 2), "PermuteBackward0"),
    (lambda x: x.movedim(1, 1), "PermuteBackward0"),
    (lambda x: t.moveaxis(x, 0, 1), "PermuteBackward0"),
    (lambda x: x.narrow(2, 1, 2), "SliceBackward0"),
    (lambda x: x.select(1, 0), "SelectBackward0"),
    (lambda x: x.unflatten(2, (2, 2)), "ViewBackward0"),
    (lambda x: x.swapdims(0, 1), "TransposeBackward0"),
    (lambda x: t.cat([x, x], 1), "CatBackward0"),
    (lambda x: t.concat([x, x]), "CatBackward0"),
    (lambda x: t.concatenate([x, x], -1), "CatBackward0"),
    (lambda x: t.hstack([x, x]), "CatBackward0"),
    (lambda x: t.vstack([x, x]), "CatBackward0"),
    (lambda x: t.dstack([x, x]), "CatBackward0"),
    (lambda x: t.stack([x, x], -1), "StackBackward0"),
    (lambda x: x.split(2, 2)[1], "SplitBackward0"),
    (lambda x: x.split([1, 3], 2)[0], "SplitWithSizesBackward0"),
    (lambda x: x.chunk(2, 1)[0], "SplitBackward0"),
    (lambda x: x.unbind(1)[2], "UnbindBackward0"),
    (lambda x: x.tensor_split(2, 2)[0], "SliceBackward0"),
    (lambda x: x.gather(2, t.zeros(2, 3, 1, dtype=t.int64)), "GatherBackward0"),
    (lambda x: t.take_along_dim(x, t.tensor([0, 5])), "GatherBackward0"),
    (lambda x: x.index_select(1, t.tensor([0, 0])), "IndexSelectBackward0"),
    (lambda x: x.masked_fill(x > 3, 0.0), "MaskedFillBackward0"),
    (lambda x: x.masked_fill(x > 3, t.tensor(1.0)), "MaskedFillBackward1"),
    (lambda x: x.scatter(2, t.zeros(2, 3, 1, dtype=t.int64), x), "ScatterBackward0"),
    (lambda x: x.scatter(2, t.zeros(2, 3, 1, dtype=t.int64), 1.0), "ScatterBackward1"),
    (lambda x: x.scatter_add(2, t.zeros(2, 3, 1, dtype=t.int64), x), "ScatterAddBackward0"),
    (lambda x: x.diagonal(0, 1, 2), "DiagonalBackward0"),
    (lambda x: x[0].diag(), "DiagonalBackward0_copy"),
    (lambda x: t.diag(x[0, 0]), "DiagEmbedBackward0"),
    (lambda x: x.diag_embed(), "DiagEmbedBackward0"),
    (lambda x: x[0].trace(), "TraceBackward0"),
    (lambda x: x.tril(), "TrilBackward0"),
    (lambda x: x.triu(1), "TriuBackward0"),
    (lambda x: t.outer(x[0, 0], x[1, 1]), "MulBackward0"),
    (lambda x: x[0, 0].ger(x[1, 1]), "MulBackward0"),
    (lambda x: F.pad(x, (1, 1)), "ConstantPadNdBackward0"),
    (lambda x: t.einsum("bij,jk->bik", x, x[0].T), "ViewBackward0"),
    (lambda x: t.einsum("ij,jk", x[0], x[0].T), "ViewBackward0"),
    (lambda x: t.einsum("i,i", x[0, 0], x[1, 1]), "ViewBackward0"),
    (lambda x: t.einsum("i,j->ij", x[0, 0], x[1, 1]), "MulBackward0"),
    (lambda x: t.einsum("ij,ij->ij", x[0], x[1]), "MulBackward0"),
    (lambda x: t.einsum("ii->", x[0, :, :3]), "SumBackward1"),
    (lambda x: t.einsum("bij->bj", x), "SumBackward1"),
    (lambda x: t.einsum("ii->i", x[0, :, :3]), "PermuteBackward0"),
    (lambda x: t.einsum("ij->ij", x[0]), "PermuteBackward0"),
    (lambda x: t.einsum("ji", x[0]), "PermuteBackward0"),
])
def test_node_names_are_pytorchs(call, name):
    assert node(call(leaf(A))) == name


def test_outer_is_a_view_times_the_other_vector():
    # PyTorch records outer as self.reshape(-1, 1) * vec2
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0, 5.0])
    y = t.outer(a, b)
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["ViewBackward0",
                                                                       "AccumulateGrad"]
    np.testing.assert_array_equal(y.detach().numpy(), np.outer([1, 2], [3, 4, 5]))


# ---------------------------------------------------------------- repeat, flip, roll, movedim


def test_repeat_values_and_gradient_sums_the_copies():
    x = leaf([[1.0, 2.0]])
    y = x.repeat(2, 1, 3)
    assert y.shape == (2, 1, 6)
    np.testing.assert_array_equal(y.detach().numpy(), np.tile([[1.0, 2.0]], (2, 1, 3)))
    np.testing.assert_array_equal(grad_of(y, x), [[6.0, 6.0]])
    assert x.repeat(0, 2).shape == (0, 4)
    assert t.tensor(1.0).repeat(()).shape == ()


def test_tile_pads_the_repeats_with_ones():
    x = leaf(A)
    assert x.tile(2).shape == (2, 3, 8)
    assert t.tile(x, (2, 1, 1, 1)).shape == (2, 2, 3, 4)


def test_flip_and_roll_move_gradients_back():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    w = t.tensor([1.0, 10.0, 100.0, 1000.0], dtype=t.float64)
    np.testing.assert_array_equal(x.flip(0).detach().numpy(), [4, 3, 2, 1])
    np.testing.assert_array_equal(grad_of(x.flip(0), x, w), [1000, 100, 10, 1])
    np.testing.assert_array_equal(x.roll(1).detach().numpy(), [4, 1, 2, 3])
    np.testing.assert_array_equal(grad_of(x.roll(1), x, w), [10, 100, 1000, 1])
    # dims repeated: the shifts add up; no dims: the flattened tensor rolls
    m = leaf(N)
    np.testing.assert_array_equal(m.roll((1, 1), (1, 1)).detach().numpy(), np.roll(N, 2, 1))
    np.testing.assert_array_equal(m.roll(-5).detach().numpy(), np.roll(N, -5))
    assert t.tensor(1.0).flip(0).shape == ()


def test_flip_is_a_copy():
    x = t.tensor([1.0, 2.0])
    y = x.flip(0)
    y.add_(1)
    assert x.tolist() == [1.0, 2.0] and y._version == 1 and x._version == 0


def test_movedim_orders_the_other_dims_as_pytorch():
    x = t.zeros(2, 3, 4, 5)
    assert x.movedim((0, 1), (3, 0)).shape == (3, 4, 5, 2)
    assert t.movedim(x, -1, 1).shape == (2, 5, 3, 4)


# ---------------------------------------------------------------- views and version counters


@pytest.mark.parametrize("take", [
    lambda y: y.narrow(1, 1, 2),
    lambda y: y.select(0, 1),
    lambda y: y.movedim(0, 1),
    lambda y: y.split(2, 1)[1],
    lambda y: y.chunk(2, 0)[0],
    lambda y: y.unbind(1)[2],
    lambda y: y.tensor_split(2, 1)[1],
    lambda y: y.diagonal(),
    lambda y: y.unflatten(1, (3, 1)),
])
def test_views_share_storage_and_version_counter(take):
    y = leaf(np.arange(6.0).reshape(2, 3)) * 1
    v = take(y)
    assert v._base is y
    y.mul_(2)
    assert v._version == y._version == 1
    np.testing.assert_array_equal(v.detach().numpy(), take(y.detach()).numpy())


@pytest.mark.parametrize("take", [
    lambda y: y.repeat(1, 1), lambda y: y.flip(0), lambda y: y.roll(1),
    lambda y: t.cat([y]), lambda y: t.stack([y]), lambda y: y.diag(),
    lambda y: y.gather(0, t.zeros(1, 3, dtype=t.int64)), lambda y: y.tril(),
    lambda y: y.index_select(0, t.tensor([0])), lambda y: F.pad(y, ()),
    lambda y: y.masked_fill(y > 100, 0.0),
])
def test_copies_are_not_views(take):
    y = leaf(np.arange(6.0).reshape(2, 3)) * 1
    v = take(y)
    assert v._base is None
    y.mul_(2)
    assert v._version == 0


def test_writes_through_views_reach_the_base():
    w = t.zeros(3, 3)
    w.narrow(1, 0, 2).fill_(5)
    w.select(0, 2).zero_()
    w.diagonal().fill_(1)
    w.movedim(0, 1)[2].add_(7)
    assert w.tolist() == [[1, 5, 7], [5, 1, 7], [0, 0, 8]]


def test_in_place_through_a_diagonal_view_is_recorded_on_the_base():
    x = leaf(M)
    z = x * 1
    d = z.diagonal()
    d.mul_(10)
    assert node(z) == "CopySlices"
    assert z.detach().numpy()[1, 1] == 40.0
    np.testing.assert_array_equal(grad_of(z.sum(), x), 1 + 9 * np.eye(3))


# ---------------------------------------------------------------- cat and stack


def test_cat_splits_the_gradient_and_promotes_dtypes():
    a, b = leaf([[1.0, 2.0]]), leaf([[3.0], [4.0]])
    y = t.cat([a.T, b], dim=0)
    np.testing.assert_array_equal(y.detach().numpy(), [[1], [2], [3], [4]])
    g = t.tensor([[1.0], [2.0], [3.0], [4.0]], dtype=t.float64)
    ga, gb = t.autograd.grad(y, [a, b], g)
    assert ga.tolist() == [[1.0, 2.0]] and gb.tolist() == [[3.0], [4.0]]
    f32, i64 = t.ones(2), t.tensor([1, 2])
    assert t.cat([f32, i64]).dtype is t.float32
    assert t.cat([t.tensor([True]), i64]).dtype is t.int64
    assert t.cat([f32, f32.double()]).dtype is t.float64
    assert t.cat([i64, i64]).dtype is t.int64


def test_cat_of_a_tensor_with_itself_accumulates():
    x = leaf([1.0, 2.0])
    np.testing.assert_array_equal(grad_of(t.cat([x, x, x]), x), [3.0, 3.0])


def test_cat_skips_1d_empty_tensors_as_pytorch():
    x = leaf(N)
    e = t.zeros(0, dtype=t.float64, requires_grad=True)
    y = t.cat([e, x, e], dim=1)
    assert y.shape == (3, 4) and node(y) == "CatBackward0"
    ge, gx = t.autograd.grad(y.sum(), [e, x])
    assert ge.shape == (0,) and gx.tolist() == np.ones((3, 4)).tolist()
    assert t.cat([t.zeros(0), t.zeros(0)]).shape == (0,)
    assert t.cat([t.zeros(0, dtype=t.int64), t.ones(2)]).dtype is t.float32


def test_cat_gradient_only_for_inputs_that_need_it():
    a, b = leaf([1.0]), t.tensor([2.0, 3.0], dtype=t.float64)
    y = t.cat([b, a])
    (ga,) = t.autograd.grad(y, [a], t.tensor([1.0, 2.0, 5.0], dtype=t.float64))
    assert ga.tolist() == [5.0]
    assert [type(f).__name__ if f else None for f, _ in y.grad_fn.next_functions] == [
        None, "AccumulateGrad"]


def test_stack_values_and_gradient():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = t.stack([a, b], dim=1)
    assert y.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    g = t.tensor([[1.0, 10.0], [2.0, 20.0]], dtype=t.float64)
    ga, gb = t.autograd.grad(y, [a, b], g)
    assert ga.tolist() == [1.0, 2.0] and gb.tolist() == [10.0, 20.0]
    assert t.stack([t.tensor(1.0), t.tensor(2.0)]).shape == (2,)


def test_hstack_vstack_dstack_column_stack_shapes():
    v, m = t.ones(3), t.ones(2, 3)
    assert t.hstack([v, v]).shape == (6,)
    assert t.hstack([t.tensor(1.0), t.tensor(2.0)]).shape == (2,)
    assert t.hstack([m, m]).shape == (2, 6)
    assert t.vstack([v, m]).shape == (3, 3)
    assert t.row_stack([v, v]).shape == (2, 3)
    assert t.dstack([v, v]).shape == (1, 3, 2)
    assert t.dstack([m, m]).shape == (2, 3, 2)
    assert t.column_stack([v, m.T]).shape == (3, 3)


# ---------------------------------------------------------------- split, chunk, unbind


def test_split_returns_a_tuple_with_a_smaller_last_piece():
    x = leaf(np.arange(5.0))
    pieces = x.split(2)
    assert isinstance(pieces, tuple)
    assert [p.tolist() for p in pieces] == [[0, 1], [2, 3], [4]]
    assert [p.shape[0] for p in t.split(x, 5)] == [5]
    assert [p.shape[0] for p in x.split(7)] == [5]


def test_split_with_sizes_allows_empty_pieces():
    x = leaf(A)
    pieces = x.split([0, 3, 0], dim=1)
    assert [p.shape for p in pieces] == [(2, 0, 4), (2, 3, 4), (2, 0, 4)]
    assert all(node(p) == "SplitWithSizesBackward0" for p in pieces)
    assert [p.shape for p in t.zeros(2, 0).split(0, 1)] == [(2, 0)]
    assert [p.shape for p in t.zeros(2, 0).split(2, 1)] == [(2, 0)]


def test_unused_pieces_get_zero_gradient():
    x = leaf(np.arange(5.0))
    first, _, last = x.split(2)
    np.testing.assert_array_equal(grad_of(first.sum() * 2 + last.sum(), x), [2, 2, 0, 0, 1])
    a, b = x.unbind(0)[1:3]
    np.testing.assert_array_equal(grad_of(a * b, x), [0, 2, 1, 0, 0])


@pytest.mark.parametrize(("size", "chunks", "sizes"), [
    (6, 4, [2, 2, 2]),  # ceil(6 / 4) = 2 per chunk: only 3 chunks
    (6, 5, [2, 2, 2]),
    (5, 4, [2, 2, 1]),
    (3, 10, [1, 1, 1]),
    (0, 3, [0, 0, 0]),  # an empty dim gives as many empty chunks as asked
    (7, 1, [7]),
])
def test_chunk_counts_as_pytorch(size, chunks, sizes):
    assert [p.shape[0] for p in t.zeros(size).chunk(chunks)] == sizes


def test_unbind_gives_slices_without_the_dim():
    x = leaf(N)
    cols = x.unbind(-1)
    assert len(cols) == 4 and cols[1].tolist() == [1.0, 5.0, 9.0]
    assert t.zeros(0, 3).unbind() == ()
    assert [p.shape for p in t.unbind(t.zeros(3))] == [(), (), ()]


@pytest.mark.parametrize(("spec", "sizes"), [
    (3, [3, 2, 2]), ([1, 5], [1, 4, 2]), ([5, 1], [5, 0, 6]), ([1, 10], [1, 6, 0]),
    ([-2], [5, 2]), (t.tensor([2]), [2, 5]), (t.tensor(2), [4, 3]),
])
def test_tensor_split_as_pytorch(spec, sizes):
    assert [p.shape[0] for p in t.arange(7.0).tensor_split(spec)] == sizes


# ---------------------------------------------------------------- gather, index_select, take


def test_gather_repeated_indices_accumulate():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = t.tensor([[0, 0, 2, 0], [1, 1, 1, 1]])
    y = x.gather(1, index)
    assert y.tolist() == [[1, 1, 3, 1], [5, 5, 5, 5]]
    np.testing.assert_array_equal(grad_of(y, x), [[3, 0, 1], [0, 4, 0]])


def test_gather_index_may_be_smaller_than_input():
    x = leaf(N)
    y = x.gather(0, t.tensor([[2, 0]]))
    assert y.tolist() == [[8.0, 1.0]]
    np.testing.assert_array_equal(grad_of(y, x), [[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]])


def test_gather_keeps_the_index_as_it_was():
    x = leaf([1.0, 2.0, 3.0])
    index = t.tensor([0, 0])
    y = x.gather(0, index)
    index[0] = 2  # changing the index afterwards does not change the recorded gradient
    np.testing.assert_array_equal(grad_of(y, x), [2, 0, 0])


def test_index_select_repeated_indices_accumulate():
    x = leaf(N)
    y = x.index_select(1, t.tensor([3, 0, 3]))
    np.testing.assert_array_equal(y.detach().numpy(), N[:, [3, 0, 3]])
    np.testing.assert_array_equal(grad_of(y, x), np.tile([1, 0, 0, 2], (3, 1)))
    assert x.index_select(0, t.tensor(1)).shape == (1, 4)  # a 0-d index selects one slice
    assert x.index_select(1, t.tensor([], dtype=t.int64)).shape == (3, 0)


def test_take_along_dim_broadcasts_and_flattens():
    x = leaf(N)
    y = t.take_along_dim(x, t.tensor([[0, 3]]), 1)  # index broadcast over the rows
    assert y.tolist() == [[0, 3], [4, 7], [8, 11]]
    y = t.take_along_dim(x, t.tensor([11, 0, 0]))
    assert y.tolist() == [11.0, 0.0, 0.0]
    expected = np.zeros(12)
    expected[[11, 0]] = [1, 2]
    np.testing.assert_array_equal(grad_of(y, x).reshape(-1), expected)
    row = leaf([[1.0, 2.0, 3.0]])
    y = row.take_along_dim(t.tensor([[0], [2]]), dim=1)  # the input broadcast over the rows
    assert y.tolist() == [[1.0], [3.0]]
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["ExpandBackward0"]
    np.testing.assert_array_equal(grad_of(y, row), [[1, 0, 1]])


# ---------------------------------------------------------------- masked_fill, scatter


def test_masked_fill_with_a_number_and_a_broadcast_mask():
    x = leaf(N)
    mask = t.tensor([True, False, False, True])
    y = x.masked_fill(mask, -1.0)
    expected = N.copy()
    expected[:, [0, 3]] = -1
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    np.testing.assert_array_equal(grad_of(y, x), np.tile([0, 1, 1, 0], (3, 1)))
    # a mask larger than the input broadcasts it (out of place)
    assert t.ones(3).masked_fill(t.ones(2, 3, dtype=t.bool), 0.5).shape == (2, 3)


def test_masked_fill_tensor_value_gets_the_sum_of_the_filled_gradient():
    x = leaf([1.0, 2.0, 3.0])
    v = t.tensor(7.0, dtype=t.float64, requires_grad=True)
    y = x.masked_fill(x > 1.5, v)
    assert y.tolist() == [1.0, 7.0, 7.0]
    gx, gv = t.autograd.grad(y, [x, v], t.tensor([1.0, 10.0, 100.0], dtype=t.float64))
    assert gx.tolist() == [1.0, 0.0, 0.0] and gv.item() == 110.0
    # a float64 value into a float32 tensor: the result keeps the tensor's dtype
    assert t.ones(2).masked_fill(t.tensor([True, False]), t.tensor(2.0,
                                                                   dtype=t.float64)).dtype \
        is t.float32


def test_masked_fill_keeps_integer_and_bool_dtypes():
    y = t.tensor([1, 2]).masked_fill(t.tensor([True, False]), -1.7)
    assert y.dtype is t.int64 and y.tolist() == [-1, 2]  # truncated toward zero
    assert t.tensor([1, 2]).masked_fill(t.tensor([True, False]), t.tensor(1.7)).tolist() \
        == [1, 2]
    assert t.tensor([True, True]).masked_fill(t.tensor([True, False]), 0).dtype is t.bool


def test_masked_fill_in_place():
    x = leaf([1.0, -2.0, 3.0])
    y = x * 1
    y.masked_fill_(y < 0, 0.0)
    assert node(y) == "MaskedFillBackward0" and y.tolist() == [1.0, 0.0, 3.0]
    assert y._version == 1
    np.testing.assert_array_equal(grad_of(y, x), [1, 0, 1])
    z = x * 1
    z.masked_fill_(z > 0, t.tensor(5.0, dtype=t.float64))
    assert node(z) == "MaskedFillBackward1" and z.tolist() == [5.0, -2.0, 5.0]


def test_scatter_writes_src_and_the_gradients_follow():
    x, src = leaf(np.zeros((2, 3))), leaf([[1.0, 2.0], [3.0, 4.0]])
    index = t.tensor([[2, 0], [1, 2]])
    y = x.scatter(1, index, src)
    assert y.tolist() == [[2, 0, 1], [0, 3, 4]]
    g = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=t.float64)
    gx, gs = t.autograd.grad(y, [x, src], g)
    assert gx.tolist() == [[0, 2, 0], [4, 0, 0]]  # overwritten places get none
    assert gs.tolist() == [[3, 1], [5, 6]]  # each src element its target's gradient
    y = t.scatter(x, 0, t.tensor([[1, 0, 1]]), value=9.0)
    assert y.tolist() == [[0, 9, 0], [9, 0, 9]] and node(y) == "ScatterBackward1"


def test_scatter_src_larger_than_index_gets_zero_gradient_outside():
    x, src = leaf(np.zeros(4)), leaf([1.0, 2.0, 3.0])
    y = x.scatter(0, t.tensor([3]), src)
    assert y.tolist() == [0, 0, 0, 1]
    np.testing.assert_array_equal(grad_of(y, src, t.arange(4.0, dtype=t.float64)), [3, 0, 0])


def test_scatter_add_repeated_indices_add_up():
    x, src = leaf(np.zeros(3)), leaf([1.0, 2.0, 4.0])
    y = x.scatter_add(0, t.tensor([2, 2, 0]), src)
    assert y.tolist() == [4, 0, 3]
    gx, gs = t.autograd.grad(y, [x, src], t.tensor([1.0, 10.0, 100.0], dtype=t.float64))
    assert gx.tolist() == [1, 10, 100] and gs.tolist() == [100, 100, 1]


def test_scatter_in_place():
    x = leaf(np.zeros((2, 2)))
    y = x * 1
    y.scatter_(1, t.tensor([[1], [0]]), 5.0)
    assert node(y) == "ScatterBackward1" and y.tolist() == [[0, 5], [5, 0]]
    y.scatter_add_(0, t.tensor([[0, 0]]), t.ones(1, 2, dtype=t.float64))
    assert node(y) == "ScatterAddBackward0" and y.tolist() == [[1, 6], [5, 0]]
    np.testing.assert_array_equal(grad_of(y, x), [[1, 0], [0, 1]])


# ---------------------------------------------------------------- diagonals and triangles


def test_diag_both_ways_with_offsets():
    v = leaf([1.0, 2.0])
    d = t.diag(v, 1)
    assert d.tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    np.testing.assert_array_equal(grad_of(d, v, t.arange(9.0, dtype=t.float64).reshape(3, 3)),
                                  [1, 5])
    m = leaf(N)
    assert m.diag(1).tolist() == [1.0, 6.0, 11.0]
    assert m.diag(-2).tolist() == [8.0]
    assert m.diag(5).shape == (0,)
    np.testing.assert_array_equal(grad_of(m.diag(-1), m), np.eye(3, 4, -1))


def test_diagonal_and_diag_embed_with_dims():
    x = t.tensor(A)
    np.testing.assert_array_equal(x.diagonal(1, 2, 0).numpy(), np.diagonal(A, 1, 2, 0))
    np.testing.assert_array_equal(t.diagonal(x, offset=-1, dim1=-1, dim2=1).numpy(),
                                  np.diagonal(A, -1, 2, 1))
    e = t.diag_embed(t.tensor(N), 1, 0, 2)
    assert e.shape == (5, 3, 5)
    np.testing.assert_array_equal(np.diagonal(e.numpy(), 1, 0, 2), N)
    assert e.numpy().sum() == N.sum()


def test_trace_tril_triu_gradients():
    m = leaf(N)
    assert m.trace().item() == 0 + 5 + 10
    np.testing.assert_array_equal(grad_of(m.trace(), m), np.eye(3, 4))
    np.testing.assert_array_equal(m.tril(1).detach().numpy(), np.tril(N, 1))
    np.testing.assert_array_equal(grad_of(m.tril(1), m), np.tril(np.ones((3, 4)), 1))
    np.testing.assert_array_equal(grad_of(t.triu(m, diagonal=-1), m),
                                  np.triu(np.ones((3, 4)), -1))
    assert t.ones(2, 2, dtype=t.int64).trace().dtype is t.int64
    b = leaf(A)
    np.testing.assert_array_equal(b.triu().detach().numpy(), np.triu(A))


def test_tril_triu_in_place():
    x = leaf(M)
    y = x * 1
    y.tril_(-1)
    assert node(y) == "TrilBackward0" and y.tolist() == np.tril(M, -1).tolist()
    z = x * 1
    z.triu_()
    assert node(z) == "TriuBackward0"
    np.testing.assert_array_equal(grad_of(y.sum() + z.sum(), x), np.ones((3, 3)))


# ---------------------------------------------------------------- einsum


@pytest.mark.parametrize(("equation", "shapes"), [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ii->", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("bA", [(2, 3)]),  # implicit output: uppercase sorts first
    ("i,j->ij", [(2,), (3,)]),
    ("i,i", [(3,), (3,)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("ij,j->i", [(2, 3), (3,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("...ij,jk->...ik", [(2, 2, 3), (3, 4)]),
    ("i...", [(2, 3)]),
    ("bij,bik->jk", [(2, 3, 2), (2, 3, 4)]),
    ("ij,kl->j", [(2, 3), (2, 2)]),
    (" i j , j k -> k i ", [(2, 3), (3, 4)]),
    (",i->i", [(), (3,)]),
])
def test_einsum_values_and_gradients_match_numpy(equation, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    xs = [leaf(a) for a in arrays]
    y = t.einsum(equation, *xs)
    expected = np.einsum(equation.replace(" ", ""), *arrays)
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(expected.shape)
    grads = t.autograd.grad(y, xs, t.tensor(g, dtype=t.float64))
    for k, (x, gx) in enumerate(zip(arrays, grads, strict=True)):
        # <g, d y / d x_k . u> is linear in x_k: the gradient is einsum with x_k replaced
        u = rng.standard_normal(x.shape)
        others = [u if j == k else a for j, a in enumerate(arrays)]
        directional = np.einsum(equation.replace(" ", ""), *others)
        assert np.sum(gx.numpy() * u) == pytest.approx(np.sum(g * directional))


def test_einsum_sums_an_ellipsis_missing_from_the_output():
    x = leaf(A)
    y = t.einsum("...i->i", x)
    np.testing.assert_array_equal(y.detach().numpy(), A.sum((0, 1)))
    np.testing.assert_array_equal(grad_of(y, x), np.ones_like(A))
    assert t.einsum("ij->j...", t.ones(3, 2)).shape == (2,)


def test_einsum_takes_a_list_and_broadcasts_size_one():
    a, b = t.ones(2, 3), t.ones(3, 4)
    assert t.einsum("ij,jk", [a, b]).shape == (2, 4)
    assert t.einsum("i,i->i", t.ones(3), t.ones(1)).shape == (3,)
    assert t.einsum("i,i->", t.ones(3), t.ones(1)).item() == 3.0
    assert t.einsum("ij,ij->ij", t.ones(3, 3), t.ones(1, 3)).shape == (3, 3)


# ---------------------------------------------------------------- pad


def test_pad_values_crops_and_gradient():
    x = leaf(N)
    y = F.pad(x, (1, -2, -1, 1), value=9.0)  # last dim: 1 before, crop 2 after; then dim 0
    assert y.shape == (3, 3)
    assert y.tolist() == [[9, 4, 5], [9, 8, 9], [9, 9, 9]]
    g = grad_of(y, x)
    expected = np.zeros((3, 4))
    expected[1:, :2] = 1
    np.testing.assert_array_equal(g, expected)
    assert F.pad(x, ()).shape == (3, 4) and node(F.pad(x, ())) == "ConstantPadNdBackward0"
    assert F.pad(x, [0, 0, 0, 0]).shape == (3, 4)
    assert F.pad(t.arange(3), (1, 1), value=2.7).tolist() == [2, 0, 1, 2, 2]
    assert F.pad(t.ones(2), (1, 1), value=None).tolist() == [0, 1, 1, 0]
    assert F.pad(t.ones(2), (-2, 0)).shape == (0,)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_other_modes_pad_the_last_dims(mode):
    # values and errors of these modes: tests/test_ops_conv.py
    assert F.pad(t.ones(1, 2, 3), (1, 1), mode=mode).shape == (1, 2, 5)


def test_pad_unknown_mode_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
        F.pad(t.ones(1, 2, 3), (1, 1), mode="foo")


# ---------------------------------------------------------------- errors, as PyTorch words them


def _check_error(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)


ERRORS = [
    (lambda: t.cat([]), ValueError, "symgrad.cat(): expected a non-empty list of Tensors"),
    (lambda: t.cat(t.zeros(2)), TypeError,
     "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda: t.cat([t.zeros(2), 1]), TypeError,
     "expected Tensor as element 1 in argument 0, but got int"),
    (lambda: t.cat([t.zeros(2, 3), t.zeros(3, 3)], 1), RuntimeError,
     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
     "tensor number 1 in the list."),
    (lambda: t.cat([t.zeros(2, 3), t.zeros(3)]), RuntimeError,
     "Tensors must have same number of dimensions: got 2 and 1"),
    (lambda: t.cat([t.zeros(2), t.zeros(())]), RuntimeError,
     "zero-dimensional tensor (at position 1) cannot be concatenated"),
    (lambda: t.cat([t.zeros(2, 3)], -3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda: t.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (lambda: t.stack([t.zeros(2, 3), t.zeros(2, 3), t.zeros(3, 2)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at "
     "entry 2"),
    (lambda: t.stack([t.zeros(2, 3)], 3), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: t.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    (lambda: t.zeros(2, 3).split(-1, 1), RuntimeError,
     "split expects split_size be non-negative, but got split_size=-1"),
    (lambda: t.zeros(2, 3).split(0, 1), RuntimeError,
     "split_size can only be 0 if dimension size is 0, but got dimension size of 3"),
    (lambda: t.zeros(2, 3).split([1, 1], 1), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
     "dimension 1), but got split_sizes=[1, 1]"),
    (lambda: t.zeros(2, 3).split([-1, 2], 1), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got "
     "split_sizes=[-1, 2]"),
    (lambda: t.zeros(()).split(1), RuntimeError,
     "split expects at least a 1-dimensional tensor"),
    (lambda: t.zeros(3).chunk(0), RuntimeError,
     "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda: t.zeros(()).unbind(), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda: t.zeros(3).tensor_split(0), RuntimeError,
     "number of sections must be larger than 0, got 0"),
    (lambda: t.zeros(2, 3).repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
     "tensor"),
    (lambda: t.zeros(2, 3).repeat(-1, 2), RuntimeError,
     "Trying to create tensor with negative dimension -2: [-2, 6]"),
    (lambda: t.zeros(2, 3).flip(0, -2), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    (lambda: t.zeros(3).fliplr(), RuntimeError, "Input must be >= 2-d."),
    (lambda: t.zeros(()).flipud(), RuntimeError, "Input must be >= 1-d."),
    (lambda: t.zeros(2, 3).roll((1, 2), 0), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda: t.zeros(2, 3).roll((1, 2)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:0"),
    (lambda: t.zeros(()).roll(1, 0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda: t.zeros(2, 3, 4).movedim((0, 1), (2,)), RuntimeError,
     "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the "
     "same number of dims as destination ([2] dims)"),
    (lambda: t.zeros(2, 3, 4).movedim((0, 0), (2, 1)), RuntimeError,
     "movedim: repeated dim in `source` ([0, 0])"),
    (lambda: t.zeros(2, 3).narrow(1, 1, 3), RuntimeError,
     "start (1) + length (3) exceeds dimension size (3)."),
    (lambda: t.zeros(2, 3).narrow(1, -4, 0), IndexError,
     "start out of range (expected to be in range of [-3, 3], but got -4)"),
    (lambda: t.zeros(2, 3).narrow(1, 0, -1), RuntimeError,
     "narrow(): length must be non-negative."),
    (lambda: t.zeros(()).narrow(0, 0, 1), RuntimeError,
     "narrow() cannot be applied to a 0-dim tensor."),
    (lambda: t.zeros(2, 3).select(1, 3), IndexError,
     "select(): index 3 out of range for tensor of size [2, 3] at dimension 1"),
    (lambda: t.zeros(2, 3).unflatten(1, (2, 2)), RuntimeError,
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the "
     "input tensor"),
    (lambda: t.zeros(2, 3).gather(1, t.zeros(3, 3, dtype=t.int64)), RuntimeError,
     "Size does not match at dimension 0 expected index [3, 3] to be no larger than self "
     "[2, 3] apart from dimension 1"),
    (lambda: t.zeros(2, 3).gather(1, t.tensor([[-1]])), RuntimeError,
     "index -1 is out of bounds for dimension 1 with size 3"),
    (lambda: t.zeros(2, 3).gather(1, t.tensor([0])), RuntimeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    (lambda: t.zeros(2, 3).gather(1, t.tensor([[0.0]])), RuntimeError,
     "gather(): Expected dtype int32/int64 for index"),
    (lambda: t.zeros(2, 3).gather(1, [[0]]), TypeError,
     "gather(): argument 'index' (position 2) must be Tensor, not list"),
    (lambda: t.zeros(2, 3).index_select(1, t.tensor([[2]])), IndexError,
     "index_select(): Index is supposed to be a vector"),
    (lambda: t.zeros(2, 3).index_select(1, t.tensor([3])), RuntimeError,
     "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    (lambda: t.zeros(2, 3).index_select(0, t.tensor([5])), IndexError,
     "index out of range in self"),
    (lambda: t.zeros(2, 3, 4).index_select(2, t.tensor([-1])), IndexError,
     "index out of range in self"),
    (lambda: t.zeros(2, 3).index_select(1, t.tensor([0.0])), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index"),
    (lambda: t.zeros(2, 3).masked_fill(t.ones(2, 3), 0.5), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    (lambda: t.zeros(2, 3).masked_fill(t.ones(2, 3, dtype=t.int64), 0.5), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
    (lambda: t.zeros(2, 3).masked_fill(t.ones(2, 3, dtype=t.bool), t.tensor([1.0])),
     RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
     "with 1 dimension(s)."),
    (lambda: t.zeros(2, 3).masked_fill(t.ones(2, dtype=t.bool), 0.5), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
     "dimension 1"),
    (lambda: t.zeros(3).masked_fill_(t.ones(2, 3, dtype=t.bool), 0.5), RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda: t.zeros(2, 3).scatter(1, t.tensor([0]), 1.0), RuntimeError,
     "Index tensor must have the same number of dimensions as self tensor"),
    (lambda: t.zeros(2, 3).scatter(1, t.tensor([[3]]), 1.0), RuntimeError,
     "index 3 is out of bounds for dimension 1 with size 3"),
    (lambda: t.zeros(2, 3).scatter(1, t.zeros(3, 1, dtype=t.int64), t.zeros(2, 3)),
     RuntimeError, "Expected index [3, 1] to be no larger than self [2, 3] apart from "
     "dimension 1 and to be no larger size than src [2, 3]"),
    (lambda: t.zeros(2, 3).scatter(1, t.tensor([[0]]), t.zeros(2, 3, dtype=t.float64)),
     RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda: t.zeros(2, 3).scatter_add(1, t.tensor([[0]]), 2.0), TypeError,
     "scatter_add(): argument 'src' (position 3) must be Tensor, not float"),
    (lambda: t.zeros(2, 3, requires_grad=True).scatter_(1, t.tensor([[0]]), 1.0), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda: t.zeros(2, 3).scatter(1, t.tensor([[0]]), t.zeros(1, 1), reduce="sum"),
     RuntimeError, "reduce argument must be either add or multiply."),
    (lambda: t.take_along_dim(t.zeros(2, 3), t.tensor([0]), 1), RuntimeError,
     "symgrad.take_along_dim(): input and indices should have the same number of dimensions, "
     "but got 2 dimensions for input, and 1 dimensions for indices"),
    (lambda: t.take_along_dim(t.zeros(2, 3), t.tensor([7])), RuntimeError,
     "index 7 is out of bounds for dimension 0 with size 6"),
    (lambda: t.take_along_dim(t.zeros(2, 3), t.tensor([[0], [0], [0]]), 1), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
     "dimension 0"),
    (lambda: t.diag(t.zeros(2, 2, 2)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda: t.zeros(2, 3, 4).diagonal(0, 1, -2), RuntimeError,
     "diagonal dimensions cannot be identical 1, -2"),
    (lambda: t.zeros(3).diagonal(), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: t.zeros(3).trace(), RuntimeError,
     "trace: expected a matrix, but got tensor with dim 1"),
    (lambda: t.zeros(3).tril(), RuntimeError,
     "tril: input tensor must have at least 2 dimensions"),
    (lambda: t.zeros(3).triu_(), RuntimeError,
     "triu: input tensor must have at least 2 dimensions"),
    (lambda: t.outer(t.zeros(2, 2), t.zeros(2)), RuntimeError,
     "outer: Expected 1-D argument self, but got 2-D"),
    (lambda: t.outer(t.zeros(2), t.zeros(())), RuntimeError,
     "outer: Expected 1-D argument vec2, but got 0-D"),
    (lambda: t.einsum("ij,jk->ik", t.zeros(2, 2)), RuntimeError,
     "einsum(): fewer operands were provided than specified in the equation"),
    (lambda: t.einsum("ij->", t.zeros(2, 2), t.zeros(2)), RuntimeError,
     "einsum(): more operands were provided than specified in the equation"),
    (lambda: t.einsum("ijk->", t.zeros(2, 2)), RuntimeError,
     "einsum(): the number of subscripts in the equation (3) does not match the number of "
     "dimensions (2) for operand 0 and no ellipsis was given"),
    (lambda: t.einsum("ij,jk->ik", t.zeros(3, 3), t.zeros(4, 2)), RuntimeError,
     "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously "
     "seen size 3"),
    (lambda: t.einsum("ij->ii", t.zeros(3, 3)), RuntimeError,
     "einsum(): output subscript i appears more than once in the output"),
    (lambda: t.einsum("ij->k", t.zeros(3, 3)), RuntimeError,
     "einsum(): output subscript k does not appear in the equation for any input operand"),
    (lambda: t.einsum("i1->", t.zeros(3, 3)), RuntimeError,
     "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be "
     "in [a-zA-Z]"),
    (lambda: t.einsum("ii->i", t.zeros(2, 3)), RuntimeError,
     "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    (lambda: t.einsum("i.j->", t.zeros(3, 2)), RuntimeError,
     "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
    (lambda: t.einsum(1, t.zeros(3)), TypeError,
     "einsum(): argument 'equation' (position 1) must be str, not int"),
    (lambda: F.pad(t.zeros(2, 3), (1, 2, 3)), RuntimeError,
     "Padding length must be divisible by 2"),
    (lambda: F.pad(t.zeros(2, 3), (1,) * 6), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got "
     "padding length 6 and input of dimension 2"),
    (lambda: F.pad(t.zeros(4), (-5, 6)), RuntimeError, "narrow(): length must be non-negative."),
    (lambda: F.pad(t.zeros(2, 3), (1.0, 1)), TypeError,
     "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
     "float at pos 0"),
    (lambda: F.pad(t.zeros(2, 3), (1, 1), mode="bogus"), NotImplementedError,
     "Unrecognised padding mode bogus"),
]


@pytest.mark.parametrize(("call", "kind", "message"), ERRORS)
def test_errors_as_pytorch(call, kind, message):
    _check_error(call, kind, message)


def test_failed_calls_change_nothing():
    x = leaf([1.0, 2.0])
    y = x * 1
    with pytest.raises(RuntimeError):
        y.masked_fill_(t.ones(2, 2, dtype=t.bool), 0.0)
    with pytest.raises(RuntimeError):
        y.scatter_(0, t.tensor([5]), 1.0)
    assert y._version == 0 and y.tolist() == [1.0, 2.0] and node(y) == "MulBackward0"


@pytest.mark.parametrize(("pieces", "name", "index"), [
    (lambda y: y.split(2), "Split", 1),
    (lambda y: y.chunk(2), "Split", 0),
    (lambda y: y.split([1, 3]), "SplitWithSizes", 1),
    (lambda y: y.unbind(), "Unbind", 2),
])
def test_multi_output_views_refuse_in_place_changes_as_pytorch(pieces, name, index):
    x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    piece = pieces(y)[index]
    before = y.detach().clone()
    with pytest.raises(RuntimeError, match=f"^Output {index} of {name} is a view and is being "
                                           "modified inplace. This view is the output of a "
                                           "function that returns multiple views"):
        piece.mul_(2)
    assert t.equal(y.detach(), before)  # nothing half-applied
    with t.no_grad():
        piece.mul_(2)  # allowed without grad, and on pieces that need no grad
    plain = t.tensor([1.0, 2.0, 3.0, 4.0])
    pieces(plain)[index].add_(1)
