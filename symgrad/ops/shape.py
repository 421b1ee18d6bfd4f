"""Shape ops: reshape/view, transposes and permutes, (un)squeeze, expand, indexing.

Their VJPs move the cotangent back to the input's layout; indexing scatters it, adding where
integer-array indices repeat.
"""

from __future__ import annotations

import numpy as np

from symgrad.numeric.numpy_namespace import is_basic_index, is_mask_view_index
from symgrad.ops.record import Op, Sample, register

reshape = register(Op(
    "reshape", "ViewBackward0",
    forward=lambda xp, a, shape: xp.reshape(a, shape),
    vjp=(lambda xp, g, ans, a, shape: xp.reshape(g, a.shape),),
    # PyTorch's reshape copies (UnsafeViewBackward0) where a view is impossible
    node_name_of=lambda params, a: "ViewBackward0" if a.flags.c_contiguous or a.ndim < 2
    else "UnsafeViewBackward0",
    samples=(Sample(((2, 3),), {"shape": (3, 2)}), Sample(((2, 3),), {"shape": (6,)}),
             Sample(((4,),), {"shape": (2, 1, 2)})),
))

# PyTorch's _unsafe_view: the reshape of a fresh result that nothing else sees (kron's factors
# and product, matmul's folded batches); the same rules as reshape under its own node name
unsafe_view = register(Op(
    "unsafe_view", "UnsafeViewBackward0",
    forward=reshape.forward,
    vjp=reshape.vjp,
    samples=(Sample(((2, 3),), {"shape": (3, 2)}), Sample(((2, 2),), {"shape": (2, 1, 2, 1)})),
))

transpose = register(Op(
    "transpose", "TransposeBackward0",
    forward=lambda xp, a, dim0, dim1: xp.swapaxes(a, dim0, dim1) if a.ndim else a[...],
    vjp=(lambda xp, g, ans, a, dim0, dim1: xp.swapaxes(g, dim0, dim1) if g.ndim else g,),
    samples=(Sample(((2, 3),), {"dim0": 0, "dim1": 1}),
             Sample(((2, 3, 4),), {"dim0": 0, "dim1": 2})),
))


def _inverse(dims):
    inverse = [0] * len(dims)
    for position, d in enumerate(dims):
        inverse[d] = position
    return tuple(inverse)


permute = register(Op(
    "permute", "PermuteBackward0",
    forward=lambda xp, a, dims: xp.transpose(a, dims),
    vjp=(lambda xp, g, ans, a, dims: xp.transpose(g, _inverse(dims)),),
    samples=(Sample(((2, 3),), {"dims": (1, 0)}), Sample(((2, 3, 4),), {"dims": (2, 0, 1)})),
))

t = register(Op(
    "t", "TBackward0",
    forward=lambda xp, a: xp.transpose(a),
    vjp=(lambda xp, g, ans, a: xp.transpose(g),),
    samples=(Sample(((2, 3),)), Sample(((3,),))),
))

unsqueeze = register(Op(
    "unsqueeze", "UnsqueezeBackward0",
    forward=lambda xp, a, dim: xp.expand_dims(a, dim),
    vjp=(lambda xp, g, ans, a, dim: xp.reshape(g, a.shape),),
    samples=(Sample(((3,),), {"dim": 0}), Sample(((2, 3),), {"dim": 2})),
))

squeeze = register(Op(
    "squeeze", "SqueezeBackward0",
    forward=lambda xp, a, dim=None: xp.squeeze(a, axis=dim),
    vjp=(lambda xp, g, ans, a, dim=None: xp.reshape(g, a.shape),),
    node_name_of=lambda params, *values: "SqueezeBackward0" if params.get("dim") is None
    else "SqueezeBackward1" if len(params["dim"]) <= 1 else "SqueezeBackward2",
    samples=(Sample(((1, 3, 1),)), Sample(((1, 3),), {"dim": (0,)})),
))

expand = register(Op(
    "expand", "ExpandBackward0",
    forward=lambda xp, a, shape: xp.broadcast_to(a, shape),
    vjp=(lambda xp, g, ans, a, shape: g,),  # the engine sums g back to a's shape
    samples=(Sample(((3,),), {"shape": (2, 3)}), Sample(((2, 1),), {"shape": (2, 4)})),
))


