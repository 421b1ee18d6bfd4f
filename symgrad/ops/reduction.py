"""Reductions: sum and mean over all elements or over given dims (with keepdim)."""

from __future__ import annotations

import math

from symgrad.ops import Op, Sample, register

SAMPLES = (
    Sample(((3,),)),
    Sample(((2, 3),)),
    Sample(((2, 3),), {"dim": (0,), "keepdim": False}),
    Sample(((2, 3),), {"dim": (1,), "keepdim": True}),
    Sample(((2, 3, 4),), {"dim": (0, 2), "keepdim": False}),
    Sample(((),)),
    Sample(((2, 3),), {"dim": (0, 1), "keepdim": True}),
    Sample(((),), {"dim": (), "keepdim": False}),
)


def _spread(xp, g, a, dim, keepdim):
    """Broadcast a reduced cotangent back over the reduced dims of ``a``."""
    if dim is not None and not keepdim:
        g = xp.expand_dims(g, dim)
    return xp.spread(g, a.shape)


def _count(shape, dim):
    return math.prod(shape) if dim is None else math.prod(shape[d] for d in dim)


def _by_dim(variant0: str, variant1: str):
    return lambda params, *values: variant0 if params.get("dim") is None else variant1


sum = register(Op(
    "sum", "SumBackward0",
    forward=lambda xp, a, dim=None, keepdim=False: xp.sum(a, axis=dim, keepdims=keepdim),
    vjp=(lambda xp, g, ans, a, dim=None, keepdim=False: _spread(xp, g, a, dim, keepdim),),
    node_name_of=_by_dim("SumBackward0", "SumBackward1"),
    samples=SAMPLES,
))

mean = register(Op(
    "mean", "MeanBackward0",
    forward=lambda xp, a, dim=None, keepdim=False: xp.mean(a, axis=dim, keepdims=keepdim),
    vjp=(lambda xp, g, ans, a, dim=None, keepdim=False:
         _spread(xp, g, a, dim, keepdim) / _count(a.shape, dim),),
    float_only=True,
    node_name_of=_by_dim("MeanBackward0", "MeanBackward1"),
    samples=SAMPLES,
))
