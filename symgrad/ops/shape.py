"""Shape ops: reshape/view, transposes and permutes, (un)squeeze, expand, indexing.

Their VJPs move the cotangent back to the input's layout; indexing scatters it, adding where
integer-array indices repeat.
"""

from __future__ import annotations

import numpy as np

from symgrad.numeric.namespace import is_basic_index
from symgrad.ops import Op, Sample, register

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