def _index_node_name(params, *values):
    key = params["key"]
    if not is_basic_index(key):
        return "IndexBackward0"
    parts = key if isinstance(key, tuple) else (key,)
    meaningful = [p for p in parts if p is not Ellipsis and p != slice(None)]
    last = meaningful[-1] if meaningful else None
    if last is None:
        return "UnsqueezeBackward0" if None in parts else "AliasBackward0"
    return "SelectBackward0" if isinstance(last, int) else "SliceBackward0"


index = register(Op(
    "index", "IndexBackward0",
    forward=lambda xp, a, key: a[key],
    vjp=(lambda xp, g, ans, a, key: xp.index_backward(g, a.shape, key),),
    node_name_of=_index_node_name,
    samples=(Sample(((4,),), {"key": 1}), Sample(((4,),), {"key": slice(1, 3)}),
             Sample(((3, 4),), {"key": (slice(None), 2)}),
             Sample(((4,),), {"key": np.array([0, 2, 0, 3])}),
             Sample(((2, 3),), {"key": np.array([[True, False, True], [False, True, True]])}),
             Sample(((3, 2),), {"key": (None, Ellipsis, 1)})),
))

index_backward = register(Op(
    "index_backward", "IndexPutBackward0",
    forward=lambda xp, g, shape, key: xp.index_backward(g, shape, key),
    vjp=(lambda xp, gg, ans, g, shape, key: gg[key],),
    samples=(Sample(((4,),), {"shape": (3, 4), "key": np.array([0, 2, 0, 1])}),
             Sample(((2,),), {"shape": (5,), "key": slice(1, 3)})),
))

def _setitem_node_name(params, *values):
    key = params["key"]
    if is_mask_view_index(key):
        return "CopySlices"  # (PyTorch reads a 0-d mask as a new dim: a view, then a copy)
    if not is_basic_index(key):
        return "IndexPutBackward0"
    return "CopyBackwards" if key is Ellipsis else "CopySlices"


setitem = register(Op(
    "setitem", "CopySlices",
    node_name_of=_setitem_node_name,
    forward=lambda xp, a, value, key: xp.index_put(a, key, value),
    vjp=(lambda xp, g, ans, a, value, key: xp.index_put(g, key, 0.0),
         lambda xp, g, ans, a, value, key: g[key]),
    saves_params=True,
    samples=(Sample(((4,), (2,)), {"key": slice(1, 3)}), Sample(((2, 3), ()), {"key": (0, 1)}),
             Sample(((2, 3), (3,)), {"key": 1}), Sample(((4,), None), {"key": 2})),
))


# ---------------------------------------------------------------- repeat, flip, roll


def _repeat_grad(xp, g, ans, a, repeats):
    # the output is laid out as (r0, s0, r1, s1, ...): sum over the repeat axes
    if not repeats:
        return g
    shape = (1,) * (len(repeats) - a.ndim) + a.shape
    split = tuple(n for pair in zip(repeats, shape, strict=True) for n in pair)
    summed = xp.sum(xp.reshape(g, split), axis=tuple(range(0, len(split), 2)))
    return xp.reshape(summed, a.shape) if len(shape) != a.ndim else summed


repeat = register(Op(
    "repeat", "RepeatBackward0",
    forward=lambda xp, a, repeats: xp.tile(a, repeats),
    vjp=(_repeat_grad,),
    samples=(Sample(((2, 3),), {"repeats": (2, 1)}), Sample(((3,),), {"repeats": (2, 2)}),
             Sample(((2, 1),), {"repeats": (1, 2, 3)}), Sample(((2,),), {"repeats": (0,)})),
))

flip = register(Op(
    "flip", "FlipBackward0",
    forward=lambda xp, a, dims: xp.flip(a, dims),
    vjp=(lambda xp, g, ans, a, dims: xp.flip(g, dims),),
    samples=(Sample(((4,),), {"dims": (0,)}), Sample(((2, 3, 2),), {"dims": (0, 2)}),
             Sample(((2, 3),), {"dims": ()})),
))


def _negated(shifts):
    return -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)


roll = register(Op(
    "roll", "RollBackward0",
    # dims None: the flattened tensor is rolled by the one int shift
    forward=lambda xp, a, shifts, dims: xp.roll(a, shifts, dims),
    vjp=(lambda xp, g, ans, a, shifts, dims: xp.roll(g, _negated(shifts), dims),),
    samples=(Sample(((5,),), {"shifts": (2,), "dims": (0,)}),
             Sample(((2, 3),), {"shifts": 4, "dims": None}),
             Sample(((2, 3, 4),), {"shifts": (1, -5), "dims": (2, 0)})),
))


# ---------------------------------------------------------------- cat, stack


def _joined(inputs):
    """The inputs ``cat`` joins: 1-D empty tensors are skipped, as in PyTorch (legacy)."""
    kept = [a for a in inputs if a.shape != (0,)]
    return kept if kept else list(inputs)


def _cat_grad(xp, g, ans, needs, *inputs, dim):
    kept = {id(a) for a in _joined(inputs)}
    grads, offset = [], 0
    lead = (slice(None),) * dim
    for need, a in zip(needs, inputs, strict=True):
        if id(a) not in kept:
            grads.append(None)  # skipped by the forward: a zero gradient
            continue
        size = a.shape[dim]
        grads.append(g[(*lead, slice(offset, offset + size))] if need else None)
        offset += size
    return grads


cat = register(Op(
    "cat", "CatBackward0",
    forward=lambda xp, *inputs, dim: xp.concatenate(_joined(inputs), axis=dim),
    joint_vjp=_cat_grad,
    samples=(Sample(((2, 3), (1, 3)), {"dim": 0}), Sample(((2, 3), (2, 1), (2, 2)), {"dim": 1}),
             Sample(((3,),), {"dim": 0}), Sample(((2, 2), (0,)), {"dim": 1})),
))


def _stack_grad(xp, g, ans, needs, *inputs, dim):
    lead = (slice(None),) * dim
    return [g[(*lead, i, Ellipsis)] if need else None for i, need in enumerate(needs)]


stack = register(Op(
    "stack", "StackBackward0",
    forward=lambda xp, *inputs, dim: xp.stack(inputs, axis=dim),
    joint_vjp=_stack_grad,
    samples=(Sample(((2, 3), (2, 3)), {"dim": 0}), Sample(((2,), (2,), (2,)), {"dim": 1}),
             Sample(((), ()), {"dim": 0})),
))


# ---------------------------------------------------------------- pieces and picks
# Each op reads ``a[key]`` and scatters its cotangent back with ``index_backward`` (which adds
# where integer indices repeat). The methods layer computes the key (an index of ints and
# slices for the views split/chunk/unbind return, integer arrays for gather/index_select).


def _take(xp, a, key):
    return a[key]


def _take_grad(xp, g, ans, a, key):
    return xp.index_backward(g, a.shape, key)


def _take_op(name, node_name, samples):
    return register(Op(name, node_name, forward=_take, vjp=(_take_grad,), samples=samples))


split = _take_op("split", "SplitBackward0", (
    Sample(((5, 2),), {"key": (slice(2, 4),)}), Sample(((2, 3),), {"key": (slice(None),
                                                                          slice(2, 3))})))
split_with_sizes = _take_op("split_with_sizes", "SplitWithSizesBackward0", (
    Sample(((5,),), {"key": (slice(1, 4),)}), Sample(((2, 3),), {"key": (slice(None),
                                                                        slice(0, 0))})))
unbind = _take_op("unbind", "UnbindBackward0", (
    Sample(((3, 2),), {"key": (1, Ellipsis)}), Sample(((2, 3),), {"key": (slice(None), 2)}),
    Sample(((3,),), {"key": (0, Ellipsis)})))
gather = _take_op("gather", "GatherBackward0", (
    Sample(((4,),), {"key": (np.array([3, 0, 3]),)}),
    Sample(((2, 3),), {"key": (np.array([[0], [1]]), np.array([[2, 2, 0], [1, 0, 1]]))})))
index_select = _take_op("index_select", "IndexSelectBackward0", (
    Sample(((4,),), {"key": (np.array([1, 1, 3]),)}),
    Sample(((2, 3),), {"key": (slice(None), np.array([2, 0, 2, 2]))})))


# ---------------------------------------------------------------- masked_fill, scatter

_MASKED = (Sample(((2, 3), (2, 3)), bool_inputs=(1,)), Sample(((2, 3), (3,)), bool_inputs=(1,)),
           Sample(((3,), (2, 3)), bool_inputs=(1,)))

masked_fill = register(Op(
    "masked_fill", "MaskedFillBackward0",
    forward=lambda xp, a, mask, value: xp.where(mask, value, a),
    vjp=(lambda xp, g, ans, a, mask, value: xp.where(mask, 0.0, g), None),
    saved=(1,),
    samples=tuple(Sample(s.shapes, {"value": 0.5}, bool_inputs=(1,)) for s in _MASKED),
))

masked_fill_tensor = register(Op(
    "masked_fill_tensor", "MaskedFillBackward1",
    forward=lambda xp, a, mask, value: xp.where(mask, value, a),
    vjp=(lambda xp, g, ans, a, mask, value: xp.where(mask, 0.0, g), None,
         lambda xp, g, ans, a, mask, value: xp.where(mask, g, 0.0)),
    saved=(1,),
    samples=tuple(Sample((*s.shapes, ()), bool_inputs=(1,)) for s in _MASKED),
))

# ``key`` indexes the positions written (an integer array per dim, shaped like the index);
# ``src_key`` the part of ``src`` that is read (slices: src may be larger than the index)
_SCATTER = {"key": (np.array([[1, 0, 1]]), np.array([[0, 1, 2]])), "src_key": (slice(0, 1),
                                                                              slice(0, 3))}
_SCATTER_DUP = {"key": (np.array([[0, 0]]), np.array([[2, 2]])), "src_key": (slice(0, 1),
                                                                             slice(0, 2))}


def _scatter_src_grad(xp, g, ans, a, src, key, src_key):
    return xp.index_backward(g[key], src.shape, src_key)


scatter = register(Op(
    "scatter", "ScatterBackward0",
    forward=lambda xp, a, src, key, src_key: xp.index_put(a, key, src[src_key]),
    vjp=(lambda xp, g, ans, a, src, key, src_key: xp.index_put(g, key, 0.0),
         _scatter_src_grad),
    samples=(Sample(((2, 3), (2, 3)), _SCATTER), Sample(((2, 3), (1, 3)), _SCATTER)),
))

scatter_value = register(Op(
    "scatter_value", "ScatterBackward1",
    forward=lambda xp, a, key, value: xp.index_put(a, key, value),
    vjp=(lambda xp, g, ans, a, key, value: xp.index_put(g, key, 0.0),),
    samples=(Sample(((2, 3),), {"key": _SCATTER["key"], "value": 1.5}),),
))

scatter_add = register(Op(
    "scatter_add", "ScatterAddBackward0",
    forward=lambda xp, a, src, key, src_key:
        a + xp.index_backward(src[src_key], a.shape, key),
    vjp=(lambda xp, g, ans, a, src, key, src_key: g, _scatter_src_grad),
    samples=(Sample(((2, 3), (2, 3)), _SCATTER), Sample(((2, 3), (2, 3)), _SCATTER_DUP)),
))


# ---------------------------------------------------------------- padding


def _pad_parts(shape, pad):
    """For ``pad`` (a (before, after) pair per dim; negative crops): the part of the input
    kept, where it lands in the output, and the non-negative widths added around it."""
    kept, placed, widths = [], [], []
    for n, (before, after) in zip(shape, pad, strict=True):
        start, stop = max(-before, 0), n - max(-after, 0)
        kept.append(slice(start, stop))
        placed.append(slice(max(before, 0), max(before, 0) + stop - start))
        widths.append((max(before, 0), max(after, 0)))
    return (*kept, Ellipsis), (*placed, Ellipsis), tuple(widths)


def _pad_grad(xp, g, ans, a, pad, value):
    kept, placed, _ = _pad_parts(a.shape, pad)
    inner = g[placed]
    if any(before < 0 or after < 0 for before, after in pad):
        return xp.index_backward(inner, a.shape, kept)
    return inner


constant_pad = register(Op(
    "constant_pad", "ConstantPadNdBackward0",
    forward=lambda xp, a, pad, value:
        xp.pad(a[_pad_parts(a.shape, pad)[0]], _pad_parts(a.shape, pad)[2], value),
    vjp=(_pad_grad,),
    samples=(Sample(((3,),), {"pad": ((1, 2),), "value": 0.0}),
             Sample(((2, 3),), {"pad": ((0, 0), (-1, 2)), "value": 1.5}),
             Sample(((2, 3, 4),), {"pad": ((1, 0), (-1, -1), (2, -3)), "value": 0.0})),
))


# ---------------------------------------------------------------- rot90, unfold, masked_select
def _rot90(xp, a, k, dims):
    """``a`` turned ``k`` quarter turns from ``dims[0]`` toward ``dims[1]`` (numpy's rot90)."""
    k %= 4
    d0, d1 = dims
    if k == 1:
        return xp.swapaxes(xp.flip(a, (d1,)), d0, d1)
    if k == 2:
        return xp.flip(a, (d0, d1))
    if k == 3:
        return xp.flip(xp.swapaxes(a, d0, d1), (d1,))
    return xp.flip(a, ())  # a copy


rot90 = register(Op(
    "rot90", "Rot90Backward0",
    forward=_rot90,
    vjp=(lambda xp, g, ans, a, k, dims: _rot90(xp, g, -k, dims),),
    samples=(Sample(((2, 3),), {"k": 1, "dims": (0, 1)}),
             Sample(((2, 3, 2),), {"k": 2, "dims": (2, 0)}),
             Sample(((2, 3),), {"k": -1, "dims": (0, 1)}),
             Sample(((3, 2),), {"k": 4, "dims": (1, 0)})),
))

# Tensor.unfold: the windows of one dim, read as a[key] (the methods layer builds the key)
unfold = _take_op("unfold", "UnfoldBackward0", (
    Sample(((5,),), {"key": (np.array([[0, 1], [2, 3]]),)}),
    Sample(((2, 4),), {"key": (np.arange(2).reshape(2, 1, 1),
                               np.array([[0, 1, 2], [1, 2, 3]]).reshape(1, 2, 3))}),
))

# masked_select: the elements where the (broadcast) mask is true, as integer indices into the
# input (repeated where the input broadcasts)
masked_select = _take_op("masked_select", "MaskedSelectBackward0", (
    Sample(((2, 3),), {"key": (np.array([0, 1, 1]), np.array([2, 0, 2]))}),
    Sample(((3,),), {"key": (np.array([0, 2, 0, 1]),)}),
))


# ---------------------------------------------------------------- index_add, index_copy,
# scatter_reduce. ``key`` and ``src_key`` as for scatter; the methods layer computes what
# depends on which element wins (amax/amin) or how many elements meet (mean) numerically.
index_add = register(Op(
    "index_add", "IndexAddBackward0",
    forward=lambda xp, a, src, key, src_key, alpha=1:
        a + xp.index_backward(src[src_key] if alpha == 1 else src[src_key] * alpha, a.shape,
                              key),
    vjp=(lambda xp, g, ans, a, src, key, src_key, alpha=1: g,
         lambda xp, g, ans, a, src, key, src_key, alpha=1:
             _scatter_src_grad(xp, g if alpha == 1 else g * alpha, ans, a, src, key, src_key)),
    samples=(Sample(((2, 3), (2, 3)), _SCATTER), Sample(((2, 3), (2, 3)),
                                                        {**_SCATTER_DUP, "alpha": 2.5})),
))

index_copy = register(Op(
    "index_copy", "IndexCopyBackward0",
    forward=lambda xp, a, src, key, src_key: xp.index_put(a, key, src[src_key]),
    vjp=(lambda xp, g, ans, a, src, key, src_key: xp.index_put(g, key, 0.0),
         _scatter_src_grad),
    samples=(Sample(((2, 3), (2, 3)), _SCATTER),),
))


def _scatter_reduce_forward(xp, a, src, key, src_key, reduce, include_self, divisor=None,
                            pick_key=None, pick_src=None, weight_self=None, weight_src=None):
    s = src[src_key]
    if reduce in ("amax", "amin"):  # the winning source elements, written over a
        return xp.index_put(a, pick_key, s[pick_src]) if pick_key else a * 1
    if reduce == "prod":
        base = a if include_self else xp.index_put(a, key, 1.0)
        return base * xp.index_multiply(s, a.shape, key)
    total = (a if include_self else xp.index_put(a, key, 0.0)) + xp.index_backward(s, a.shape,
                                                                                  key)
    return total if reduce == "sum" else total / divisor


def _scatter_reduce_self_grad(xp, g, ans, a, src, key, src_key, reduce, include_self,
                              divisor=None, pick_key=None, pick_src=None, weight_self=None,
                              weight_src=None):
    if reduce in ("amax", "amin"):
        return g * weight_self
    if reduce == "mean":
        g = g / divisor
    elif reduce == "prod" and include_self:  # the product of the source elements it met
        g = g * xp.index_multiply(src[src_key], a.shape, key)
    return g if include_self else xp.index_put(g, key, 0.0)


def _scatter_reduce_src_grad(xp, g, ans, a, src, key, src_key, reduce, include_self,
                             divisor=None, pick_key=None, pick_src=None, weight_self=None,
                             weight_src=None):
    if reduce in ("amax", "amin"):
        return xp.index_backward(g[key] * weight_src, src.shape, src_key)
    if reduce == "mean":
        return _scatter_src_grad(xp, g / divisor, ans, a, src, key, src_key)
    if reduce == "prod":  # the product of the others: ans / s, unless s is its group's one 0
        s = src[src_key]
        zero = s == 0
        zeros = xp.index_backward(xp.where(zero, 1.0, 0.0), a.shape, key)[key]
        single = zero & (zeros == 1)
        base = a if include_self else xp.index_put(a, key, 1.0)
        others = base * xp.index_multiply(xp.where(single, 1.0, s), a.shape, key)
        grad = xp.where(single, (g * others)[key], (g * ans)[key] / xp.where(zero, 1.0, s))
        return xp.index_backward(grad, src.shape, src_key)
    return _scatter_src_grad(xp, g, ans, a, src, key, src_key)


_REDUCE_KEY = {"key": (np.array([0, 1, 0, 1, 2, 1]),), "src_key": (slice(0, 6),)}
_REDUCE_DIVISOR = np.array([3.0, 4.0, 2.0, 1.0])
_REDUCE_PICK = {"pick_key": (np.array([0, 1]),), "pick_src": (np.array([2, 5]),),
                "weight_self": np.array([0.0, 0.0, 1.0, 1.0]),
                "weight_src": np.array([0.0, 0.0, 1.0, 0.0, 0.0, 1.0])}

scatter_reduce = register(Op(
    "scatter_reduce", "ScatterReduceBackward0",
    forward=_scatter_reduce_forward,
    vjp=(_scatter_reduce_self_grad, _scatter_reduce_src_grad),
    samples=(Sample(((4,), (6,)), {**_REDUCE_KEY, "reduce": "sum", "include_self": True}),
             Sample(((4,), (6,)), {**_REDUCE_KEY, "reduce": "sum", "include_self": False}),
             Sample(((4,), (6,)), {**_REDUCE_KEY, "reduce": "mean", "include_self": True,
                                   "divisor": _REDUCE_DIVISOR}),
             Sample(((4,), (6,)), {**_REDUCE_KEY, "reduce": "prod", "include_self": True},
                    **{"low": 0.5, "high": 2.0}),
             Sample(((4,), (6,)), {**_REDUCE_KEY, "reduce": "prod", "include_self": False},
                    **{"low": 0.5, "high": 2.0}),
             Sample(((4,), (6,)), {**_REDUCE_KEY, "reduce": "amax", "include_self": True,
                                   **_REDUCE_PICK})),
))


def _not_implemented_scatter(xp, g, ans, *args, **params):
    raise RuntimeError("derivative for aten::scatter is not implemented")


# Not registered (no gradient): scatter(..., reduce="add" | "multiply"), which PyTorch records
# with a node named "NotImplemented" whose backward raises.
scatter_with_reduce = Op(
    "scatter_with_reduce", "NotImplemented",
    forward=_scatter_reduce_forward,
    vjp=(_not_implemented_scatter, _not_implemented_scatter),
)
